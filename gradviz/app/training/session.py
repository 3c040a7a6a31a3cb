"""A training run in the app: the optimizer runs on a worker thread (graph/training's
Trainer on its own copy of the document), and the window's document follows it.

The worker never waits for a preview to be taken: after each step it leaves the step's
index and the Variables' arrays (which an update replaces, never writes into) where the
UI thread can take them. PREVIEW_MS after its last preview (longer when previews are
slow) the UI thread takes the latest and puts it into the document as one undoable edit
that merges with the run's earlier ones, so the cards show the run's values and gradients
and one Undo puts every Variable back as it was before the run. An edit by the user that
the engine sees (not a move or a label) ends the run: the trainer's copy no longer
matches the document.

The window goes first: the worker and the UI thread share one interpreter lock, so from
an edit (the user's or a preview), a press or a key on the canvas until the canvas has
painted it, the worker takes no new step (`hold_worker`), and the next preview and the
plots wait for that paint too. Without the wait a card moved during a run repainted in a
median 77 ms, with it 56 ms, the same move with no run 52 ms (load 9, bench/README.md).
Between edits the worker steps only while the UI thread keeps time (pace.Heartbeat): a
busy UI thread has the lock to itself.

The trainer keeps a checkpoint of where each run began and ended, beside the document as
the run left it: when an Undo or Redo brings the document back to one, the trainer is
rewound to it, so undoing the second of two runs leaves the first run's curves and
optimizer state, and Redo brings the second's back.
"""
import itertools
import sys
import threading
import time

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal

from ...graph.training import Trainer, loss_name, port_value, same_optimizer, store_values
from ...story.update_step import with_update
from ..evaluation import worded
from ..snapshots import same_for_engine, snapshot
from ..worker import run_job
from .pace import BEAT_MS, Heartbeat

PREVIEW_MS = 100
PREVIEW_SHARE = 3         # the next preview waits at least this many times the last one's cost
WINDOW_WAIT_S = 0.25      # the longest the worker waits for the window between two steps
RUN_SWITCH_S = 0.0005     # the interpreter's switch interval while a run goes on
_runs = itertools.count(1)
_running_sessions = set()
_default_switch = sys.getswitchinterval()


def _train(job, trainer, steps, heard, window_free, pace):
    """The worker's part: `steps` updates, stopping when the job is cancelled. Before each
    step it waits while the window draws an edit (`window_free` is clear) and while the UI
    thread is busy (`pace`): the worker and the window share one interpreter lock, and the
    window goes first."""
    def should_stop():
        window_free.wait(WINDOW_WAIT_S)
        pace.wait()
        return job.is_cancelled
    return trainer.run(steps, should_stop=should_stop, on_step=heard)


