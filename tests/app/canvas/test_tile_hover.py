"""Hovering a card's picture names the entry under the cursor with its number (issue 21
§1): the conv lesson's image gradient, tile cell x[0,2,3,0], and a filter tap."""
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QGraphicsSceneHoverEvent

from gradviz.render.cards import LINE_H, PAD

SAMPLE = Path(__file__).resolve().parents[3] / "gradviz" / "samples" / "nets_1_conv_transpose.json"


def hover(item, point):
    event = QGraphicsSceneHoverEvent()
    event.setPos(point)
    item.hoverMoveEvent(event)
    return item.toolTip()


def test_hovering_a_tile_cell_names_the_entry_and_its_number(open_window):
    w = open_window(SAMPLE, shown=False)
    view = w.canvas
    item = view.node_items["input_image"]
    value, grad = item.card.sections
    assert grad.preview.kind == "tiles"
    flat = int(np.ravel_multi_index((0, 2, 3, 0), (1, 5, 5, 1)))
    cell = grad.preview.cell_rect(PAD, grad.y + LINE_H, flat)
    assert hover(item, cell.center()) == "grad input image[0,2,3,0] = -4"
    cell = value.preview.cell_rect(PAD, value.y + LINE_H, flat)
    assert hover(item, cell.center()) == f"input image[0,2,3,0] = {value.array[0, 2, 3, 0]:g}"
    card_tip = hover(item, cell.center() + (cell.topLeft() - cell.bottomRight()) * 40)   # off the pictures
    assert card_tip.startswith("<b>input image</b>")
    filt = view.node_items["filter_w"]
    tap = filt.card.sections[1]                      # ∂y/∂w, in x out tiles of 3x3
    flat = int(np.ravel_multi_index((0, 1, 0, 0), (3, 3, 1, 1)))
    cell = tap.preview.cell_rect(PAD, tap.y + LINE_H, flat)
    assert hover(filt, cell.center()) == "grad filter w[0,1,0,0] = 8"
