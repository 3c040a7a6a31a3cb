"""The player's timeline and its words: one chip per step (StepStrip), coloured by the
step's kind, and a step's caption as rich text (caption_html, set_caption), which the
presentation and the lesson panel write the same way."""
import html
import re

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (QButtonGroup, QFrame, QHBoxLayout, QScrollArea, QSizePolicy, QToolButton,
                               QWidget)

from ...render.themes import LIGHT
from ..literal import kept_whole, mnemonic_free

# A timeline chip shows its step's name whole up to this many characters (every sender →
# receiver of the lessons outside a 'gradient' node: 'layer1's sigmoid → layer1's bias add';
# at 26 the tiny CNN's chips 5 and 6 both read "dense's bias add → …"), else its first parts
CHIP_CHARS = 36
# Where a step's title may be cut: between its parts, never inside a name ('dense's bias add');
# before 'inside' too, so that a chip drops what its step is inside before its receiver
_PARTS = re.compile(r" → |, inside ")

KIND_WORDS = {"seed": "seed", "visit": "visit", "contribution": "local rule", "fan_in": "fan-in sum",
              "accumulate": "gradient", "cut": "cut", "unconnected": "None gradient",
              "update": "optimizer update"}
KIND_COLOURS = {"seed": LIGHT.target, "visit": LIGHT.value, "contribution": LIGHT.cotangent,
                "fan_in": LIGHT.cotangent, "accumulate": LIGHT.source, "cut": LIGHT.cut,
                "unconnected": LIGHT.cut, "update": LIGHT.value}

# A letter with combining marks (x̂): DejaVu Sans misplaces the mark, DejaVu Sans Mono does not.
_MARKED = re.compile(r"\w[\u0300-\u036f]+")
_MARK_FONT = "<span style=\"font-family:'DejaVu Sans Mono'\">{}</span>"


def caption_html(text):
    """`text` as rich text for a QLabel, with every x̂ (a letter and a combining mark) drawn
    in a font that puts the mark over its letter, and no line broken inside a quotient
    (literal.kept_whole: Qt's rich text keeps no inline span whole, nowrap nor <nobr>)."""
    out, last = [], 0
    for m in _MARKED.finditer(text or ""):
        out.append(html.escape(kept_whole(text[last:m.start()]), quote=False))
        out.append(_MARK_FONT.format(m.group()))
        last = m.end()
    out.append(html.escape(kept_whole((text or "")[last:]), quote=False))
    return "".join(out).replace("\n", "<br>")


def set_caption(label, text):
    """Show plain `text` in `label` (rich text, so x̂ reads right); `label.plain` keeps it."""
    label.plain = text or ""
    label.setText(caption_html(text))


def _cuts(title):
    """Where `title` may end on a chip, shortest first: after each of its whole parts."""
    ends = []
    for m in _PARTS.finditer(title):
        if m.group() == ", inside ":
            ends.append(m.start() + 2)      # "the add → x, …"
        ends.append(m.end())
    return ends


def chip_text(title, n=CHIP_CHARS):
    """A step's title as its chip says it: whole when it has at most `n` characters, else
    its longest run of whole parts within `n`, at least the first, and '…' where it goes on:
    "dense's bias add → …", "the add → x, …" (what the step is inside goes before its
    receiver; the chip's tooltip and the step's name say it all). Cut at `n` characters, a
    chip ended inside a name: "dense's bias add → dense'…"; a title of one part is never cut."""
    if len(title) <= n:
        return title
    ends = _cuts(title)
    if not ends:
        return title
    return title[:next((e for e in reversed(ends) if e + 1 <= n), ends[0])] + "…"


def chip_texts(titles, n=CHIP_CHARS):
    """The chips of one story, each `chip_text` of its title, save that no two steps with
    different titles have chips that read the same: the chips of such steps show their next
    whole part, and so on up to their whole titles (lesson 13's chips 3 and 4 both read
    't1.gradient(y, x) → …', the receivers 'the add' and '∂y/∂x via xx (input b)' cut)."""
    texts = [chip_text(t, n) for t in titles]
    while True:
        titles_of = {}
        for text, title in zip(texts, titles):
            titles_of.setdefault(text, set()).add(title)
        same = [i for i, text in enumerate(texts) if len(titles_of[text]) > 1 and text != titles[i]]
        if not same:
            return texts
        for i in same:
            title, shown = titles[i], len(texts[i]) - 1
            longer = next((e for e in _cuts(title) if e > shown), None)
            texts[i] = title if longer is None else title[:longer] + "…"


