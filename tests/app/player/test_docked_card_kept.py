"""Where the player docked a step's formula card is carried over to the canvas's next
renderer (render.formula's dock_formula), as make_renderer carries the unchanged cards: a new
colour theme measures every card again and keeps it; a new document keeps nothing."""
from gradviz.render import painter as render_painter


def test_a_theme_keeps_the_steps_formula_card_where_the_player_docked_it(qtbot, open_window):
    w = open_window("samples/train_3_newton.json")
    w.train_dock.toggleViewAction().trigger()     # the canvas narrower: its cards compact
    qtbot.waitUntil(lambda: w.train_dock.panel is not None)
    w.player.set_index(0)
    qtbot.wait(100)
    w.actions_by_name["fit"].trigger()
    qtbot.wait(200)
    step = w.player.step
    docked = render_painter.formula_rect(w.canvas.renderer, step)
    layout = w.canvas.renderer.formula_layout(step)
    assert w.canvas.renderer.docked_formula() is not None
    assert docked.width() > 1.2 * layout.width      # the case: drawn larger than its layout
    before = w.canvas.renderer
    w.canvas.set_theme("dark")
    assert w.canvas.renderer is not before and w.canvas.renderer.theme.name == "dark"
    assert w.player.step is step
    assert render_painter.formula_rect(w.canvas.renderer, step) == docked
    w.load_path("samples/004_matmul_sum.json")
    qtbot.wait(100)
    assert w.canvas.renderer.docked_formula() is None
