"""A compact card's text reads at Fit to Window (issue 20 §4, 'about 9 px'): its name, shape,
captions and single numbers have digits and capitals at least legible.READABLE_PX tall on
screen, as a reader measures them on a screenshot (the glyph, not the font's size). Before:
the tiny CNN fitted to a 1280 x 800 window wrote 'conv' / '1×6×6×4' in a 9.3 px font, its
digits 7.1 px tall."""
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFontMetricsF

from gradviz.app.canvas import items as canvas_items
from gradviz.app.window.main_window import SAMPLES_DIR
from gradviz.render import compact, legible


class _Recording:
    """A painter that passes every call on and notes each text drawn with its font."""

    def __init__(self, painter, texts):
        self._painter, self._texts, self._font = painter, texts, None

    def setFont(self, font):
        self._font = font
        self._painter.setFont(font)

    def drawText(self, *args):
        self._texts.append((args[-1], _glyph_px(self._font, self._painter.device(),
                                                self._painter.worldTransform().m11())))
        self._painter.drawText(*args)

    def __getattr__(self, name):
        return getattr(self._painter, name)


def _glyph_px(font, device, zoom):
    """How tall (screen pixels) `font` draws digits and capitals on `device` at `zoom`."""
    return QFontMetricsF(font, device).tightBoundingRect("0123456789").height() * zoom


def test_a_compact_card_s_text_is_9_px_tall_after_fit_to_window(open_window, monkeypatch):
    w = open_window(None, size=(1280, 800))
    c = w.canvas
    texts = []
    for name in ("paint", "paint_thumbnails"):      # the card, and its thumbnails' captions and numbers
        monkeypatch.setattr(canvas_items.compact, name, lambda painter, *a, _paint=getattr(compact, name), **k:
                            _paint(_Recording(painter, texts), *a, **k))
    assert w.open_sample(SAMPLES_DIR / "nets_5_tiny_cnn.json", ask=False)
    QCoreApplication.processEvents()
    c.fit()
    for item in c.node_items.values():   # painted afresh, not from the cards' caches
        item.repaint_card()
    c.viewport().grab()
    assert c.compact
    drawn = {t: px for t, px in texts if t}
    assert {"conv", "1×6×6×4", "value"} <= set(drawn)
    small = {t: round(px, 2) for t, px in drawn.items() if px < legible.READABLE_PX}
    assert small == {}
