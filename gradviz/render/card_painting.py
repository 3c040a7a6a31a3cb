"""Painting node cards from their measurement (cards.py): frame, header, badges, port names, numbers."""
from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen

from . import legible, port_labels, preview, text
from .cards import (BADGE_H, CORNER_R, HEADER_H, LINE_H, PAD, PENDING_OUT, PORT_R, body_height,
                    fonts, mark_color, port_name)


class CardPainting:
    """Painting node cards (a part of Renderer)."""

    def _badge(self, painter, r, label, colour):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(colour))
        painter.drawRoundedRect(r, BADGE_H / 2, BADGE_H / 2)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(badge_font())
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, label)

    def source_badge(self, nid):
        """'source', or the weights that are sources on a layer ('sources: kernel, bias')."""
        ports = sorted((p for p in self.doc.sources if p.node == nid), key=lambda p: p.index)
        if not ports:
            return ""
        if [p.index for p in ports] == [0]:
            return "source"
        names = [port_name(self.doc, p).rsplit(".", 1)[-1] if p.index else "output" for p in ports]
        return ("sources: " if len(names) > 1 else "source: ") + ", ".join(names)

    def _paint_card(self, painter, nid, step=None):
        """The whole card: its frame, which changes only with the document's structure, and
        its numbers, which an edit of values changes (the canvas caches the two apart)."""
        self._paint_card_frame(painter, nid)
        self._paint_card_numbers(painter, nid, step)
        self._paint_port_labels(painter, nid)

    def footprint(self, nid):
        """The card with its badge line above, the names written beside its ports and the
        problems' lines under it: what a rule card beside it may not cover (it hid a layer's
        "kernel" and "bias", and lesson 32's rule card touched the '⚠ produced NaN or
        infinity' under log_p)."""
        rect = self.rect(nid).adjusted(0, -BADGE_H - 4, 0, 0)
        for label in [label for label, _, _ in self.port_labels(nid)] + self.problem_rects(nid):
            rect = rect.united(label)
        return rect

    def port_labels(self, nid):
        """[(rect, name, is_output)]: the names written beside the ports of each side that
        has several (matmul's a and b), in document coordinates."""
        card, node = self.cards[nid], self.doc.nodes[nid]
        labels = []
        for count, names, at, is_output in ((card.n_inputs, port_labels.input_names, self.input_pos, False),
                                            (card.n_outputs, port_labels.output_names, self.output_pos, True)):
            if count > 1:
                labels += [(port_labels.label_rect(name, is_output).translated(at(nid, i)), name, is_output)
                           for i, name in enumerate(names(node, count, self.doc))]
        return labels

    def _paint_port_labels(self, painter, nid):
        """The ports' names, as the canvas writes them beside its port items."""
        labels = self.port_labels(nid)
        if not labels:
            return
        painter.setFont(port_labels.label_font())
        painter.setPen(QColor(self.theme.muted))
        for rect, name, is_output in labels:
            align = Qt.AlignmentFlag.AlignLeft if is_output else Qt.AlignmentFlag.AlignRight
            painter.drawText(rect, align | Qt.AlignmentFlag.AlignVCenter, name)

    def _paint_card_frame(self, painter, nid):
        """Everything on the card but the section bodies: box, header, text lines, the
        sections' boxes and labels, ports and badges."""
        t = self.theme
        card = self.cards[nid]
        node = self.doc.nodes[nid]
        r = self.rect(nid)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(t.card))
        painter.drawRoundedRect(r, CORNER_R, CORNER_R)
        painter.setBrush(QColor(t.header.get(node.kind, t.header.get("op", "#1565c0"))))
        painter.drawPath(_header_path(r.width()).translated(r.topLeft()))
        painter.setPen(QPen(QColor(t.card_border), 1.2))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(r, CORNER_R, CORNER_R)
        f_title, f_sub, f_body, f_label = fonts()
        painter.setPen(QColor(t.header_text))
        painter.setFont(f_title)
        head = QRectF(r.left() + PAD, r.top(), r.width() - 2 * PAD, HEADER_H)
        painter.drawText(head, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, card.title_text)
        painter.setFont(f_sub)
        sub = QColor(t.header_text)
        sub.setAlpha(215)
        painter.setPen(sub)
        painter.drawText(head, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, card.subtitle_text)
        y = r.top() + HEADER_H + 6
        painter.setFont(f_body)
        painter.setPen(QColor(t.muted))
        for line in card.lines:
            painter.drawText(QRectF(r.left() + PAD, y, r.width() - 2 * PAD, LINE_H),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
            y += LINE_H
        if card.mark:
            painter.setPen(QColor(mark_color(t, card.mark)))
            painter.drawText(QRectF(r.left() + PAD, y, r.width() - 2 * PAD, LINE_H),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, card.mark)
        for section in card.sections:
            self._paint_section_frame(painter, r, section)
        painter.setPen(QPen(QColor(t.card_border), 1.4))
        painter.setBrush(QColor(t.port))
        for i in range(card.n_inputs):
            painter.drawEllipse(self.input_pos(nid, i), PORT_R, PORT_R)
        for i in range(card.n_outputs):
            painter.drawEllipse(self.output_pos(nid, i), PORT_R, PORT_R)
        for label, colour, rect in self.badges(nid):
            self._badge(painter, rect, label, getattr(t, colour))

    def badges(self, nid):
        """[(label, theme colour's name, QRectF)] of the badges above card `nid`: source and
        'not recorded' from its left, target at its right (never over the others)."""
        r = self.rect(nid)
        font = badge_font()
        out, bx, y = [], r.left(), r.top() - BADGE_H - 4
        labels = [(self.source_badge(nid), "source"),
                  ("not recorded" if nid in self.doc.tape.stop_recording else "", "cut")]
        for label, colour in labels:
            if label:
                w = text.width(font, label) + 14
                out.append((label, colour, QRectF(bx, y, w, BADGE_H)))
                bx += w + 4
        if any(p.node == nid for p in self.doc.targets):
            seeded = any(p.node == nid for p in self.doc.output_gradients)
            label = "target (seeded)" if seeded else "target"
            w = text.width(font, label) + 14
            out.append((label, "target", QRectF(max(r.right() - w, bx), y, w, BADGE_H)))
        return out

    def _paint_card_numbers(self, painter, nid, step=None, at=None):
        """The sections' bodies: each value or gradient preview, "None", or "pending" while
        a story step is drawn before the gradient's accumulation. `at`: the card's top-left
        where the painter is not in scene coordinates (the canvas' numbers item: (0, 0))."""
        pending = self.pending_ports(step)
        card = self.cards[nid]
        x, y = self.positions[nid] if at is None else at
        for section in card.sections:
            self._paint_section_body(painter, x + PAD, y + section.y + LINE_H, card.width - 2 * PAD, section,
                                     section.colour == "gradient" and section.port in pending)

    def _paint_section_frame(self, painter, r, section):
        t = self.theme
        fill = t.gradient_fill if section.colour == "gradient" else t.value_fill
        top = r.top() + section.y
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(fill))
        painter.drawRoundedRect(QRectF(r.left() + 4, top - 2, r.width() - 8, LINE_H + body_height(section) + 6),
                                5, 5)
        painter.setFont(text.sans(8.5, bold=True))
        painter.setPen(QColor(getattr(t, section.colour)))
        inner = QRectF(r.left() + PAD, top, r.width() - 2 * PAD, LINE_H)
        painter.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, section.text)

    def _paint_section_body(self, painter, x, y, width, section, pending):
        """One section's body, its top-left at (x, y): plain floats, since a value edit
        paints every card's numbers again (a QRectF and its getters cost more than the
        arithmetic)."""
        t = self.theme
        colour = getattr(t, section.colour)
        if pending:     # the gradient's box kept (no jump when it comes), read as a placeholder:
            # one look whatever its height (a one-row gradient's words were drawn plain on the tint)
            box = QRectF(x - PENDING_OUT, y + 0.5, width + 2 * PENDING_OUT, body_height(section) - 1)
            edge = QColor(t.gradient)     # (solid: a dashed line's dashes fell apart
            edge.setAlpha(90)             # between an export and its picture replayed)
            painter.setPen(QPen(edge, 1))
            painter.setBrush(QColor(t.card))
            painter.drawRoundedRect(box, 4, 4)
            painter.setFont(text.sans(8.5))
            painter.setPen(QColor(t.muted))
            painter.drawText(box.adjusted(PENDING_OUT, 0, -PENDING_OUT, 0),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             self.pending_text(section.port))
        elif section.preview is None:
            painter.setFont(preview.mono_font(9))
            painter.setPen(QColor(colour))
            painter.drawText(QRectF(x, y, width, LINE_H), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             self.none_text(section.port))
        else:
            section.preview.draw(painter, x, y, colour, t, least_px=self.numbers_px)


@lru_cache(maxsize=512)
def _header_path(width):
    """The header's shape at the origin: rounded at the top, square where the body starts."""
    header = QPainterPath()
    header.addRoundedRect(QRectF(0, 0, width, HEADER_H + CORNER_R), CORNER_R, CORNER_R)
    clip = QPainterPath()
    clip.addRect(QRectF(0, 0, width, HEADER_H))
    return header.intersected(clip)


def badge_font():
    """'source', 'target (seeded)': as legible as the cards' numbers."""
    return text.sans(legible.NUMBER_PT, bold=True)
