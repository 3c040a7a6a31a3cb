"""`gradviz trace` as a user runs it: real child processes over scripts written to tmp_path
(issue 25 §3)."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gradviz import graph

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}   # this checkout, from any folder


def _script(tmp_path, text, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _trace(*args, timeout=120, **kwargs):
    return subprocess.run([sys.executable, "-m", "gradviz", "trace", *map(str, args)],
                          cwd=kwargs.pop("cwd", ROOT), capture_output=True, text=True,
                          timeout=timeout, env=kwargs.pop("env", ENV), **kwargs)


def _one_line_error(result, *words):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gradviz: error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


TRAINING = """
    import gc, json, sys, weakref
    import numpy as np
    import gradviz as tf
    rng = np.random.default_rng(0)
    x = tf.constant(rng.normal(size=(8, 32)).astype("float32"))
    W = tf.Variable(rng.normal(size=(32, 32)).astype("float32") * 0.1)
    hidden = []
    for step in range(1, 41):
        scale = tf.constant(float(step))
        with tf.GradientTape() as tape:
            h = tf.matmul(x, W)
            loss = tf.reduce_sum(h * h) * scale
        g = tape.gradient(loss, W)
        if step in (3, 39, 40):
            np.save(f"grad{step}.npy", g.numpy())
            np.save(f"W{step}.npy", W.numpy())
        W.assign_sub(1e-4 * g)
        hidden.append(weakref.ref(h))
    gc.collect()
    with open("alive.json", "w") as f:
        json.dump(sum(r() is not None for r in hidden), f)
"""


def test_a_training_loop_keeps_only_the_tape_of_the_call_it_saves(tmp_path):
    script = _script(tmp_path, TRAINING)
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # Each step's tape holds its h; before, trace kept all 40 tapes alive to the end.
    assert json.loads((tmp_path / "alive.json").read_text()) <= 2
    assert result.stdout.strip().endswith(
        "it shows gradient call 40 of 40 (--call K picks another)")
    doc = graph.load(out)
    assert doc.title == "Traced script (gradient call 40 of 40)"
    np.testing.assert_allclose(graph.evaluate(doc).gradients[doc.sources[0]],
                               np.load(tmp_path / "grad40.npy"), rtol=1e-5)


@pytest.mark.parametrize("call, step", [(3, 3), (-2, 39)])
def test_call_k_saves_that_call_and_keeps_no_other(tmp_path, call, step):
    script = _script(tmp_path, TRAINING)
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out, "--call", call, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "alive.json").read_text()) <= 3
    assert f"it shows gradient call {step} of 40" in result.stdout
    doc = graph.load(out)
    ev = graph.evaluate(doc)
    np.testing.assert_allclose(ev.gradients[doc.sources[0]], np.load(tmp_path / f"grad{step}.npy"),
                               rtol=1e-5)
    (w,) = [n for n in doc.nodes.values() if n.kind == "variable"]
    np.testing.assert_array_equal(w.value, np.load(tmp_path / f"W{step}.npy"))


def test_a_call_the_script_never_made_is_refused(tmp_path):
    script = _script(tmp_path, TRAINING)
    result = _trace(script, "-o", tmp_path / "doc.json", "--call", "41", cwd=tmp_path)
    _one_line_error(result, "the script made 40 gradient calls; --call 41 is not one of them")
    result = _trace(script, "-o", tmp_path / "doc.json", "--call", "0", cwd=tmp_path)
    _one_line_error(result, "--call 0: gradient calls count from 1")
    assert not (tmp_path / "doc.json").exists()


def test_the_memory_a_training_loop_keeps_stays_bounded(tmp_path):
    """60 steps of 512x512 float32 (1 MB) tensors: before, trace kept every step's ~4 MB."""
    script = _script(tmp_path, """
        import resource
        import numpy as np
        import gradviz as tf
        W = tf.Variable(np.full((512, 512), 0.01, "float32"))
        def peak():
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # MB
        for step in range(60):
            if step == 10:
                after_ten = peak()
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(W * W * 2.0)
            W.assign_sub(1e-6 * tape.gradient(loss, W))
        open("growth.txt", "w").write(str(peak() - after_ten))
    """)
    result = _trace(script, "-o", tmp_path / "doc.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert float((tmp_path / "growth.txt").read_text()) < 60   # MB; before: 140


SQUARE = """
    import gradviz as tf
    x = tf.Variable(3.0)
    with tf.GradientTape() as t:
        y = x * x
    print(t.gradient(y, x))
"""


@pytest.mark.parametrize("how", ["same path", "another spelling", "symbolic link", "hard link"])
def test_an_output_that_is_the_script_is_refused(tmp_path, how):
    script = _script(tmp_path, SQUARE, name="s.py")
    before = script.read_bytes()
    if how == "same path":
        out = script
    elif how == "another spelling":
        (tmp_path / "sub").mkdir()
        out = tmp_path / "sub" / ".." / "." / "s.py"
    elif how == "symbolic link":
        out = tmp_path / "link.json"
        out.symlink_to(script)
    else:
        out = tmp_path / "hard.json"
        os.link(script, out)
    result = _trace(script, "-o", out)
    _one_line_error(result, "is the script itself; choose another output file")
    assert script.read_bytes() == before


def test_a_failure_after_the_saved_call_writes_the_document_and_exits_1(tmp_path):
    script = _script(tmp_path, textwrap.dedent(SQUARE) + "raise ValueError('after the gradient')\n")
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out)
    assert result.returncode == 1, result.stderr
    assert result.stderr == (f"gradviz: warning: {script}: after the gradient call the "
                             "document shows, the script failed: ValueError: after the "
                             "gradient (line 7)\n")
    assert f"wrote {out}: 2 nodes" in result.stdout
    assert float(graph.evaluate(graph.load(out)).gradients[graph.Port("x")]) == 6.0
    script.write_text(textwrap.dedent(SQUARE) + "import sys\nsys.exit(3)\n", encoding="utf-8")
    result = _trace(script, "-o", out)
    assert result.returncode == 1 and "the script exited with status 3" in result.stderr


