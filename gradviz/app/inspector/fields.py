"""The inspector's building blocks: attribute text <-> values (no eval), the line field that
commits on Enter with its error in words, and the small widgets every page uses."""
import json

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFormLayout, QGroupBox, QLabel, QLineEdit, QPlainTextEdit,
                               QVBoxLayout, QWidget)

from ...graph.document import text_problem
from ...graph.structure import n_outputs
from ..theme import ERROR_STYLE, WARN_STYLE
from ..whole_label import WholeLabel

MUTED = "color: palette(placeholder-text);"

# -- attribute text <-> values (no eval) ------------------------------------------------------
def _int(text):
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        raise ValueError(f"'{t[:20]}' is not a whole number") from None


def display_text(what):
    """A LineField parser for display text `what` ('title', 'label'): the typed text,
    stripped, or a ValueError saying which limit it breaks (the file format's limits:
    text the document could save but not open again is refused where it is typed)."""
    def parse(text):
        text = text.strip()
        problem = text_problem(what, text)
        if problem:
            raise ValueError(problem[0].upper() + problem[1:])
        return text
    return parse


def int_list(text):
    t = text.strip().strip("[]()").strip()
    if not t:
        return []
    return [_int(p) for p in t.replace(";", ",").split(",") if p.strip()] if "," in t or ";" in t \
        else [_int(p) for p in t.split()]


def attr_text(kind, value):
    """How an attribute reads in its line edit."""
    if value is None:
        return ""
    if kind in ("axis", "ints"):
        return ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
    if kind == "index":
        parts = []
        for k in value:
            if isinstance(k, list):
                s = ["" if x is None else str(x) for x in k]
                parts.append(":".join(s[:2]) + (f":{s[2]}" if s[2] else ""))
            else:
                parts.append(str(k))
        return ", ".join(parts)
    if kind == "paddings":
        return "; ".join(f"{a}, {b}" for a, b in value)
    if kind == "float":
        return repr(float(value))
    return str(value)


def parse_attr(kind, text):
    """The value of a line-edited attribute; ValueError with a message in words."""
    t = text.strip()
    if kind == "float":
        try:
            v = float(t)
        except ValueError:
            raise ValueError(f"'{t[:20]}' is not a number") from None
        if not np.isfinite(v):
            raise ValueError("must be a finite number")
        return v
    if kind == "int":
        return _int(t)
    if kind == "axis":
        if t.lower() in ("", "none", "null"):
            return None
        if any(c in t for c in ",[( "):
            return int_list(t)
        return _int(t)
    if kind == "ints":
        return int_list(t)
    if kind == "index":
        out = []
        for part in (p.strip() for p in t.strip("[]").split(",")):
            if not part:
                raise ValueError("an index entry is empty")
            if part == "...":
                out.append("...")
            elif ":" in part:
                bits = part.split(":")
                if len(bits) > 3:
                    raise ValueError(f"'{part}' has too many ':' (start:stop:step)")
                bits = [None if not b.strip() else _int(b) for b in bits]
                out.append(bits + [None] * (3 - len(bits)))
            else:
                out.append(_int(part))
        return out
    if kind == "paddings":
        if t.startswith("["):
            try:
                v = json.loads(t)
            except json.JSONDecodeError:
                raise ValueError("write pairs such as '1, 1; 0, 2' or [[1, 1], [0, 2]]") from None
            return v
        rows = [r for r in t.split(";") if r.strip()]
        out = []
        for r in rows:
            pair = int_list(r)
            if len(pair) != 2:
                raise ValueError(f"'{r.strip()}' is not a pair 'before, after'")
            out.append(pair)
        return out
    return text


PLACEHOLDERS = {"axis": "None (all axes)", "ints": "e.g. 2, 3", "index": "e.g. 0, 1:3, ...",
                "paddings": "before, after; …  e.g. 1, 1; 0, 2"}


