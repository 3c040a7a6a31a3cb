"""The title slide frames the whole graph (issue 20 §4): a lesson opened in the window, then
F5, shows its title, its lead and every card whole in the view above the caption band, drawn
in full where the cards, as the slides lay them out, fit the view at the legible size, and as
large as the view allows up to presentation's zoom cap.

Measured on main at c85b8a2 (every lesson opened from the Lessons menu, then F5): 7 title
slides ran a card's foot under the caption band (lesson 7's net and lessons 6, 26-28's loss
at 1280 x 800, lessons 24 and 30's loss at 1920 x 1080; on the Xvfb screen lessons 7, 8 and
10 at 1920 x 1080): the picture was measured with the cards as short as the window had drawn
them compact, then drawn in full, taller. 30 drew the cards compact (at zooms where
their numbers were 9.2-17.4 px) where they fit whole in full at the legible size (lessons 1, 6
and 10 among them).

The legible size of a title slide's cards grows with the screen, as the band's type does
(FLOOR_PX): lesson 26's at 1920 x 1080 were drawn in full with their numbers 10.7 px tall,
attention's 9.9 px, under what the slides' rule cards and named cards keep there. And no card
is drawn over another: the tiny CNN's compact 'labels (vertical)', whose name plate stands out
below its small card, hid dense's name at every size (attention's cards overlapped at 1280 x
800): the compact layout gave each card its height without the plate. A compact card writes
whole words (`_cut_words`): the tiny CNN's dense read 'v… g… g…' at 1280 x 800."""
import re

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QImage, QPainter

from app_ui import settle_presentation

from gradviz.app.player import card_rects, framing, lessons
from gradviz.render import compact
from gradviz.render.legible import READABLE_PX

EPS = 1e-6
FLOOR_PX = {(1280, 800): READABLE_PX, (1920, 1080): READABLE_PX * 1080 / 900}   # 9 px, 10.8 px
LARGER = 1.05      # a title slide's picture that would fit this much larger is shown too small
CUT_WORD = re.compile(r"(?:^|\s)\S…$")    # a word cut to one letter and '…'


class _Written(QPainter):
    """A painter that keeps the words drawn on it."""

    def __init__(self, device):
        super().__init__(device)
        self.words = []

    def drawText(self, *args):
        self.words.append(args[-1])
        super().drawText(*args)


def _cut_words(c):
    """The words the compact cards in view write cut to a letter and '…', as drawn at the
    view's zoom (captions, names, shapes, problems)."""
    r, port = c.renderer, c.viewport().rect()
    image = QImage(port.width(), port.height(), QImage.Format.Format_RGB32)
    painter = _Written(image)
    painter.setWorldTransform(c.viewportTransform())
    for n in r.doc.nodes:
        compact.paint(painter, r, n, r.pending_ports(), c.compact_scale(), problems=c.compact_texts(n))
    painter.end()
    return sorted({word for word in painter.words if CUT_WORD.search(word)})


def _misses(w, path, size):
    c, r, p = w.canvas, w.canvas.renderer, w.presentation
    where = (path.stem, size)
    out = []
    if p.index != -1:
        return [where + ("F5 did not start at the title slide", p.index)]
    port = c.viewport()
    view = port.rect().translated(port.mapTo(w, port.rect().topLeft()))
    band = p.band.rect().translated(p.band.mapTo(w, p.band.rect().topLeft()))
    if view.intersects(band):
        out.append(where + ("the view lies under the caption band",))
    c._follow_zoom()          # as before a paint: compact or not at this zoom, the cards that tall
    seen = c.visible_rect().adjusted(-0.5, -0.5, 0.5, 0.5)     # the view's whole pixels
    r = c.renderer

    def drawn(n):
        """The card as drawn: in full, with its badge, ports and their names; compact, its
        box and the name plate that stands out of a small one (no ports drawn)."""
        return c.node_items[n].sceneBoundingRect() if c.compact else card_rects.whole_card(r, n, badge_line=True)
    out += [where + ("a card is not whole above the caption band", r.doc.nodes[n].label or n)
            for n in r.doc.nodes if not seen.contains(drawn(n))]
    ids = list(r.doc.nodes)
    out += [where + ("a card drawn over another", r.doc.nodes[a].label or a, r.doc.nodes[b].label or b)
            for k, a in enumerate(ids) for b in ids[k + 1:]
            if drawn(a).adjusted(1, 1, -1, -1).intersects(drawn(b).adjusted(1, 1, -1, -1))]
    zoom, picture = c.transform().m11(), p.picture_rect()
    px = framing.text_px(c)
    if c.compact:
        out += [where + ("a compact card cuts a word to a letter", word) for word in _cut_words(c)]
        # Drawn compact: the cards in full, as the slides lay them out, must not fit.
        if w.player.steps:
            p.go(0)
            w.player.finish_animation()
            settle_presentation(w)
        else:
            c.relayout_unplaced(p.readable_px(), overview=False)
        full = c.renderer.bounds(None)
        fits = framing.fit_zoom(full, port.width(), port.height())
        if fits >= framing.readable_zoom(c, FLOOR_PX[size]) - EPS:
            out.append(where + ("compact cards where the cards fit in full at the legible size",
                                round(px, 1), round(fits, 3)))
        return out
    if px < FLOOR_PX[size] - EPS:
        out.append(where + ("cards drawn in full under the legible size", round(px, 2)))
    cap = p.max_zoom()
    if zoom < cap - EPS and picture.width() * zoom * LARGER <= port.width() \
            and picture.height() * zoom * LARGER <= port.height():
        out.append(where + ("the picture would fit 5 % larger", round(zoom, 3)))
    return out


@pytest.mark.slow      # a walk over every sample: xdist starts it first (tests/conftest.py)
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_title_slide_shows_every_card_whole_and_in_full_where_it_fits(open_window, present, size):
    w = open_window(None, size=size)
    # (painted: a paint decides how tall the cards are drawn, compact or in full)
    misses = []
    for lesson in lessons.lesson_entries():
        assert lessons.open_lesson(w, lesson, ask=False)
        for _ in range(4):        # the canvas's fit, the lesson panel's resize of the canvas
            QCoreApplication.processEvents()
        present(w, size)
        settle_presentation(w)
        misses += _misses(w, lesson.path, size)
        w.presentation.exit()
    assert misses == [], "\n".join(map(str, misses))
