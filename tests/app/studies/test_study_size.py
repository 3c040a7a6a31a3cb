"""A study's heatmap gets the room the window can spare (issue 20 §5, auditors at 1280 x 800
and 1920 x 1080: 'a teacher projecting it cannot read it').

Each lesson opens as the Lessons menu opens it (its first story step selected) and computes
its studies (Ctrl+Shift+J); the study in front is measured: its main heatmap's box (the
plot's data area, square cells for a square matrix) and its cells.

Measured on main before (box, px): the Hessian lessons' 40 x 40 H 148 at 1920 x 1080 (a
strip 278 px tall along the bottom, its choosers and caption above the plots);
BatchNorm's patch image (54 x 45) 118 x 141; lesson 16's 70 x 50 Jacobian 167 tall.
At 1920 x 1080 the study's dock keeps the height the canvas leaves it (dock_room.STORY_HEIGHT),
so the plots take that whole height: the choosers head the words beside them."""
from app_ui import laid_out
from gradviz.app.dock_room import in_front
from gradviz.app.player.lessons import lesson_entries, open_lesson
from test_study_docks import window
from test_study_stale import _settled

_ = window   # the fixture, shared with test_study_docks

# (lesson, its study in front, least box side at 1920 x 1080): the box's shorter side for a
# square matrix, its height (the rows' side) for the others. Measured: 175 (the Hessians),
# 141 x 169 (BatchNorm's patches), 597 x 169 (lesson 16's Jacobian, tabbed beside the others)
LESSONS = [("001_hessian_newton", "Hessian", 170), ("train_3_newton", "Hessian", 170),
           ("001_batchnorm_pitfall", "Batch Jacobian", 160), ("001_batch_jacobian", "Batch Jacobian", 160),
           ("001_dense_jacobian", "Jacobian", 165)]
LEAST_CELL = 2.5       # px, a square matrix's cell


def _lesson(qtbot, w, stem, title):
    lesson = next(e for e in lesson_entries() if e.path.stem == stem)
    assert open_lesson(w, lesson, ask=False)
    dock = w.study_docks[title]
    w.actions_by_name["studies"].trigger()
    qtbot.waitUntil(lambda: w._job is None and in_front(dock) and getattr(dock, "view", None) is not None,
                    timeout=10000)
    _settled(qtbot, dock.view)
    laid_out(qtbot, w)
    qtbot.wait(200)
    return dock.view


def test_a_lessons_heatmap_gets_the_room_along_the_bottom(qtbot, window):
    """The lessons one after another, as in a class, at 1920 x 1080 (the studies along the
    bottom, tabbed). In the 1280 x 800 column (the Newton lesson's H 100 px at step 1, 50 px
    in train_3_newton's turn, the provenance above) nothing changed: not held here."""
    w = window("001_hessian_newton", (1920, 1080))
    small = {}
    for stem, title, least in LESSONS:
        view = _lesson(qtbot, w, stem, title)
        heatmap = view.heatmap
        assert w.player.index >= 0 and heatmap.isVisible(), stem
        box = heatmap.plot.getViewBox().sceneBoundingRect()
        rows, cols = heatmap.matrix.shape
        side = min(box.width(), box.height()) if rows == cols else box.height()
        cell = min(box.width() / cols, box.height() / rows)
        if side < least or (rows == cols and cell < LEAST_CELL):
            small[stem] = (round(box.width()), round(box.height()), round(cell, 1))
    assert not small, small


def test_a_view_as_wide_as_it_is_tall_keeps_its_choosers_above_the_plots(qtbot):
    """Export View's size (docs/screenshots.py, 1100 x 760): with the choosers heading the
    words the column was held 590 px wide by one row of them and the Hessian's H was drawn
    209 px wide (390 before 8253cca); only a low view (along the bottom) puts them there."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies.hessian_view import HessianView
    from gradviz.bundled import sample_paths
    controller = DocumentController()
    view = HessianView(controller)
    qtbot.addWidget(view)
    view.resize(1100, 760)
    view.show()
    controller.open(str(next(p for p in sample_paths() if p.stem == "001_hessian_newton")))
    view.refresh()
    _settled(qtbot, view)
    qtbot.wait(200)
    box = view.heatmap.plot.getViewBox().sceneBoundingRect()
    assert min(box.width(), box.height()) >= 350, (box.width(), box.height())
