import os

# Before anything imports Qt: without a display, Qt aborts the test process.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
