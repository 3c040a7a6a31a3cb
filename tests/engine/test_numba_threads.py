"""A child forked while a worker thread imports numba or compiles with it keeps numpy:
numba's locks may be held there by a thread the child does not have."""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("numba")


def _run(code, timeout=120):
    env = dict(os.environ, GRADVIZ_NUMBA="1")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=timeout)


_FORK_WHILE_FUSING = textwrap.dedent("""
    import os, threading, time
    import numpy as np
    import gradviz as tf
    from gradviz.engine import fuse, kernels, trace_program

    inside = threading.Event()
    original = fuse.cache_dir

    def slow_cache_dir():   # the fusing thread holds fuse's lock (numba may be half imported)
        inside.set()
        time.sleep(1.0)
        return original()

    fuse.cache_dir = slow_cache_dir
    f = tf.function(lambda x: tf.sin(x) * 2.0 + x * x - 1.0)
    x = tf.constant(np.linspace(-1, 1, 64))
    for _ in range(2 * trace_program.FUSE_AFTER_CALLS):   # the fusing starts on a worker
        f(x)
    assert inside.wait(20)
    pid = os.fork()
    if pid == 0:
        fuse.cache_dir = original
        g = tf.function(lambda x: tf.cos(x) * 3.0 - x * x)
        g(x)
        program = next(iter(g.get_concrete_function(x)._programs.values()))
        worker = threading.Thread(target=program.fuse, daemon=True)
        worker.start()
        worker.join(20)
        expected = np.cos(x.numpy()) * 3.0 - x.numpy() ** 2
        big = np.linspace(-3, 3, 8192)
        ok = (not worker.is_alive() and not program.fused
              and np.allclose(g(x).numpy(), expected, rtol=1e-12)
              and np.array_equal(kernels.relu(big), np.maximum(big, 0)) and not kernels._ready)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status), flush=True)
    os._exit(0)   # not waiting for this process's own fusing to finish
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_child_forked_while_a_function_fuses_keeps_the_plain_program(tmp_path):
    done = _run(f"import os; os.environ['GRADVIZ_KERNEL_CACHE'] = {str(tmp_path)!r}\n"
                + _FORK_WHILE_FUSING)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["child", "0"], "the child hung or went wrong"
