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
