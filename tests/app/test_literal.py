"""The user's names shown as written wherever a widget reads markup into its text: '&' in
menus, buttons and check boxes (a mnemonic), '<' in rich text (a tag)."""
import re

import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QCheckBox

from app_ui import shown_text
from gradviz.app import create_window
from gradviz.app.studies.jacobian_view import JacobianView
from gradviz.app.window.main_window import SAMPLES_DIR

NAME = "a & <i>b</i>_c"


def _as_shown(text):
    """What a menu entry, button or check box writes: '&&' is '&', a lone '&' is dropped."""
    return re.sub(r"&(.)", r"\1", text)


@pytest.fixture
def window(qtbot, app_env):
    w = create_window(str(SAMPLES_DIR / "003_stop_gradient_product.json"), offer_recovery=False)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    c = w.controller
    c.set_field("c_stopped", "label", NAME)
    c.set_field("cc", "label", NAME + " 2")
    yield w
    c.undo_stack.setClean()


def test_names_with_markup_read_as_written(window, qtbot, tmp_path):
    w, c = window, window.controller

    def chips():
        return [_as_shown(chip.text()) for chip in w.player.timeline.chips]
    qtbot.waitUntil(lambda: any(NAME in chip for chip in chips()), timeout=3000)
    c.set_selection(["c_stopped"])
    page = w.inspector.page
    assert shown_text(page.title).startswith(NAME)
    item = w.canvas.node_items["c_stopped"]
    tip = QTextDocument()
    tip.setHtml(item.toolTip())
    assert tip.toPlainText().startswith(NAME)
    c.set_selection([])
    seeds = [_as_shown(box.text()) for box in w.inspector.page.findChildren(type(w.player.timeline.chips[0]).__mro__[0])]
    path = tmp_path / "x & y.gradviz.json"
    w.save_as(str(path))
    entries = [_as_shown(a.text()) for a in w.recent_menu.actions()]
    assert any("x & y.gradviz.json" in e for e in entries), entries
    view = JacobianView(c)
    view.target_box.setCurrentIndex(view.target_box.findText(NAME + " 2"))
    view.refresh()
    assert NAME + " 2" in shown_text(view.caption)
