"""A study's warnings and results name an op as the cards do (pow, norm, multiply, log), never
by the type TF's tape records (Pow, EuclideanNorm, Mul, Log) (issue 20 §1): at 1280 x 800 the
Jacobian's NaN warning said 'EuclideanNorm' beside the node's name, and lesson nets_4's
Hessian of ce w.r.t. logits said 'the rule of p (Mul)' of a node the canvas calls softmax."""
from pathlib import Path

import numpy as np
import pytest

from gradviz import graph, story
from gradviz.graph import OP, VARIABLE, Node, Port
from gradviz.graph.errors import ENGINE_ERRORS, DocumentError
from gradviz.graph.evaluate import higher_order
from gradviz.graph.nan_origin import study_nan_warning
from gradviz.story import studies
from gradviz.story.study_text import study_sections
from lesson_variants import pow_pitfall_doc
from op_types import op_type_names

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def norm_at_zero_doc():
    """‖x‖ at x = 0: its rule x / ‖x‖ is 0 / 0 (the auditor's Jacobian of EuclideanNorm)."""
    doc = graph.Document(title="norm at zero")
    doc.add(Node("v", VARIABLE, value=np.zeros(3, np.float32), label="x"))
    doc.add(Node("n", OP, op="norm", label="length"))
    doc.connect("v", "n")
    doc.targets, doc.sources = [Port("n")], [Port("v")]
    doc.studies = {"jacobian": {}, "hessian": {}, "higher_order": {"order": 2}}
    return doc


def _documents():
    for path in sorted(SAMPLES.glob("*.json")):
        yield path.stem, graph.load(path)
    yield "lesson 14 with pow", pow_pitfall_doc()
    yield "norm at zero", norm_at_zero_doc()


def study_texts(doc):
    """What a reader is told of the studies of `doc`: for every target and source a chooser
    offers, the Jacobian's, the Hessian's and the 2nd derivative's warning (or why it cannot
    be computed), and the studies of `gradviz explain`."""
    texts = []
    targets = [*doc.targets, *(Port(s["target"]) for s in doc.studies.values()
                               if isinstance(s.get("target"), str) and ":" not in s["target"])]
    for t in dict.fromkeys(targets):
        for s in doc.sources:
            for compute in (lambda: studies.jacobian_study(doc, target=t, source=s).problem,
                            lambda: studies.hessian_study(doc, target=t, source=s).warning,
                            lambda: study_nan_warning(doc, "higher_order",
                                                      higher_order(doc, 2, t, s), t, s)):
                try:
                    texts.append(compute())
                except (DocumentError, *ENGINE_ERRORS) as e:
                    texts.append(str(e))
    texts += study_sections(story.build(doc))
    return [t for t in texts if t]


def test_the_documents_meet_nan_where_the_words_matter():
    """The sweep below reads warnings that name a rule: some of its documents have them."""
    warned = [name for name, doc in _documents() if any("holds NaN" in t for t in study_texts(doc))]
    assert {"nets_4_softmax_then_log", "lesson 14 with pow", "norm at zero"} <= set(warned)


@pytest.mark.parametrize("name, doc", list(_documents()), ids=lambda x: x if isinstance(x, str) else "")
def test_no_study_text_names_an_op_type(name, doc):
    found = op_type_names(*study_texts(doc))
    assert not found, found
