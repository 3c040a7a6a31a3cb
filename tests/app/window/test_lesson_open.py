"""Opening a lesson from the Lessons menu, as a teacher does in front of a class: the title
tells the truth about it, closing it untouched asks nothing, the story keys work at once."""
from PySide6.QtCore import QEvent, QObject

from gradviz.app.player.lessons import lesson_actions


def _lesson(w, number):
    action = lesson_actions(w.lessons_menu)[number - 1]
    action.trigger()
    return action


class _Paints(QObject):
    """Counts the paint events of the widget it filters."""
    count = 0

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_an_untouched_lesson_is_no_unsaved_work(open_window, app_env):
    """Also: a lesson chosen from a menu opens after the window is painted again. Opening
    lesson 33 keeps the UI thread for a second or more, and without a compositor the closed
    menu stayed drawn over the canvas until then."""
    w = open_window()
    paints, painted, opening = _Paints(w), [], w.open_sample
    w.installEventFilter(paints)
    w.open_sample = lambda path, ask=True: painted.append(paints.count) or opening(path, ask)
    for number in (1, 5, 14):
        paints.count = 0
        _lesson(w, number)
        assert painted[-1] > 0, number
        title = w.controller.doc.title
        assert w.windowTitle() == f"{title} (lesson)[*]", w.windowTitle()
        assert "unsaved" not in w.windowTitle() and not w.isWindowModified()
    assert app_env.asked == []           # switching between untouched lessons asked nothing
    w.controller.set_meta(title="Changed")   # an edit: now there is unsaved work
    assert w.isWindowModified() and w.windowTitle() == "Changed (lesson)[*]"
    w.controller.undo_stack.undo()
    assert not w.isWindowModified()
    assert w.close()                     # untouched again: closing asks nothing
    assert app_env.asked == []
    assert w.new_document() and w.windowTitle() == "Untitled — new document[*]"


def test_compute_studies_shows_the_computed_study(open_window, qtbot):
    """Ctrl+Shift+J computes the document's studies and shows the first one's view in front
    of its tabs (not only a line in the status bar); the status says where it is."""
    from gradviz.app.dock_room import in_front
    from gradviz.app.window.main_window import STUDY_VIEWS
    w = open_window()
    number = next(i for i, a in enumerate(lesson_actions(w.lessons_menu), start=1)
                  if "Jacobian" in a.text() and "sigmoid" in a.text().lower())
    _lesson(w, number)
    studies = list(w.controller.doc.studies)
    assert studies and studies[0] in STUDY_VIEWS
    title = STUDY_VIEWS[studies[0]]
    w.study_docks["Hessian"].show()      # another study's tab in front before
    w.study_docks["Hessian"].raise_()
    dock = w.study_docks[title]
    assert not in_front(dock)
    w.actions_by_name["studies"].trigger()
    qtbot.waitUntil(lambda: w._job is None and in_front(dock), timeout=10000)
    qtbot.waitUntil(lambda: dock.view is not None and dock.view.result is not None, timeout=10000)
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()
    message = w.statusBar().currentMessage()
    assert message.startswith("Studies: ") and f"View ▸ Studies ▸ {title}" in message, message


def _player_keys_step(qtbot, w, where):
    """Right, Left, End and Home pressed on the focused widget `where` step the story."""
    from PySide6.QtCore import Qt
    p = w.player
    p.set_index(0)
    qtbot.keyClick(where(), Qt.Key.Key_Right)
    assert p.index == 1, where()
    qtbot.keyClick(where(), Qt.Key.Key_Left)
    assert p.index == 0, where()
    qtbot.keyClick(where(), Qt.Key.Key_End)
    assert p.index == len(p.steps) - 1, where()
    qtbot.keyClick(where(), Qt.Key.Key_Home)
    assert p.index == 0, where()


def test_story_keys_work_after_a_lesson_opens_from_the_menu(open_window, qtbot):
    """Issue 20 §3: the provenance table had focus from a click; a lesson opened from the
    menu; the arrows moved the table's cell instead of stepping the story."""
    from PySide6.QtWidgets import QApplication
    w = open_window()
    _lesson(w, 1)
    w.provenance_dock.show()
    w.provenance_dock.raise_()
    from PySide6.QtWidgets import QAbstractItemView
    views = [v for v in w.provenance_dock.findChildren(QAbstractItemView) if v.isVisible()]
    assert views
    views[0].setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is views[0])
    _player_keys_step(qtbot, w, lambda: views[0])     # a read-only grid chosen by a click
    w.lesson_panel.setFocus()                          # the lesson's text, read-only
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.lesson_panel)
    _player_keys_step(qtbot, w, lambda: w.lesson_panel)
    views[0].setFocus()
    _lesson(w, 5)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.canvas)
    _player_keys_step(qtbot, w, QApplication.focusWidget)


def test_view_keys_work_with_a_check_box_focused(open_window, qtbot):
    """F fits the graph and the arrows step the story while the inspector's Source check box
    has focus (it uses Space itself: Space toggles it)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication
    w = open_window()
    _lesson(w, 1)
    w.inspector_dock.show()
    w.inspector_dock.raise_()
    w.player.set_index(-1)
    node = next(iter(w.controller.doc.nodes))
    w.controller.set_selection([node])
    box = w.inspector.page.role_boxes[("sources", 0)]
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box)
    w.canvas.fit()
    fitted = w.canvas.transform().m11()
    w.canvas.zoom_in()
    w.canvas.zoom_in()
    assert abs(w.canvas.transform().m11() - fitted) > 1e-3
    qtbot.keyClick(box, Qt.Key.Key_F)
    assert abs(w.canvas.transform().m11() - fitted) < 1e-6
    _player_keys_step(qtbot, w, lambda: box)


def test_compute_studies_on_a_document_without_studies_says_where_they_are(open_window):
    """Ctrl+Shift+J on a document that lists no studies said '(set them in the inspector)',
    where nothing sets them (walk-through H36x), while the status bar counted the warnings of
    the study views the user had opened. It says what is true: the document lists none,
    a lesson's file lists them, and each view of View ▸ Studies computes its own."""
    w = open_window()
    assert not w.controller.doc.studies
    w.actions_by_name["studies"].trigger()
    said = w.statusBar().currentMessage()
    assert "inspector" not in said.lower(), said
    assert "View ▸ Studies" in said, said
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    assert any(a.text() == "&Studies" for a in view.actions() if a.menu())


def test_compute_studies_names_each_study_by_its_title(open_window, qtbot):
    """The status bar said 'Studies: batch_jacobian: shape (7, 6, 5); jacobian: …' and
    'higher_order: shape ()', the file's keys: it names each study as View ▸ Studies does
    (issue 20 §2), a study no view shows in words."""
    from gradviz.bundled import lesson_entries
    w = open_window()
    said = {}
    for stem in ("001_batchnorm_pitfall", "001_higher_order"):
        number = next(e.number for e in lesson_entries() if e.path.stem == stem)
        _lesson(w, number)
        w.actions_by_name["studies"].trigger()
        qtbot.waitUntil(lambda: w._job is None and w.statusBar().currentMessage().startswith("Studies"),
                        timeout=10000)
        said[stem] = w.statusBar().currentMessage()
        w.controller.undo_stack.setClean()
    assert said["001_batchnorm_pitfall"].startswith(
        "Studies: Batch Jacobian: shape (7, 6, 5); Jacobian: shape (7, 6, 7, 5)")
    assert said["001_higher_order"].startswith("Studies: Higher order: shape ()")
    assert not [key for key in ("batch_jacobian", "jacobian:", "higher_order")
                if any(key in text for text in said.values())]

