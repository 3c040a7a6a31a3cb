"""A fresh process's first gradient waits for numpy and the engine only: no Qt, no layer
above the engine, no tf.function compiler, and numba only on the kernel loader's thread."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from numba_spy import SPY  # noqa: E402

_PROGRAM = SPY + textwrap.dedent("""
    import json
    import numpy as np
    import gradviz as tf
    from gradviz.engine import kernels

    x = tf.constant(np.ones((64, 32), np.float32))
    w1 = tf.Variable(np.full((32, 128), 0.01, np.float32))
    w2 = tf.Variable(np.full((128, 10), 0.01, np.float32))
    with tf.GradientTape() as tape:   # relu on 64x128: large enough for a numba kernel
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)))
    grads = tape.gradient(loss, [w1, w2])
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6")
                    or m.startswith(("gradviz.graph", "gradviz.story", "gradviz.render",
                                     "gradviz.app", "gradviz.engine.trace_program",
                                     "gradviz.engine.fuse")))
    kernels.warm_up()   # the loader's import of numba, which the gradient did not wait for
    json.dump({"loaded": loaded, "importers": importers, "ready": kernels._ready,
               "grad": float(grads[0].numpy().sum())}, sys.stdout)
""")


def test_a_first_gradient_loads_only_the_engine_and_numba_on_a_worker():
    env = dict(os.environ, GRADVIZ_NUMBA="1")
    done = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["loaded"] == []
    assert report["importers"] == ["gradviz numba kernels"]
    assert report["ready"]
    # d mean((relu(x W1) W2)^2) / dW1 with every number positive: 2/640 * sum over the
    # batch and outputs of y * W2 * x, where y = 128 * 0.32 * 0.01 each.
    y = 128 * (32 * 0.01) * 0.01
    expected = 2 / 640 * y * 0.01 * 64 * 10 * 32 * 128
    assert abs(report["grad"] - expected) < 1e-5 * expected


@pytest.mark.cpu_independent("which modules a process loads, and 3.0 * 2.0: exact on every CPU")
def test_tf_function_loads_its_compiler_at_the_first_trace():
    code = ("import sys, gradviz as tf\n"
            "before = 'gradviz.engine.trace_program' in sys.modules\n"
            "f = tf.function(lambda x: x * 2.0)\n"
            "after_decorating = 'gradviz.engine.trace_program' in sys.modules\n"
            "y = f(tf.constant(3.0))\n"
            "print(before, after_decorating, 'gradviz.engine.trace_program' in sys.modules, float(y))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True", "6.0"]