# -- small widgets ----------------------------------------------------------------------------
class LineField(QWidget):
    """A line edit that commits on Enter / focus out, with an inline error in words."""

    def __init__(self, parse, commit, placeholder="", parent=None):
        super().__init__(parent)
        self._parse, self._commit = parse, commit
        self.edit = QLineEdit(self)
        self.edit.setPlaceholderText(placeholder)
        self.error = WholeLabel(self)   # all its lines: a 3-line refusal lost its first and last
        self.error.setStyleSheet(ERROR_STYLE)
        self.error.setWordWrap(True)
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(self.edit)
        layout.addWidget(self.error)
        self._shown = ""
        self.edit.editingFinished.connect(self.commit)

    def show_text(self, text):
        """Show the document's value unless the user is typing something else."""
        if self.edit.isModified():
            return
        self._shown = text
        if self.edit.text() != text:
            self.edit.setText(text)
            self.edit.setCursorPosition(0)
        self.edit.setModified(False)

    def commit(self):
        text = self.edit.text()
        if text == self._shown and not self.error.isVisible():
            return
        try:
            value = self._parse(text)
        except ValueError as e:
            self.set_error(str(e))
            return
        self.edit.setModified(False)  # so the refresh after the edit shows the document's text
        problem = self._commit(value)
        self.set_error(problem or "")
        if problem:
            self.edit.setModified(True)

    def reset(self, text):
        """Drop what was typed and show `text`."""
        self.edit.setModified(False)
        self.show_text(text)

    def set_error(self, text):
        self.error.setText(text)
        self.error.setVisible(bool(text))
        self.edit.setStyleSheet("QLineEdit { border: 1px solid #c62828; }" if text else "")


class LessonEdit(QPlainTextEdit):
    """Multi-line text that commits when it loses focus."""

    committed = Signal(str)

    def focusOutEvent(self, event):
        super().focusOutEvent(event)
        self.committed.emit(self.toPlainText())


def blocked(widget, fn, *args):
    """Call `fn` without the widget's signals: showing the document must not edit it."""
    old = widget.blockSignals(True)
    try:
        fn(*args)
    finally:
        widget.blockSignals(old)


def bold_label(text):
    label = QLabel(text)
    f = label.font()
    f.setBold(True)
    label.setFont(f)
    return label


def group(title):
    """A titled box with a form layout (label: field rows)."""
    box = QGroupBox(title)
    form = QFormLayout(box)
    form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
    form.setLabelAlignment(Qt.AlignRight | Qt.AlignVCenter)
    form.setContentsMargins(8, 6, 8, 8)
    form.setVerticalSpacing(5)
    return box, form


def column_group(title):
    """A titled box whose widgets stack vertically."""
    box = QGroupBox(title)
    column = QVBoxLayout(box)
    column.setContentsMargins(8, 6, 8, 8)
    return box, column


def muted_label(text=""):
    label = QLabel(text)
    label.setStyleSheet(MUTED)
    label.setWordWrap(True)
    return label


def problems_label():
    """Where a page lists what stops the document from running, selectable to copy."""
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(ERROR_STYLE)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    return label


def show_problems(label, problems, with_place=False):
    """List `problems` (graph.Problem) on a problems_label: red when any stops something,
    amber when all are warnings (a NaN or inf: the graph still ran)."""
    label.setText("\n".join(f"⚠ {p if with_place else p.message}" for p in problems))
    label.setStyleSheet(ERROR_STYLE if any(not p.warning for p in problems) else WARN_STYLE)
    label.setVisible(bool(problems))


def output_count(node):
    """How many outputs a node has; 1 for one the catalog cannot describe yet."""
    try:
        return n_outputs(node)
    except (KeyError, ValueError, TypeError):
        return 1


class Page(QWidget):
    """A vertical stack of groups; `key` tells the inspector when it must be rebuilt."""

    def __init__(self, inspector, key):
        super().__init__()
        self.inspector = inspector
        self.controller = inspector.controller
        self.key = key
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(8, 8, 8, 8)
        self.layout_.setSpacing(8)

    def finish(self):
        self.layout_.addStretch(1)
