"""Opening a lesson from the Lessons menu, as a teacher does in front of a class: the title
tells the truth about it, closing it untouched asks nothing, the story keys work at once."""
from gradviz.app.player.lessons import lesson_actions


def _lesson(w, number):
    action = lesson_actions(w.lessons_menu)[number - 1]
    action.trigger()
    return action


def test_an_untouched_lesson_is_no_unsaved_work(open_window, app_env):
    w = open_window()
    for number in (1, 5, 14):
        _lesson(w, number)
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
    from gradviz.app.window.main_window import STUDY_VIEWS, _in_front
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
    assert not _in_front(dock)
    w.actions_by_name["studies"].trigger()
    qtbot.waitUntil(lambda: w._job is None and _in_front(dock), timeout=10000)
    qtbot.waitUntil(lambda: dock.view is not None and dock.view.result is not None, timeout=10000)
    assert dock.isVisible() and not dock.visibleRegion().isEmpty()
    message = w.statusBar().currentMessage()
    assert message.startswith("Studies: ") and f"View ▸ Studies ▸ {title}" in message, message