def test_progress_is_shown_on_a_terminal_only(tmp_path):
    script = _script(tmp_path, """
        import gradviz as tf
        x = tf.Variable(0.5)
        with tf.GradientTape() as t:
            y = x
            for _ in range(1200):
                y = tf.sin(y)
        t.gradient(y, x)
    """)
    out = tmp_path / "doc.json"
    piped = _trace(script, "-o", out)
    assert piped.returncode == 0 and piped.stderr == ""
    import pty
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "gradviz", "trace", str(script), "-o",
                                    str(out)], cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                                   stderr=slave)
        os.close(slave)
        seen = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:   # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        assert process.wait(timeout=120) == 0
    finally:
        os.close(master)
    text = seen.decode()
    assert "\rgradviz: converting the tape: 0 of 1,200 ops" in text
    assert text.endswith("gradviz: converting the tape: 1,200 of 1,200 ops\r\n")


# -- what a script may do to its own process ------------------------------------------------

def test_os_exit_after_the_gradient_is_told_in_words(tmp_path):
    script = _script(tmp_path, textwrap.dedent(SQUARE) + "import os\nos._exit(0)\n")
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out)
    _one_line_error(result, "the script ended its process with os._exit(0) after 1 gradient "
                            "call, so its tape could not be saved; nothing was written")
    assert not out.exists()


