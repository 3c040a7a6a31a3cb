"""Time from a fresh process to the main window shown (target: <= 1.5 s, warm numba cache).

Runs `gradviz` in a subprocess on the offscreen platform (or the display it is given)
and measures until the window's first paint has been processed. Median of 5.
"""
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import time, sys
start = float(sys.argv[1])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gradviz.app import create_window
window = create_window(None, offer_recovery=False)
window.show()
def done():
    print(f"{time.time() - start:.3f} pyqtgraph={'pyqtgraph' in sys.modules}")
    app.quit()
QTimer.singleShot(0, done)
app.exec()
"""


def once():
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    start = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, repr(start)], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), out[1]


def main():
    once()  # warm the numba and bytecode caches
    runs = [once() for _ in range(5)]
    times = [t for t, _ in runs]
    print(f"window shown after start: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f}, max {max(times):.2f}); target <= 1.5 s; {runs[0][1]}")


if __name__ == "__main__":
    main()
