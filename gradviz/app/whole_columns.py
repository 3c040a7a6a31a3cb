"""A table of numbers wider than its viewport shows whole columns, never one cut in part:
a number cut after '0.36' reads as another number (the provenance dock's 7 x 8 grid at
1280 x 800). Shared by the inspector's tensor grid and the provenance dock's."""
from PySide6.QtWidgets import QAbstractItemView


def whole_columns(view, natural):
    """Give the columns of `view` (a QTableView) their `natural` widths (their numbers') where
    those fit its viewport, scrolled pixel by pixel; else all as wide as the widest, widened
    so that a whole number of them fill the viewport (a few pixels of the next column's
    blank left margin aside: the numbers are right-aligned), scrolled a column at a time,
    so that wherever it is scrolled every column shown is whole."""
    room = view.viewport().width()
    header = view.horizontalHeader()
    if sum(natural) <= room or room <= 0:
        sizes = list(natural)
        mode = QAbstractItemView.ScrollMode.ScrollPerPixel
    else:
        widest = max(natural)
        count = max(1, room // widest)
        each = max(widest, room // count)
        # the pixels left over to the last column: scrolled to the end, Qt puts the last
        # column's right edge at the viewport's, so its left edge falls on a column's too
        sizes = [each] * (len(natural) - 1) + [each + max(room - count * each, 0)]
        mode = QAbstractItemView.ScrollMode.ScrollPerItem
    if view.horizontalScrollMode() != mode:
        view.setHorizontalScrollMode(mode)
    for column, size in enumerate(sizes):
        if header.sectionSize(column) != size:
            header.resizeSection(column, size)