def test_a_crash_of_the_script_is_named(tmp_path):
    script = _script(tmp_path, textwrap.dedent(SQUARE)
                     + "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    result = _trace(script, "-o", tmp_path / "doc.json")
    _one_line_error(result, "the script's process was killed by SIGSEGV while the script ran "
                            "(after 1 gradient call); nothing was written")


def test_a_fork_that_runs_to_the_end_writes_nothing(tmp_path):
    script = _script(tmp_path, textwrap.dedent(SQUARE) + textwrap.dedent("""
        import os
        pid = os.fork()
        if pid:
            _, status = os.waitpid(pid, 0)
            open("fork_status.txt", "w").write(str(os.waitstatus_to_exitcode(status)))
        else:
            import sys
            sys.exit(5)   # the fork ends as the script says, never through trace's writer
    """))
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("wrote ") == 1   # before: the fork wrote too
    assert (tmp_path / "fork_status.txt").read_text() == "5"
    assert result.stderr == (f"gradviz: warning: {script}: the script forked (os.fork or "
                             "multiprocessing); only the gradient calls of its original "
                             "process are traced\n")


def test_forks_still_running_at_the_end_are_stopped(tmp_path):
    script = _script(tmp_path, textwrap.dedent(SQUARE) + textwrap.dedent("""
        import os, time
        if os.fork() == 0:
            open("fork_pid.txt", "w").write(str(os.getpid()))
            time.sleep(60)    # before: trace's output pipes stayed open for 60 s
    """))
    start = __import__("time").monotonic()
    result = _trace(script, "-o", tmp_path / "doc.json", cwd=tmp_path, timeout=40)
    assert __import__("time").monotonic() - start < 30
    assert result.returncode == 0, result.stderr
    assert "processes it started were still running and were stopped" in result.stderr
    assert _ends(int((tmp_path / "fork_pid.txt").read_text()))


def _ends(pid):
    """Does process `pid` end within 5 s (gone, or a zombie its new parent has not reaped)?"""
    import time
    for _ in range(100):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        time.sleep(0.05)
    return False


def test_a_script_using_multiprocessing_and_changing_folder_traces(tmp_path):
    script = _script(tmp_path, """
        import multiprocessing, os
        import gradviz as tf
        def square(v):
            return v * v
        if __name__ == "__main__":
            with multiprocessing.get_context("fork").Pool(2) as pool:
                squares = pool.map(square, [1.0, 2.0])   # before: PicklingError
            x = tf.Variable(squares[1])
            with tf.GradientTape() as t:
                y = x * x
            t.gradient(y, x)
            os.chdir(os.path.dirname(os.getcwd()))
    """)
    result = _trace(script, "-o", "doc.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    doc = graph.load(tmp_path / "doc.json")   # before: written in the script's new folder
    assert float(graph.evaluate(doc).gradients[doc.sources[0]]) == 8.0


def test_a_gradient_computed_in_a_thread_is_waited_for(tmp_path):
    script = _script(tmp_path, """
        import threading, time
        import gradviz as tf
        def work():
            time.sleep(0.3)
            x = tf.Variable(4.0)
            with tf.GradientTape() as t:
                y = x * x * x
            t.gradient(y, x)
        threading.Thread(target=work).start()
    """)
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out)
    assert result.returncode == 0, result.stderr   # before: "computed no tape.gradient"
    doc = graph.load(out)
    assert float(graph.evaluate(doc).gradients[doc.sources[0]]) == 48.0


def test_a_thread_that_never_ends_is_stopped_at_the_timeout(tmp_path):
    script = _script(tmp_path, textwrap.dedent(SQUARE) + textwrap.dedent("""
        import threading, time
        threading.Thread(target=time.sleep, args=(600,), name="poller").start()
    """))
    out = tmp_path / "doc.json"
    result = _trace(script, "-o", out, "--timeout", "3", timeout=60)
    _one_line_error(result, "stopped at the time limit of 3 s (--timeout), while waiting for "
                            "the script's thread 'poller' to end; nothing was written")
    assert not out.exists()


def test_an_endless_script_is_stopped_at_the_timeout(tmp_path):
    script = _script(tmp_path, "import gradviz\nwhile True:\n    pass\n")
    result = _trace(script, "-o", tmp_path / "doc.json", "--timeout", "2", timeout=60)
    _one_line_error(result, "stopped at the time limit of 2 s (--timeout), while the script ran "
                            "(after 0 gradient calls)")


def test_a_script_over_the_memory_limit_gets_a_memory_error(tmp_path):
    script = _script(tmp_path, """
        import numpy as np
        import gradviz as tf
        big = np.empty(2 ** 34, dtype=np.uint8)   # 16 GB of address space, never touched
    """)
    # one BLAS thread: a many-core machine's per-thread buffers stay far below the limit
    result = _trace(script, "-o", tmp_path / "doc.json", "--max-memory", "2G",
                    env={**ENV, "OPENBLAS_NUM_THREADS": "1"})
    _one_line_error(result, "MemoryError", "(the limit is --max-memory 2 GB)")


@pytest.mark.parametrize("args, words", [
    (["--max-memory", "lots"], "'lots' is not a size such as 4G or 512M"),
    (["--max-memory", "1K"], "give at least 64M"),
    (["--timeout", "0"], "--timeout 0: give a number of seconds above 0")])
def test_limits_are_checked(tmp_path, args, words):
    script = _script(tmp_path, SQUARE)
    _one_line_error(_trace(script, "-o", tmp_path / "doc.json", *args), words)


def test_stopping_trace_stops_the_script(tmp_path):
    script = _script(tmp_path, """
        import os, time
        open("pid.txt", "w").write(str(os.getpid()))
        while True:
            time.sleep(0.05)
    """)
    import signal
    import time
    process = subprocess.Popen([sys.executable, "-m", "gradviz", "trace", str(script), "-o",
                                str(tmp_path / "doc.json")], cwd=tmp_path, env=ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pid_file = tmp_path / "pid.txt"
    deadline = time.monotonic() + 60
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)
    assert _ends(int(pid_file.read_text())), "the script still runs after trace was stopped"