class TrainingSession(QObject):
    stepped = Signal()            # new records in `trainer.history` (throttled)
    started = Signal()
    stopped = Signal(str)         # why ('' when the run did all its steps)
    reset = Signal()              # the trainer was dropped: curves start afresh
    rewound = Signal()            # the trainer went back (or forward) to a checkpoint

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.trainer = None
        self.job = None
        self._latest = None       # (step index, arrays of the parameters) written by the worker
        self._shown = 0           # the step last put into the document
        self._pushed = None       # the snapshot our last edit left
        self._run_key = None
        self._run_first = 1       # the index of this run's first step (runs share a trainer)
        self._failure = ""
        self._pushing = False
        self._checkpoints = []    # [(document snapshot, training.Checkpoint)] of the trainer
        # Set while the worker may step; cleared from an edit until the canvas has painted it.
        self.window_free = threading.Event()
        self.window_free.set()
        self._holding = False     # an edit waits for its paint (hold_worker)
        self.pace = Heartbeat()
        self._beats = QTimer(self)
        self._beats.setTimerType(Qt.TimerType.PreciseTimer)
        self._beats.setInterval(BEAT_MS)
        self._beats.timeout.connect(self.pace.beat)
        # after_paint(callback): call it once the canvas has painted (the window gives the
        # canvas' after_repaint); without one, when the event loop next turns
        self.after_paint = lambda callback: QTimer.singleShot(0, self, callback)
        self._parked = None       # (trainer, checkpoints) dropped by an edit, for its undo
        self._timer = QTimer(self)          # started again once a preview is done, so the
        self._timer.setSingleShot(True)     # window has PREVIEW_MS for input between two
        self._timer.setInterval(PREVIEW_MS)
        self._timer.timeout.connect(self._preview)
        controller.changed.connect(self._document_changed)
        controller.selectionChanged.connect(self.hold_worker)

    @property
    def running(self):
        return self.job is not None

    def start(self, optimizer, parameters, steps):
        """Run `steps` updates: the trainer's, when its optimizer has `optimizer`'s kind and
        hyper-parameters and it trains `parameters`; else a new trainer with `optimizer`
        (which has taken no step: after Reset, or an edit that dropped the trainer, a run is
        a fresh optimizer's), and new curves. Raises DocumentError when the document cannot
        be trained."""
        if self.running:
            return
        if self.trainer is None or not same_optimizer(self.trainer.optimizer, optimizer) \
                or self.trainer.parameters != list(parameters):
            self.trainer = Trainer(snapshot(self.controller.doc), optimizer, parameters)
            self._parked = None
            self._shown = 0
            self.reset.emit()
            self._pushed = snapshot(self.controller.doc)
            self._checkpoints = [(self._pushed, self.trainer.checkpoint())]
        self._run_key = ("training", next(_runs))
        self._run_first = len(self.trainer.history) + 1
        self._latest = None
        self._failure = ""
        trainer = self.trainer

        def heard(record):  # on the worker thread: one assignment, read by _preview
            self._latest = (record.index, tuple(v._value for v in trainer.variables))
        self.pace.beat()
        self._beats.start()
        self.job = run_job(_train, trainer, steps, heard, self.window_free, self.pace)
        self.job.failed.connect(self._failed)
        self.job.done.connect(self._finished)
        self._timer.start(PREVIEW_MS)
        _run_switching(self, True)
        self.started.emit()

    def pause(self):
        if self.job is not None:
            self.job.cancel()
            self.window_free.set()
            self.pace.beat()      # a resting worker hears it now

    def hold_worker(self):
        """The window is about to draw something the user waits for (an edit, a preview):
        the worker takes no new step until the canvas has painted it."""
        if self.running and not self._holding:
            self._holding = True
            self.window_free.clear()
            self.after_paint(self._painted)

    def _painted(self):
        self._holding = False
        self.window_free.set()

    def wait(self, timeout=None):
        """Block until the run's worker has ended (tests)."""
        return self.job is None or self.job.wait(timeout)

    def restore(self):
        """Put the Variables back to where this trainer began (one undoable edit), forget
        the optimizer's state and the curves. The trainer is parked: Undo of Reset brings
        back the run where it ended, its curves and optimizer state (only the first two
        came back before: the Variables and one loss point at step 0)."""
        self.pause()
        trainer = self.trainer
        self.forget()   # first: the dock hears of the reset, then of the values
        if trainer is not None and not self.running:
            start = {p: port_value(trainer.original, p) for p in trainer.parameters}
            self._push(start, "Reset training", key=None)

    def forget(self, park=True):
        """Drop the trainer; `park`: keep it for an Undo that brings the document back to one
        of its checkpoints (an edit's, Reset's; not another document's)."""
        if self.running:
            self.pause()
        if self.trainer is not None:
            self._parked = (self.trainer, self._checkpoints) if park and not self.running else None
        self.trainer, self._checkpoints = None, []
        self.controller.story_ending = None
        self._shown = 0
        self.reset.emit()

    def show_step(self, values, update, names):
        """Put the values before step `update.index` of the run into the document (one
        undoable edit; the trainer goes on from its own last step when run again); the
        document's story then ends with that step's update (`names`: the parameters' as the
        user knows them), wherever it is the backward pass that gave the update's gradient."""
        if self.running or self.trainer is None:
            return
        trainer = self.trainer
        loss = loss_name(trainer.doc, trainer.evaluation.values)
        self.controller.story_ending = lambda story: with_update(
            story, update, trainer.optimizer, trainer.parameters, names, loss)
        self._push(values, f"Step {update.index} of the run, values before the update", key=None)

    # -- UI thread ----------------------------------------------------------------------
    @property
    def window_busy(self):
        """True from an edit until the canvas has painted it (`hold_worker`): what can wait
        (the next preview, the plots) waits, so the edit's paint comes first."""
        return self.running and self._holding

    def _preview(self):
        """The latest step into the document (at most every PREVIEW_MS while running)."""
        if self.window_busy:
            self._timer.start(PREVIEW_MS // 4)
            return
        latest = self._latest
        start = time.perf_counter()
        if self.trainer is not None and latest is not None and latest[0] != self._shown:
            index, arrays = latest
            values = {p: np.array(a) for p, a in zip(self.trainer.parameters, arrays)}
            name = self.trainer.optimizer.name
            steps = index - self._run_first + 1
            self._push(values, f"Training run ({steps} {name} step{'s' * (steps != 1)})",
                       key=self._run_key)
            self._shown = index
        self.stepped.emit()
        if self.running:       # the worker gets most of the time, however slow the window is
            cost_ms = (time.perf_counter() - start) * 1000
            self._timer.start(max(PREVIEW_MS, round(PREVIEW_SHARE * cost_ms)))

    def _push(self, values, text, key):
        self._pushing = True
        try:
            self.controller.edit(text, lambda doc: store_values(doc, values), merge_key=key)
        finally:
            self._pushing = False
        self._pushed = snapshot(self.controller.doc)

    def _finished(self):
        job, self.job = self.job, None
        self._painted()
        _run_switching(self, False)
        self._beats.stop()
        self._timer.stop()
        self._preview()
        if self.trainer is not None:
            self._checkpoints.append((self._pushed, self.trainer.checkpoint()))
        self.controller.end_move()  # the next run is its own undo entry
        self.stopped.emit(self._failure or ("paused" if job.is_cancelled else ""))

    def _failed(self, e):
        self._failure = "the run stopped: " + worded(e, self.controller.doc)

    def _document_changed(self):
        self.hold_worker()
        if self._pushing:
            return
        doc = self.controller.doc
        if self.trainer is not None and self._pushed is not None \
                and same_for_engine(self._pushed, doc):
            return  # a move or a label: the run goes on
        if self.controller.replaying and not self.running and self._rewind(doc):
            return
        if self.trainer is not None:
            self.forget()

    def _rewind(self, doc):
        """When an Undo or Redo brings `doc` back to where a run of this trainer (or of the
        one an edit dropped) began or ended, the trainer goes back there too; returns
        whether it did. (Only they can: the comparison is by the tensors' identity.)"""
        trainer, checkpoints = (self.trainer, self._checkpoints) if self.trainer is not None \
            else (self._parked or (None, []))
        for left, checkpoint in reversed(checkpoints):
            if same_for_engine(left, doc):
                trainer.rewind(checkpoint)
                self.trainer, self._checkpoints, self._parked = trainer, checkpoints, None
                self._pushed, self._shown = left, checkpoint.steps
                self.controller.story_ending = None      # an opened step's ending is gone
                self.rewound.emit()
                return True
        return False


def _run_switching(session, running):
    """While any run goes on, the worker hands the interpreter lock back to the UI thread
    within RUN_SWITCH_S instead of the default 5 ms: the UI thread takes the lock again after
    each call into Qt, so a repaint waited 5 ms many times over (a card moved during a run
    repainted in a median 490 ms against 270 ms at 0.5 ms, alternated in one run at load 10)."""
    if running:
        _running_sessions.add(session)
    else:
        _running_sessions.discard(session)
    sys.setswitchinterval(RUN_SWITCH_S if _running_sessions else _default_switch)
