"""Issue 20 §1 (auditor H39x): with argmax on W's only path to an integer target, the status
bar said '✓ no problems' and the step bar 'W is unconnected'. Now it warns (amber '⚠'),
naming the integer target and the cut, and the player's step names argmax."""
from lesson_variants import argmax_cut_doc


def test_argmax_on_the_path_is_a_warning_and_the_step_names_it(make_window):
    w = make_window()
    w.controller.set_document(argmax_cut_doc())
    assert w.problems_label.text() == "⚠ 2 warnings"
    tip = w.problems_label.toolTip()
    assert "the target reduce_sum is int64" in tip
    assert "W's gradient is None: every path from reduce_sum to W passes argmax" in tip
    story = w.controller.result.story
    (step,) = [s for s in story.steps if s.kind == "unconnected"]
    assert step.title == "W's paths are cut" and "passes argmax" in step.caption


def test_the_inspector_and_the_card_name_the_cut(make_window):
    w = make_window()
    w.controller.set_document(argmax_cut_doc())
    w.controller.set_selection(["W"])
    w.inspector.page._refresh_result(story_now=True)
    assert w.inspector.page.grad_none.text() == (
        "None: every path from reduce_sum to W passes argmax, which returns integer indices and "
        "has no gradient (TF: not differentiable); TF returns None.")
    assert w.canvas.renderer.none_text(w.controller.doc.sources[0]) == "None (cut at argmax)"
