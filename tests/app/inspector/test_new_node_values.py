"""A node just added shows its values (H45 audit, 1024 x 768): the inspector's page of a new
constant opened at its title, and its Value grid lay below the dock's fold (its tools row
in view, none of its cells), so the user added a node and did not see its values."""
import pytest
from PySide6.QtCore import QPoint, QRect

from gradviz.app.inspector.tensor_grid import TensorGrid


def _cells_in_view(grid, scroll):
    """(cells of `grid` whole in the inspector's scroll viewport, cells in all)."""
    model, viewport = grid.model(), scroll.viewport()
    shown = QRect(QPoint(0, 0), viewport.size())
    seen = 0
    for row in range(model.rowCount()):
        for col in range(model.columnCount()):
            cell = grid.visualRect(model.index(row, col))
            corner = grid.viewport().mapTo(viewport, cell.topLeft())
            seen += shown.contains(QRect(corner, cell.size()))
    return seen, model.rowCount() * model.columnCount()


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_a_node_added_from_the_palette_shows_its_value_grid(qtbot, open_window, size):
    w = open_window("samples/001_input_gradient_regularization.json", size=size)
    inspector = w.inspector
    added = w.canvas.add_node_at("constant")
    qtbot.waitUntil(lambda: getattr(inspector.page, "node_id", None) == added
                    and inspector.page.value_editor.isVisible())
    qtbot.wait(50)
    grid = inspector.page.value_editor.findChild(TensorGrid)
    seen, cells = _cells_in_view(grid, inspector.scroll)
    assert cells and seen == cells, (seen, cells, inspector.scroll.viewport().height())
    assert inspector.page.value_editor.parentWidget().visibleRegion().boundingRect().height() \
        == inspector.page.value_editor.parentWidget().height()       # its tools row too
