"""Issue 20 §1: a source joined to the target on the canvas whose every path passes an op
without a gradient (argmax, a cast to int, tf.stop_gradient, a stop_recording region) gets
None, and every view says which node cuts it and why, never 'no path' beside a path in plain
view (auditor H39x: 'W is unconnected: No path of recorded ops leads from the target to W'
while W → matmul → relu → argmax → reduce_sum was drawn, and '✓ no problems')."""
from pathlib import Path

import numpy as np
from lesson_variants import argmax_cut_doc

from gradviz.cli import main
from gradviz.graph import Port, fileformat
from gradviz.graph.document import CONSTANT, Node
from gradviz.graph.cut_paths import cut_reason, cut_warnings, none_why, none_words
from gradviz.graph.evaluate import evaluate
from gradviz.story.build import build

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
ARGMAX = ("every path from reduce_sum to W passes argmax, which returns integer indices and "
          "has no gradient (TF: not differentiable)")


def _none_step(story):
    (step,) = [s for s in story.steps if s.kind == "unconnected"]
    return step


def test_the_story_names_argmax_as_the_cut_not_a_missing_path():
    doc = argmax_cut_doc()
    story = build(doc)
    assert story.gradients[Port("W")] is None            # TF's None stays
    step = _none_step(story)
    assert step.title == "W's paths are cut"
    assert step.caption.startswith(ARGMAX[0].upper() + ARGMAX[1:] + ": its gradient is None")
    assert "No path" not in step.caption and "unconnected" not in step.title


def test_the_card_and_the_inspector_say_where_the_path_is_cut():
    doc = argmax_cut_doc()
    values = evaluate(doc).values
    assert none_words(doc, values, Port("W")) == "None (cut at argmax)"
    assert none_why(doc, values, Port("W")) == f"None: {ARGMAX}; TF returns None."


def test_an_integer_target_and_a_cut_source_are_warnings():
    ev = evaluate(argmax_cut_doc())
    messages = [p.message for p in ev.problems if p.warning]
    assert messages == ["the target reduce_sum is int64: TF does not differentiate integer or "
                        "boolean tensors, so no gradient flows back from it",
                        f"W's gradient is None: {ARGMAX}"]


def test_a_cast_to_int_cuts_with_its_dtype():
    doc = argmax_cut_doc("cast", {"dtype": "int32"})
    values = evaluate(doc).values
    assert cut_reason(doc, values, Port("W")) == (
        "every path from reduce_sum to W passes cast, which turns floating values into int32 "
        "ones, and TF does not differentiate through integer or boolean tensors")
    assert none_words(doc, values, Port("W")) == "None (cut at cast)"


def test_stop_gradient_is_named_and_is_no_warning():
    """A tf.stop_gradient the reader placed cuts by design: named, but not a warning."""
    doc = argmax_cut_doc("stop_gradient")
    ev = evaluate(doc)
    assert "passes stop_gradient, which is tf.stop_gradient" in cut_reason(doc, ev.values, Port("W"))
    assert cut_warnings(doc, ev.values, ev.gradients) == []


def test_a_source_with_no_edge_path_still_says_no_path():
    doc = argmax_cut_doc()
    doc.remove("cut")
    doc.connect("relu", "reduce_sum")        # W's path is whole; V feeds nothing
    doc.add(Node("V", CONSTANT, value=np.ones((3, 2), np.float32), watched=True))
    doc.sources = [Port("W"), Port("V")]
    ev = evaluate(doc)
    assert ev.gradients[Port("W")] is not None and not ev.warnings
    assert cut_reason(doc, ev.values, Port("V")) == ""
    assert none_words(doc, ev.values, Port("V")) == "None (no path from the target)"
    assert none_why(doc, ev.values, Port("V")) == (
        "None: no path of edges joins this source to the target (TF returns None).")
    step = _none_step(build(doc))
    assert step.title == "V is unconnected" and "No path of recorded ops" in step.caption


def test_the_stop_recording_and_reset_lessons_say_the_region_not_unwatched():
    """Lessons 8 and 9 (stop_recording, reset): y's only path passes the stop_recording region;
    the steps say so, and the region's own step is true for a reset as for stop_recording."""
    for name, node in (("001_stop_recording.json", "y_sq"), ("001_reset.json", "y_sq (before reset)")):
        story = build(fileformat.load(SAMPLES / name))
        step = _none_step(story)
        assert step.title == "y's paths are cut"
        assert step.caption.startswith(f"Every path from z to y passes {node}, which is in the "
                                       f"tape's stop_recording region")
        cut = next(s for s in story.steps if s.kind == "cut")
        assert cut.caption.startswith(f"{node} is in the tape's stop_recording region: the tape "
                                      f"holds no record of it")
        assert "tape.reset()" in cut.caption and "tape.stop_recording()" in cut.caption
        assert not story.evaluation.warnings


def test_explain_on_a_saved_file_names_the_cut(tmp_path, capsys):
    path = tmp_path / "argmax.gradviz.json"
    fileformat.save(argmax_cut_doc(), path)
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr()
    text = " ".join(out.out.split())      # the story wraps its lines
    assert ARGMAX[0].upper() + ARGMAX[1:] in text
    assert "No path" not in text and "unconnected" not in text.replace("unconnected_gradients", "")
    assert f"W's gradient is None: {ARGMAX}" in out.err


def test_the_higher_order_study_text_names_the_cut():
    """`gradviz explain`'s higher-order lines said 'None (unconnected)' beside the drawn path."""
    from gradviz.story.study_text import higher_order_lines
    doc = argmax_cut_doc()
    doc.studies = {"higher_order": {"target": "reduce_sum", "source": "W", "order": 2}}
    lines = higher_order_lines(doc)
    assert lines[1] == f"  dreduce_sum/dW = None ({ARGMAX})"
    assert lines[2] == ("  d²reduce_sum/dW² = None (the derivative of order 1 does not depend on W "
                        "on the tape)")
