"""The document as runnable gradviz / TensorFlow-style Python: read-only, copyable.

It follows every edit. The app only shows the code; running it is the user's choice.
A line longer than the view wraps at a space (or, where a word is longer than the line,
anywhere), its continuation indented 4 characters past the line's own indentation: in a
340 px column at 1280 x 800 the script was cut at about 40 characters and each line read
by scrolling sideways. Copy gives the script as written, one line a line.
"""
import keyword
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QSyntaxHighlighter, \
    QTextBlockFormat, QTextCharFormat, QTextCursor, QTextOption
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextEdit, QVBoxLayout, QWidget

from ...graph.codegen import to_python
from .. import theme as app_theme

_COLOURS = {
    "light": {"keyword": "#8250df", "string": "#0a3069", "comment": "#6e7781", "number": "#0550ae",
              "call": "#953800"},
    "dark": {"keyword": "#d2a8ff", "string": "#a5d6ff", "comment": "#8b949e", "number": "#79c0ff",
             "call": "#ffa657"},
}


class PythonHighlighter(QSyntaxHighlighter):
    """Just enough colour to read the script: keywords, strings, numbers, comments."""

    RULES = [
        ("keyword", re.compile(r"\b(" + "|".join(keyword.kwlist) + r")\b")),
        ("call", re.compile(r"\btf(\.[A-Za-z_]\w*)+")),
        ("number", re.compile(r"(?<![\w.])-?\d+(\.\d*)?(e[-+]?\d+)?\b")),
        ("string", re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")),
        ("comment", re.compile(r"#[^\n]*")),
    ]

    def __init__(self, document, theme="light"):
        super().__init__(document)
        self.set_theme(theme)

    def set_theme(self, theme):
        self.formats = {}
        for name, colour in _COLOURS.get(theme, _COLOURS["light"]).items():
            f = QTextCharFormat()
            f.setForeground(QColor(colour))
            if name == "comment":
                f.setFontItalic(True)
            self.formats[name] = f
        self.rehighlight()

    def highlightBlock(self, text):
        for name, pattern in self.RULES:
            for m in pattern.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), self.formats[name])
        # the docstring at the top
        state = self.previousBlockState()
        start = 0
        if state != 1:
            start = text.find('"""')
            if start < 0:
                self.setCurrentBlockState(0)
                return
        end = text.find('"""', start + 3 if state != 1 else 0)
        if end < 0:
            self.setCurrentBlockState(1)
            self.setFormat(start, len(text) - start, self.formats["string"])
        else:
            self.setCurrentBlockState(0)
            self.setFormat(start, end + 3 - start, self.formats["string"])


CONTINUATION = 4      # characters a wrapped line's rest is indented past the line


class CodeView(QWidget):
    """Shows `to_python(controller.doc)`, refreshed after each edit while visible."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        # a QTextEdit, not a QPlainTextEdit: its blocks keep the hanging indent of their wraps
        self.text = QTextEdit(readOnly=True, objectName="codeText", acceptRichText=False)
        self.text.setUndoRedoEnabled(False)
        self.text.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.text.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.text.setFont(font)
        self.text.document().setDefaultFont(font)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                          | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.highlighter = PythonHighlighter(self.text.document(), app_theme.current())
        self.note = QLabel("Runs with gradviz: <nobr><code>import gradviz as tf</code></nobr>")
        self.note.setWordWrap(True)   # in two lines, not 13 px of the canvas' width (at 1280 x 800)
        self.note.setToolTip("The same computation as the graph: values, tape, and the "
                             "gradients it prints")
        copy_button = QPushButton("Copy")
        copy_button.setToolTip("Copy the whole script to the clipboard")
        copy_button.clicked.connect(self.copy)
        row = QHBoxLayout()
        row.addWidget(self.note, 1)
        row.addWidget(copy_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)
        self._stale = True
        controller.changed.connect(self._mark_stale)
        controller.documentReplaced.connect(self._mark_stale)
        self.refresh()

    def _mark_stale(self):
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event):
        if self._stale:
            self.refresh()
        super().showEvent(event)

    def refresh(self):
        try:
            code = to_python(self.controller.doc)
        except Exception as e:  # noqa: BLE001 (an incomplete graph has no script yet)
            code = (f"# The graph cannot be written as a script yet:\n# {type(e).__name__}: {e}\n")
        if code != self.text.toPlainText():
            bar = self.text.verticalScrollBar()
            pos = bar.value()
            self.text.setPlainText(code)
            self._hang_wraps()
            bar.setValue(pos)
        self._stale = False

    def _hang_wraps(self):
        """Each line's wrapped rest indented CONTINUATION characters past the line's own
        indentation (a block's left margin, its first line drawn that much to the left)."""
        space = self.text.fontMetrics().horizontalAdvance(" ")
        block = self.text.document().begin()
        while block.isValid():
            line = block.text()
            hang = (len(line) - len(line.lstrip(" ")) + CONTINUATION) * space
            form = QTextBlockFormat()
            form.setLeftMargin(hang)
            form.setTextIndent(-hang)
            QTextCursor(block).setBlockFormat(form)
            block = block.next()

    def code(self):
        if self._stale:
            self.refresh()
        return self.text.toPlainText()

    def copy(self):
        QGuiApplication.clipboard().setText(self.code())
        self.controller.message.emit("Copied the script to the clipboard")

    def set_theme(self, name):
        self.highlighter.set_theme(name)
