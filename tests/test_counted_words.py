"""A count is written with its noun in the right number everywhere a reader sees one: '1 step',
not '1 steps' (walk-through: the player said '1 steps in the story')."""
import re
from pathlib import Path

import numpy as np
import pytest

import gradviz as gv
from gradviz import graph
from gradviz.engine.errors import counted
from gradviz.graph import DocumentError
from gradviz.story.model import Step, Story

PACKAGE = Path(gv.__file__).resolve().parent
# '{n} steps' in an f-string: a count whose noun does not follow it
BARE = re.compile(r"\{[^{}]*\} (steps|values|elements|frames|nodes|edges|entries|inputs|outputs|"
                  r"gradients|tensors|parameters|leaves|rows|columns|axes|dimensions|examples)\b")
# counts that are never 1 here: a limit, a fan-in's paths, a non-scalar's rows, a too-large size
NEVER_ONE = {
    "graph/tensors.py": "elements, more than the limit",
    "graph/training.py": "parameters; ",
    "graph/fileformat.py": "",
    "engine/tensor.py": "{what} values",
    "graph/budget.py": "",
    "graph/landscape.py": "entries is not computed",
    "engine/errors.py": "elements, ",
    "app/controller.py": "Edit {name} values",     # Undo's 'Edit w values': a name, not a count
    "app/inspector/document_page.py": "nodes selected",
    "app/inspector/tensor_editor.py": "values): too large",
    "app/inspector/node_page.py": "axes: a tensor in a document has at most",
    "app/studies/chain_view.py": "rows, because the target is not a scalar",
    "app/studies/heatmap.py": "entries of this",
    "story/studies.py": '"vector" if n',      # the count where it is not 1 (1 is a vector)
    "app/studies/hessian_view.py": "leaves H + εI",     # the verb 'leaves', not a count
    "render/preview.py": "values, {WRAP} per row",      # a vector wrapped: more than WRAP values
    "story/assemble.py": "with ones over its {n} elements",     # n == 1 is worded above it
    "samples/": "",
}


def test_no_count_is_written_with_a_bare_plural_noun():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = BARE.search(line)
            if m and not any(rel.startswith(where) and text in line for where, text in NEVER_ONE.items()):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_counted():
    assert [counted(n, "step") for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "axis", "axes") == "3 axes"


def test_one_is_singular_in_messages():
    story = Story(steps=[Step(0, "seed", "x")])
    with pytest.raises(IndexError, match=r"the story has 1 step \(1\.\.1"):
        story.index_of_step(2)
    text = graph.dumps(_one_variable())
    with pytest.raises(DocumentError, match="data has 1 value but shape"):
        graph.loads(text.replace('"data": [\n            1.0,\n            2.0\n          ]', '"data": [1.0]')
                    if '"data": [\n' in text else text.replace("[1.0, 2.0]", "[1.0]"))
    with pytest.raises(ValueError, match=r"\(1 element\)"):
        gv.reshape(gv.constant([1.0]), [2])


def _one_variable():
    doc = graph.Document()
    doc.add(graph.Node("x", "variable", value=np.array([1.0, 2.0], np.float32)))
    return doc