class StepStrip(QScrollArea):
    """The timeline: one chip per step with its number and name; click one to go there.

    Chips before the current step are tinted (done), the current one is filled; the
    strip scrolls (wheel or scroll bar) and keeps the current chip in view."""

    stepClicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("playerTimeline")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # arrows belong to the player
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.chips = []
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.group.idClicked.connect(self.stepClicked.emit)
        self._current = -1
        self._body = QWidget()
        self._row = QHBoxLayout(self._body)
        self._row.setContentsMargins(0, 1, 0, 1)
        self._row.setSpacing(3)
        self._row.addStretch(1)
        self.setWidget(self._body)
        self._fit_height()

    def _fit_height(self):
        chip = self.fontMetrics().height() + 10
        bar = self.horizontalScrollBar().sizeHint().height()
        self.setFixedHeight(chip + bar + 4)

    def set_steps(self, names, kinds):
        """Rebuild the chips (a new story); keeps them when the names are unchanged."""
        if [c.property("name") for c in self.chips] == list(names):
            return
        for chip in self.chips:
            self.group.removeButton(chip)
            self._row.removeWidget(chip)    # out of the row now, not when deleted later
            chip.hide()
            chip.deleteLater()
        self.chips = []
        texts = chip_texts(names)
        for i, (name, kind) in enumerate(zip(names, kinds)):
            chip = QToolButton(self._body)
            chip.setObjectName("stepChip")
            chip.setCheckable(True)
            chip.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            # never narrower than its words: the row, wider than the strip, scrolls; squeezed
            # to its minimum a chip read '1…t' until the next step restyled the row
            chip.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            chip.setText(f"{i + 1}  {mnemonic_free(texts[i])}")
            chip.setToolTip(f"Step {i + 1} of {len(names)} ({KIND_WORDS.get(kind, kind)}): {name}")
            chip.setProperty("name", name)
            chip.setProperty("kind", kind)
            self.group.addButton(chip, i)
            self._row.insertWidget(i, chip)
            self.chips.append(chip)
        self._row.activate()    # the body's new width now, before the row is painted squeezed
        self._current = -2
        self.set_current(-1)

    def set_current(self, index):
        if index == self._current:
            return
        self._current = index
        for i, chip in enumerate(self.chips):
            style = _chip_style(chip.property("kind"), i, index)
            if chip.styleSheet() != style:      # a new style relays the whole row out
                chip.setStyleSheet(style)
        if 0 <= index < len(self.chips):
            self.chips[index].setChecked(True)
            QTimer.singleShot(0, self, lambda: self._reveal(index))
        else:
            checked = self.group.checkedButton()
            if checked is not None:
                self.group.setExclusive(False)
                checked.setChecked(False)
                self.group.setExclusive(True)
            self.horizontalScrollBar().setValue(0)

    def _reveal(self, index):
        if index == self._current and 0 <= index < len(self.chips):
            self.ensureWidgetVisible(self.chips[index], 80, 0)

    def text_of(self, index):
        return self.chips[index].text()

    def wheelEvent(self, event):
        delta = event.angleDelta().y() or event.angleDelta().x()
        bar = self.horizontalScrollBar()
        bar.setValue(bar.value() - delta)
        event.accept()


def _chip_style(kind, i, current):
    colour = KIND_COLOURS.get(kind, LIGHT.edge)
    base = (f"QToolButton {{ border: 1px solid palette(mid); border-left: 4px solid {colour};"
            f" border-radius: 3px; padding: 1px 6px; }}")
    if i == current:
        return base + (f"QToolButton {{ background: {colour}; color: white; font-weight: bold;"
                       f" border-color: {colour}; }}")
    if i < current:
        return base + "QToolButton { background: palette(midlight); }"
    return base + "QToolButton { background: palette(base); }"
