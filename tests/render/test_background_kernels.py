"""The render layer's numba kernels (PNG's deflate, GIF's LZW) load on a worker thread:
a thread that must not wait (the app's UI thread) codes with the Python or zlib twins
meanwhile and meets no compile."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from numba_spy import SPY  # noqa: E402

pytest.importorskip("numba")
pytestmark = pytest.mark.cpu_independent("bytes coded from integer pixels, which thread codes them")

_RENDER_KERNELS = SPY + textwrap.dedent("""
    import time
    import numpy as np
    from gradviz.engine import kernels
    from gradviz.render import animation_files, png_fast

    kernels.never_wait_here()   # as the app's UI thread
    frame = np.repeat(np.random.default_rng(1).integers(0, 40, 30000), 3).astype(np.uint8)
    start = time.perf_counter()
    first = animation_files.lzw_encode(frame)       # numba starts loading; Python codes this one
    assert png_fast.kernel() is None          # not loaded yet either: BandWriter takes zlib
    took = time.perf_counter() - start
    assert first == animation_files._lzw_python(frame)
    assert importers != ["MainThread"], importers
    assert animation_files._LZW.wait() is not None and png_fast.KERNEL.wait() is not None
    assert importers and importers[0].startswith("numba "), importers
    assert animation_files._lzw_kernel() is animation_files._LZW.wait()   # loaded: the UI thread uses it
    assert animation_files.lzw_encode(frame) == first
    print(took)
""")


def _run(code, timeout=120):
    env = dict(os.environ, GRADVIZ_NUMBA="1")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_render_kernels_load_on_a_worker_while_a_ui_thread_takes_the_twins():
    done = _run(_RENDER_KERNELS)
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 5.0   # no compile waited for (a cold cache takes longer)
