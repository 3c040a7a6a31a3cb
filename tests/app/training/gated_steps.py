"""A run whose worker takes a step only when the test lets it (a gate in Trainer.step), so
what the window shows is decided by the steps taken, not by how busy the machine is."""
import threading
import time

from gradviz.graph.training import Trainer


def gate_steps(monkeypatch):
    """(gate, waiting): `gate.release(n)` lets n more steps through; `waiting` is set once
    the worker has come to its first step."""
    gate, waiting = threading.Semaphore(0), threading.Event()
    step = Trainer.step

    def gated_step(trainer):
        waiting.set()
        gate.acquire()
        return step(trainer)
    monkeypatch.setattr(Trainer, "step", gated_step)
    return gate, waiting


def steps_taken(trainer, n, timeout=20.0):
    """Wait, without running the window's events, until the worker has taken `n` steps."""
    end = time.monotonic() + timeout
    while len(trainer.history) < n:
        assert time.monotonic() < end, f"the worker took {len(trainer.history)} of {n} steps"
        time.sleep(0.002)
    time.sleep(0.01)
    assert len(trainer.history) == n     # and no more: the gate holds it
