"""Export View as SVG writes text as it was laid out: an 11 pt title is written at the
screen's size of 11 pt, so the pieces Qt draws it in (‖, Δ from the Greek script, w‖)
meet again in any SVG renderer (the Train dock's '‖Δw‖' showed a gap: '‖  Δ w‖')."""
import re

from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gradviz.app.export_dialog import export_widget

TEXT = re.compile(r'<text[^>]* x="([\d.]+)" y="([\d.]+)"[^>]* font-size="([\d.]+)"[^>]*\n? ?>([^<]*)</text>')


def test_svg_text_is_written_at_the_size_it_was_laid_out(qtbot, tmp_path):
    widget = QWidget()
    qtbot.addWidget(widget)
    label = QLabel("update norm ‖Δw‖")
    font = QFont(label.font())
    font.setPointSizeF(11)
    label.setFont(font)
    QVBoxLayout(widget).addWidget(label)
    widget.resize(300, 60)
    widget.show()
    qtbot.waitExposed(widget)
    export_widget(widget, tmp_path / "title.svg")
    pieces = TEXT.findall((tmp_path / "title.svg").read_text(encoding="utf-8"))
    assert "".join(p[3] for p in pieces) == "update norm ‖Δw‖", pieces
    pixels = 11 * widget.logicalDpiY() / 72
    for x, y, size, text in pieces:
        assert abs(float(size) - pixels) < 0.01, (text, size, pixels)
    metrics = QFontMetricsF(font, widget)      # the label's metrics, at the screen's dpi
    for (x, _, _, text), (next_x, *_) in zip(pieces, pieces[1:]):
        gap = float(next_x) - float(x) - metrics.horizontalAdvance(text)
        assert abs(gap) < 1.5, (text, gap)     # each piece starts where the one before ends
