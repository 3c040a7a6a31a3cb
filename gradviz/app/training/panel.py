"""The Train dock: choose an optimizer, its hyper-parameters and the Variables to train,
then Step, Run N, Pause or Reset; the curves and the graph's cards follow the run."""

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QListWidgetItem, QPushButton, QScrollArea,
                               QSpinBox, QTabWidget, QVBoxLayout, QWidget)

from ...graph.errors import DocumentError
from ...graph.fileformat import MAX_TRAINING_STEPS
from ...graph.training import (default_origin, hyper_parameters, loss_of, loss_text,
                               make_optimizer, trainable_parameters, update_rule,
                               variable_ports)
from ...story.numbers import printed_value, significant
from ..studies.choosers import port_label
from .curves import TrainingCurves
from .export import export_plots_dialog, export_run_dialog
from .landscape_view import LandscapeView
from .session import TrainingSession
from .status_line import StatusLine
from .step_view import StepView

OPTIMIZER_TITLES = {"sgd": "SGD (momentum, Nesterov)", "rmsprop": "RMSprop", "adam": "Adam",
                    "newton": "Newton (damped, small problems)"}
HYPER_TITLES = {"learning_rate": "learning rate η", "momentum": "momentum μ",
                "nesterov": "Nesterov", "rho": "ρ", "centered": "centered", "beta_1": "β₁",
                "beta_2": "β₂", "epsilon": "ε", "amsgrad": "AMSGrad", "damping": "damping λ"}
CONTROLS_WIDTH = 320
PLOTS_MS = 400


