"""Time from a fresh process to the main window shown (target: <= 1.5 s, warm numba cache).

Runs `gradviz` in a subprocess on the offscreen platform (or the display it is given)
and measures until the window's first paint has been processed. Median of 5, after one
run that warms the numba and bytecode caches. The child may write bytecode even where
PYTHONDONTWRITEBYTECODE is set, since an installed gradviz starts from its .pyc files;
the child's CPU time is printed beside the wall time, since the machine may be shared.
"""
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import resource, time, sys
start = float(sys.argv[1])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gradviz.app import create_window
window = create_window(None, offer_recovery=False)
window.show()
def done():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{time.time() - start:.3f} {usage.ru_utime + usage.ru_stime:.3f} "
          f"pyqtgraph={'pyqtgraph' in sys.modules}")
    app.quit()
QTimer.singleShot(0, done)
app.exec()
"""


def once():
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, repr(start)], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1]), out[2]


def main():
    once()  # warm the numba and bytecode caches
    runs = [once() for _ in range(5)]
    times = [t for t, _, _ in runs]
    cpu = statistics.median(c for _, c, _ in runs)
    print(f"window shown after start: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f}, max {max(times):.2f}; CPU {cpu:.2f} s); target <= 1.5 s; "
          f"{runs[0][2]}")


if __name__ == "__main__":
    main()
