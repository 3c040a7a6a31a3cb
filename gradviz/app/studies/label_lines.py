"""Where a label's lines fall as QLabel draws them (its contents box, the indent a frame
adds, its alignment): where its first sentence ends, and where a box that shows part of it
may end without cutting a line through (plots_and_words)."""
import math
import re

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[\u2028\u2029]")   # a full stop, or a line break
HEADLINE = re.compile(r"\s*<b>(.*?)</b>", re.S)                 # a banner's words in bold, first


def _laid_out(label, width, wrap=True):
    """(document, contents rect): `label`'s text laid out as the label lays it out `width`
    px wide (`wrap` False: as wide as its lines, where the label does not wrap)."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)                 # as a QLabel lays out its text
    doc.setDefaultFont(label.font())
    text = label.text()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text))
    if rich:
        doc.setHtml(text)
    else:
        doc.setPlainText(text)
    inside = label.contentsRect()
    if wrap:
        doc.setTextWidth(max(width - (label.width() - inside.width()) - _indent(label), 1))
    doc.documentLayout().documentSize()      # lays the text out
    return doc, inside


def _indent(label):
    """The px QLabel leaves beside its text within its contents: a label with a frame (a
    banner's border) indents its words by half an 'x' (as QLabel::sizeForWidth does). Laid
    out 4 px wider than drawn, the Hessian's 8-line verdict measured 7 lines, and its
    headline's second line was cut where its box was measured to end below it."""
    indent = label.indent()
    if indent < 0 and label.frameWidth():
        indent = label.fontMetrics().horizontalAdvance("x") // 2 - label.margin()
    horizontal = label.alignment() & (Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignRight)
    return max(indent, 0) if horizontal else 0


def first_sentence_bottom(label, width, headline=False):
    """How far down `label` (px from its top), laid out `width` px wide, its first sentence
    ends: the bottom of the line that holds its first full stop or line break (the chain's
    'Chain of 8 Jacobians, sizes 40 → … → 1' ends at its break); its height without either.
    `headline`: where its text opens in bold (a banner's '<b>Σ over target axes = gradient
    ✓</b>'), where the bold ends."""
    whole = label.heightForWidth(width)
    doc, inside = _laid_out(label, width)
    bold = HEADLINE.match(label.text()) if headline else None
    if bold is not None:
        head = QTextDocument()
        head.setHtml(bold.group(1))
        end = max(len(head.toPlainText()) - 1, 0)
    else:
        found = SENTENCE_END.search(doc.toPlainText())
        if found is None:
            return whole if whole >= 0 else label.sizeHint().height()
        end = found.start()
    block = doc.findBlock(end)
    top = doc.documentLayout().blockBoundingRect(block).top()
    line = block.layout().lineForTextPosition(end - block.position())
    if not line.isValid():
        return whole if whole >= 0 else label.sizeHint().height()
    # as drawn at the height the label takes at `width` (line_spans): centred where taller
    height = whole - (label.height() - inside.height()) if whole >= 0 else inside.height()
    return _text_top(label, doc, inside.top(), height) + math.ceil(top + line.y() + line.height())


def _text_top(label, doc, top, height):
    """Where `label` draws the top of its text `doc`, laid out, in a contents box `height`
    px high from `top`: its alignment places the text in the box's spare height."""
    spare = height - math.ceil(doc.documentLayout().documentSize().height())
    align = label.alignment()
    return top + (spare // 2 if align & Qt.AlignmentFlag.AlignVCenter and spare > 0
                  else spare if align & Qt.AlignmentFlag.AlignBottom and spare > 0 else 0)


def line_spans(label):
    """(top, bottom) of each line of `label`'s text as drawn, px from the label's top
    (a table's rows too, each cell's lines): where a box that shows part of the label may
    end without cutting a line through."""
    doc, inside = _laid_out(label, label.width(), label.wordWrap())
    layout = doc.documentLayout()
    offset = _text_top(label, doc, inside.top(), inside.height())
    spans = []
    block = doc.begin()
    while block.isValid():
        top = layout.blockBoundingRect(block).top()
        lines = block.layout()
        for i in range(lines.lineCount()):
            line = lines.lineAt(i)
            spans.append((offset + math.floor(top + line.y()), offset + math.ceil(top + line.y() + line.height())))
        block = block.next()
    return spans
