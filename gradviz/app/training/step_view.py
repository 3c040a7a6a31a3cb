"""The Step tab: any step of the run written out with its numbers.

Step k's update is the optimizer's rule applied to the gradient the backward pass gave at
the values before step k (story/update_text writes the equations, true with the numbers
shown). The run keeps only its last step's numbers; an earlier step is computed again
from the run's start (Trainer.replay), so the numbers are the run's own.
"""
import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPushButton, QScrollArea, QSpinBox,
                               QVBoxLayout, QWidget)

from ...graph.training import loss_name
from ...story.formatting import number
from ...story.update_text import update_lines
from ..worker import wait_painted


class StepView(QWidget):
    # ({Port: value before the step}, its graph.training.Update): show that step's backward
    # pass and its update in the player
    openStep = Signal(object, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.trainer = None
        self.names = []
        self._chosen = None          # the step asked for; None: the run's last step
        self.step_box = QSpinBox()
        self.step_box.setRange(1, 1)
        self.step_box.setPrefix("step ")
        self.step_box.setToolTip("Which step of the run to write out (the last one unless "
                                 "you choose another)")
        self.last_button = QPushButton("Last step")
        self.last_button.setToolTip("Follow the run's last step again")
        self.open_button = QPushButton("Open in the player")
        self.open_button.setToolTip("Put this step's values (before its update) into the "
                                    "document and play the backward pass that gave its "
                                    "gradient (undoable)")
        row = QHBoxLayout()
        row.addWidget(QLabel("Show"))
        row.addWidget(self.step_box)
        row.addWidget(self.last_button)
        row.addWidget(self.open_button)
        row.addStretch(1)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        scroll = QScrollArea()
        scroll.setWidget(self.text)
        scroll.setWidgetResizable(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(scroll, 1)
        self.step_box.valueChanged.connect(self._step_chosen)
        self.last_button.clicked.connect(lambda: self.show_step(None))
        self.open_button.clicked.connect(self.open_step)
        self.show_run(None, [])

    def show_run(self, trainer, names):
        """Follow `trainer`'s run (None: no run yet); `names` are its parameters' names."""
        if trainer is not self.trainer:
            self._chosen = None
        self.trainer, self.names = trainer, names
        self.show_step(self._chosen)

    def show_step(self, step):
        """Write out step `step` of the run (None: its last step)."""
        trainer = self.trainer
        steps = len(trainer.history) if trainer is not None else 0
        self.step_box.blockSignals(True)
        self.step_box.setRange(1, max(1, steps))
        self.step_box.setEnabled(steps > 1)
        self.open_button.setEnabled(steps > 0)
        if not steps:
            self._chosen = None
            self.step_box.blockSignals(False)
            self.text.setText("Take a step: its update is written out here with its numbers.")
            return
        self._chosen = step if step is not None and step < steps else None
        k = self._chosen or steps
        self.step_box.setValue(k)
        self.step_box.blockSignals(False)
        self.last_button.setEnabled(self._chosen is not None)
        if trainer.last_update is not None and trainer.last_update.index == k:
            update = trainer.last_update
        else:
            update = wait_painted(lambda: trainer.replay(k)[1], self,
                                  f"Computing step {k} of the run again…")
        self.text.setText(step_html(trainer, update, self.names, steps))

    def _step_chosen(self, k):
        self.show_step(k)

    def open_step(self):
        """The values before the step on screen, for the player (openStep)."""
        k = self.step_box.value()
        before, update = wait_painted(lambda: self.trainer.replay(k), self,
                                      f"Computing step {k} of the run again…")
        self.openStep.emit(before, update)


def step_html(trainer, update, names, steps):
    """Step `update.index` of `steps`, its update equations with the numbers."""
    k = update.index
    loss = trainer.history[k - 1].loss if k <= len(trainer.history) else None
    head = (f"<p><b>Step {k} of the run</b> ({trainer.optimizer.name}), values before the "
            f"update{f' (loss {number(loss)})' if loss is not None else ''}: g is the gradient "
            f"the backward pass gave at these values, and each line below is the update that "
            f"took them to step {k}'s result.")
    head += (f" The run has {steps} step{'s' * (steps != 1)}; Open in the player puts these "
             "values into the document and plays the backward pass that gave this g.</p>")
    parts = [head]
    loss = loss_name(trainer.doc, trainer.evaluation.values)
    for title, lines in update_lines(update, trainer.optimizer, names, loss):
        parts.append(f"<p><b>{html.escape(title)}</b><br>"
                     + "<br>".join(html.escape(line) for line in lines) + "</p>")
    return "".join(parts)