def typed_number(text):
    """The number a field holds, as the user types it (0.01, 1e-5) or as the dock writes it
    (1×10⁻⁵, −0.5: story.numbers.significant); None where it is not one."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return printed_value(text.replace("−", "-"))


class TrainPanel(QWidget):
    storyWanted = Signal()     # the player should play the backward pass from its first step

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.session = TrainingSession(controller, self)
        self._ports = []
        self._typed = {}              # {optimizer: its fields as typed} when another is chosen
        self._shown_name = None       # the optimizer whose fields are shown

        controls = QWidget()
        column = QVBoxLayout(controls)
        column.setContentsMargins(0, 0, 6, 0)
        self.optimizer_box = QComboBox()
        for name, title in OPTIMIZER_TITLES.items():
            self.optimizer_box.addItem(title, name)
        self.optimizer_box.setToolTip(
            "The update rule; each matches tf.keras.optimizers. Its fields start at Keras' "
            "defaults, at the document's training preset (a lesson's) for the preset's "
            "optimizer, and keep what you typed when you come back to it")
        column.addWidget(self.optimizer_box)
        self.form = QFormLayout()
        column.addLayout(self.form)
        self.rule = QLabel()
        self.rule.setWordWrap(True)
        self.rule.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.rule)
        column.addWidget(QLabel("Parameters (Variables) to train:"))
        self.parameter_list = QListWidget()
        self.parameter_list.setMaximumHeight(110)
        column.addWidget(self.parameter_list)
        self.loss_label = QLabel()
        self.loss_label.setWordWrap(True)
        column.addWidget(self.loss_label)

        column.addStretch(1)

        self.steps_box = QSpinBox()
        self.steps_box.setRange(1, MAX_TRAINING_STEPS)
        self.steps_box.setValue(100)
        self.steps_box.setToolTip("How many updates Run takes")
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip("One update")
        self.run_button = QPushButton("Run")
        self.pause_button = QPushButton("Pause")
        self.pause_button.setToolTip("Stop after the current step (the values so far stay)")
        self.reset_button = QPushButton("Reset")
        self.reset_button.setToolTip("Put the Variables back to where training began and "
                                     "forget the optimizer's state (undoable)")
        self.log_box = QCheckBox("log scale")
        self.log_box.setToolTip("Draw the curves on a logarithmic y axis")
        self.export_plots_button = QPushButton("Export plots…")
        self.export_plots_button.setToolTip("The curves or the landscape on screen as PNG, SVG "
                                            "or PDF")
        self.export_run_button = QPushButton("Export run…")
        self.export_run_button.setToolTip("The run replayed as an animated GIF or PNG: the "
                                          "graph's values and the plots step by step")
        # The status sits beside the run's buttons (whole, wrapped: StatusLine) and the plot
        # buttons beside the tabs: in a short dock (a 1280 x 800 window) the plots keep the
        # height two rows would take.
        bar = QHBoxLayout()
        for widget in (self.step_button, self.run_button, self.steps_box, self.pause_button,
                       self.reset_button):
            bar.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)
        self.status = StatusLine()
        bar.addWidget(self.status, 1)
        bar.addStretch(0)             # the buttons keep their width while the status is hidden
        corner = QWidget()
        corner_row = QHBoxLayout(corner)
        corner_row.setContentsMargins(0, 0, 0, 2)
        for widget in (self.log_box, self.export_plots_button, self.export_run_button):
            corner_row.addWidget(widget)
        self.curves = TrainingCurves()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)   # no frame around the plots: its pixels go to them
        self.tabs.setCornerWidget(corner)
        self.tabs.addTab(self.curves, "Curves")
        self.landscape = LandscapeView(self)
        self.tabs.addTab(self.landscape, "Landscape")
        self.step_view = StepView()
        self.step_view.openStep.connect(self._open_step)
        self.last_step = self.step_view.text
        self.tabs.addTab(self.step_view, "Step")
        scroll = QScrollArea()    # a short dock scrolls the controls rather than squash them
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setFixedWidth(CONTROLS_WIDTH)
        right = QVBoxLayout()
        right.addLayout(bar)
        right.addWidget(self.tabs, 1)
        layout = QHBoxLayout(self)
        layout.addWidget(scroll)
        layout.addLayout(right, 1)

        self.optimizer_box.currentIndexChanged.connect(self._optimizer_changed)
        self.parameter_list.itemChanged.connect(self._settings_changed)
        self.step_button.clicked.connect(lambda: self.run(1))
        self.run_button.clicked.connect(lambda: self.run(self.steps_box.value()))
        self.pause_button.clicked.connect(self.session.pause)
        self.reset_button.clicked.connect(self.session.restore)
        self.log_box.toggled.connect(self._log_toggled)
        self.export_plots_button.clicked.connect(lambda: export_plots_dialog(self))
        self.export_run_button.clicked.connect(lambda: export_run_dialog(self))
        self.steps_box.valueChanged.connect(lambda n: self.run_button.setText(f"Run {n}"))
        # The plots follow a run a few times a second: pyqtgraph's repaint of four plots
        # costs as much as the canvas' repaint of the cards.
        self._plots_timer = QTimer(self)
        self._plots_timer.setSingleShot(True)
        self._plots_timer.setInterval(PLOTS_MS)
        self._plots_timer.timeout.connect(self._follow_run)
        self.session.stepped.connect(
            lambda: self._plots_timer.isActive() or self._plots_timer.start(PLOTS_MS))
        self.session.started.connect(self._update_buttons)
        self.session.stopped.connect(self._stopped)
        self.session.reset.connect(self._reset_curves)
        self.session.rewound.connect(self._rewound)
        controller.evaluated.connect(self._document_evaluated)
        controller.evaluated.connect(lambda *_: self.landscape.follow_document())
        controller.documentReplaced.connect(self._document_replaced)
        self._step_note = False      # the status says the document holds an opened step
        self._dropped = False        # the trainer went: say why once the document is evaluated
        controller.changed.connect(self._forget_step_note)
        self.run_button.setText(f"Run {self.steps_box.value()}")
        self._optimizer_changed()
        self._document_evaluated()
        self.take_preset()
        self._show_last_step()

    # -- settings -----------------------------------------------------------------------
    @property
    def optimizer_name(self):
        return self.optimizer_box.currentData()

    def _optimizer_changed(self):
        """The chosen optimizer's fields: Keras' defaults, the document's training preset's
        values for the preset's optimizer, and what the user typed into this optimizer's
        fields before choosing another (kept until another preset is taken)."""
        if self._shown_name is not None:
            self._typed[self._shown_name] = {
                key: field.isChecked() if isinstance(field, QCheckBox) else field.text()
                for key, field in self.fields.items()}
        self._shown_name = name = self.optimizer_name
        preset = dict(self.controller.doc.training)
        preset = preset if preset.pop("optimizer", None) == name else {}
        typed = self._typed.get(name, {})
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        for key, default in hyper_parameters(name).items():
            value = typed.get(key, preset.get(key, default))
            tip = f"{default_origin(name)}: {significant(default)}"
            if key in preset:
                tip = f"The document's training preset (a lesson's): {significant(preset[key])}; {tip}"
            if isinstance(default, bool):
                field = QCheckBox()
                field.setChecked(bool(value))
                field.toggled.connect(self._settings_changed)
            else:
                field = QLineEdit(value if isinstance(value, str) else significant(value))
                field.textChanged.connect(self._settings_changed)
            field.setToolTip(tip)
            self.fields[key] = field
            self.form.addRow(HYPER_TITLES.get(key, key), field)
        self._settings_changed()

    def _document_replaced(self):
        """Another document (File ▸ Open, New, a lesson): the run, its status, curves and
        landscape were the other one's and no Undo comes back to them; its Variables are
        chosen as it marks them (the list is made afresh, even when neither document has a
        Variable), and its training preset is taken."""
        self._ports = None
        self._document_evaluated()
        self.session.forget(park=False)
        self._dropped = False
        self._step_note = False
        self._say("info", "")
        self.landscape.clear()
        self.take_preset()

    def take_preset(self):
        """The document's training preset (a lesson's optimizer, hyper-parameters and
        steps), over what was typed for the document before; without one the fields keep
        what they hold."""
        preset = dict(self.controller.doc.training)
        name = preset.pop("optimizer", None)
        if name is None:
            return
        self._typed, self._shown_name = {}, None
        self.optimizer_box.blockSignals(True)
        self.optimizer_box.setCurrentIndex(self.optimizer_box.findData(name))
        self.optimizer_box.blockSignals(False)
        self._optimizer_changed()
        self.steps_box.setValue(preset.get("steps", self.steps_box.value()))

    def hyper(self):
        """{hyper-parameter: value} from the fields (ValueError naming a bad one)."""
        out = {}
        for key, field in self.fields.items():
            if isinstance(field, QCheckBox):
                out[key] = field.isChecked()
                continue
            out[key] = typed_number(field.text())
            if out[key] is None:
                raise ValueError(f"{HYPER_TITLES.get(key, key)}: '{field.text()}' is not a "
                                 "number")
        return out

    def _settings_changed(self, *_):
        """Another optimizer or parameter set: the next run starts a new trainer."""
        self.landscape.update_coordinates()
        try:
            optimizer = make_optimizer(self.optimizer_name, **self.hyper())
        except ValueError as error:
            self.rule.setText("")
            self._say("error", _words(error))
        else:
            self.rule.setText(update_rule(optimizer, significant))
            if self.status.property("kind") == "error":
                self._say("info", "")
        self._update_buttons()

    def chosen_parameters(self):
        return [port for i, port in enumerate(self._ports or ())
                if self.parameter_list.item(i).checkState() == Qt.CheckState.Checked]

    def _document_evaluated(self, *_):
        doc = self.controller.doc
        evaluation = getattr(self.controller.result, "evaluation", None)
        self.loss_label.setText(loss_text(doc, evaluation.values if evaluation else None))
        replayed = self.controller.replaying and self.session.trainer is None \
            and self.status.text()             # a Redo after an Undo: what it said is stale
        if (self._dropped or replayed) and not self.session.running:
            self._dropped = False
            self._say_dropped(evaluation)
        ports = variable_ports(doc)
        if ports == self._ports:
            return
        chosen = set(self.chosen_parameters()) if self._ports else set(trainable_parameters(doc))
        self.parameter_list.blockSignals(True)
        self.parameter_list.clear()
        for port in ports:
            item = QListWidgetItem(port_label(doc, port))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if port in chosen else Qt.CheckState.Unchecked)
            self.parameter_list.addItem(item)
        self.parameter_list.blockSignals(False)
        self._ports = ports
        self._settings_changed()

    # -- running ------------------------------------------------------------------------
    def run(self, steps):
        """Start `steps` updates on the worker (refusals are said in the status line). The
        optimizer is made afresh from the fields: the session goes on with its trainer's own
        (and its state) only while the fields still say the same."""
        try:
            optimizer = make_optimizer(self.optimizer_name, **self.hyper())
            self.session.start(optimizer, self.chosen_parameters(), steps)
        except (ValueError, DocumentError) as error:
            self._say("error", _words(error))
            return False
        self._say("info", f"running {steps} step{'s' * (steps != 1)} …")
        return True

    def _follow_run(self):
        if self.session.window_busy:       # the canvas paints an edit first
            self._plots_timer.start(PLOTS_MS // 4)
            return
        self._show_history()
        self.landscape.refresh_overlay()
        self._show_last_step()

    def _show_last_step(self):
        """The Step tab follows the run (story/update_text writes the update out)."""
        trainer = self.session.trainer
        names = [port_label(self.controller.doc, p) for p in trainer.parameters] \
            if trainer is not None else []
        self.step_view.show_run(trainer, names)

    def _open_step(self, values, update):
        if self.session.running:
            self._say("info", "Pause the run first: the document follows it.")
            return
        names = [port_label(self.controller.doc, p) for p in self.session.trainer.parameters]
        self.session.show_step(values, update, names)
        self._step_note = True
        self._say("info", f"The document holds the values before step {update.index} of the "
                          "run: the Backprop player shows the backward pass that gave that "
                          "step's gradient, then the update. Undo goes back to the run's last "
                          "values.")
        self.storyWanted.emit()

    def _forget_step_note(self):
        if self._step_note:          # (the open's own edit comes before the note is set)
            self._step_note = False
            self._say("info", "")

    def _stopped(self, why):
        """The run has ended: the buttons follow the session first, so that nothing drawn
        after (plots, the Step tab) can leave the dock looking busy."""
        self._update_buttons()
        self._plots_timer.stop()
        trainer = self.session.trainer
        if why.startswith("the run stopped"):
            self._say("error", why)
        elif trainer is not None:
            losses = trainer.losses
            self._say("info", f"{why + ': ' if why else ''}step {len(losses) - 1}, loss "
                              f"{significant(losses[-1])} (began at {significant(losses[0])}). "
                              "Undo puts the Variables back.")
        self._follow_run()

    def _show_history(self):
        trainer = self.session.trainer
        if trainer is None:
            return
        history = trainer.history
        self.curves.follow(history, None if history else trainer.loss)
        last = history[-1] if history else None
        if self.session.running and last is not None:
            self._say("info", f"step {last.index}, loss {significant(last.loss_after)} …")

    def _reset_curves(self):
        trainer = self.session.trainer
        params = trainer.parameters if trainer is not None else self.chosen_parameters()
        self.curves.clear(self.controller.doc, params)
        self._show_last_step()
        if trainer is not None:
            self.curves.show_history([trainer.loss], [])
        else:
            self._dropped = True
        self._update_buttons()

    def _rewound(self):
        """An Undo or Redo took the document back to where a run began or ended: the
        curves are the run's up to there, and the next run goes on from it."""
        trainer = self.session.trainer
        self.curves.clear(self.controller.doc, trainer.parameters)
        self._follow_run()
        steps, loss = len(trainer.history), trainer.loss
        if steps:
            now = (f"back at step {steps}, loss {significant(loss)} (began at "
                   f"{significant(trainer.losses[0])}); a run goes on from here")
        else:
            now = (f"loss {significant(loss)} at the Variables' values now; a run starts from "
                   "them, its curves from step 0")
        self._say("info", f"{self.controller.replaying}: {now}.")
        self._update_buttons()

    def _say_dropped(self, evaluation):
        """The trainer went with an Undo, a Redo, Reset or an edit: the status and the
        curves say where the Variables are now, not where the run was."""
        what = self.controller.replaying or self.controller.undo_stack.undoText()
        try:
            loss = loss_of(self.controller.doc, evaluation.values)
        except (AttributeError, KeyError, TypeError, ValueError):
            loss = None
        if loss is not None:
            self.curves.show_history([loss], [])
        if what:
            now = (f"loss {significant(loss)}" if loss is not None
                   else "the loss cannot be evaluated")
            self._say("info", f"{what}: {now} at the Variables' values now; a run starts "
                              "from them, its curves from step 0.")

    def _log_toggled(self, on):
        self.curves.set_log(on)
        self._show_history()

    def _update_buttons(self, *_):
        running = self.session.running
        for button in (self.step_button, self.run_button):
            button.setEnabled(not running)
        self.pause_button.setEnabled(running)
        ran = self.session.trainer is not None and bool(self.session.trainer.history)
        self.reset_button.setEnabled(not running and ran)
        self.export_run_button.setEnabled(not running and ran)
        self.optimizer_box.setEnabled(not running)

    def _say(self, kind, text):
        self.status.say(kind, text)


def _words(error):
    return " ".join(str(error).split())
