"""Python text that a test program starts with: `importers` then names the thread that
imported numba first (a list of one name, empty while numba is not imported)."""
import textwrap

SPY = textwrap.dedent("""
    import builtins, sys, threading

    importers = []
    original_import = builtins.__import__

    def spy(name, *args, **kwargs):
        if name.split(".")[0] == "numba" and "numba" not in sys.modules and not importers:
            importers.append(threading.current_thread().name)
        return original_import(name, *args, **kwargs)

    builtins.__import__ = spy
""")
