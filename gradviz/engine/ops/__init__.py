"""The ops, one module per family. Each op is defined once: forward, VJP rule, formula."""
