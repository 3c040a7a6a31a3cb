"""Issue 20 §1: a lesson's text names nodes as the canvas does. Lesson 7 said 'The network's
output y feeds a function F' where no node is y (the node is net); every call the lesson
text writes, tape.gradient(target, sources), names a node (its label, else its id) or a
node's port ('net.kernel'), never a name the canvas does not show."""
import re

import pytest

from gradviz import graph
from gradviz.graph.catalog import port_name
from graph_samples import SAMPLES

CALL = re.compile(r"\.gradient\(([^()]*)\)")
NAME = re.compile(r"[A-Za-z_][\w.]*")


def _lessons():
    for path in sorted(SAMPLES.glob("*.json")):
        try:
            doc = graph.load(path)
        except graph.DocumentError:
            continue
        if CALL.search(doc.lesson):
            yield pytest.param(doc, id=path.stem)


@pytest.mark.parametrize("doc", list(_lessons()))
def test_every_name_a_lessons_gradient_call_writes_is_on_the_canvas(doc):
    shown = {n.label or n.id for n in doc.nodes.values()}
    shown |= {port_name(doc, graph.Port(nid, k)) for nid in doc.nodes for k in range(4)}
    for call in CALL.finditer(doc.lesson):
        for arg in call.group(1).split(","):
            arg = arg.strip(" []")
            if "=" in arg or not NAME.fullmatch(arg):   # a keyword argument, an expression
                continue
            assert arg in shown, f"{call.group(0)!r} names {arg!r}, no node of {sorted(shown)}"


def test_the_black_box_lesson_names_net_not_y():
    doc = graph.load(SAMPLES / "002_black_box_gradient.json")
    assert "y" not in {n.label or n.id for n in doc.nodes.values()}
    assert not re.search(r"\by\b", doc.lesson)
    assert "output net feeds a function F" in doc.lesson
