"""A node's name (its label) is what every text shows; its id is internal (issue 20 §2).

Every sample is opened with its ids made visible ('zqidN', tests/hidden_ids.py) and every
text the command line and the story write is searched for one: the code view's code,
`gradviz explain`, `gradviz run`'s JSON and warnings, `gradviz train`'s message and log,
each story step's title, caption, rule and operands, and each step's provenance."""
import numpy as np

from gradviz import story as story_module
from gradviz.graph import fileformat
from gradviz.graph.cli_commands import run_command, train_command
from gradviz.graph.codegen import to_python
from gradviz.engine.optimizers import make_optimizer
from gradviz.story.local import provenance
from gradviz.story.text import explain
from hidden_ids import SAMPLES, hide_ids, leaks


def _story_texts(story):
    out = [str(p) for p in story.problems]
    for s in story.steps:
        out += [s.title, s.caption, s.formula or "", s.tensor_name or "",
                " ".join(s.operands or {}), " ".join(map(str, (s.operand_nodes or {}).values())),
                " ".join(getattr(s, "paths", None) or [])]
        if s.kind in ("seed", "contribution", "fan_in") and np.size(s.cotangent):
            explained = provenance(story, s, 0)
            out += [explained.text(), explained.numbers()]
    return out


def test_no_text_of_any_sample_shows_a_node_id(tmp_path):
    found = {}
    for sample in SAMPLES:
        doc = hide_ids(fileformat.load(sample))
        path = tmp_path / sample.name
        fileformat.save(doc, path)
        warned = []
        texts = [to_python(doc), run_command(path, warn=warned.append)[1], *warned]
        story = story_module.build(doc)
        texts += [explain(story), *_story_texts(story)]
        if doc.training:
            log = tmp_path / "losses.csv"
            texts.append(train_command(path, make_optimizer(doc.training["optimizer"]), 1,
                                       out_path=str(tmp_path / "out.json"), log_path=str(log))[1])
            texts.append(log.read_text())
        shown = [hit for text in texts for hit in leaks(text)]
        if shown:
            found[sample.name] = shown
    assert not found, found


# Words of a lesson that are a node's id but are prose, not the id: the lesson introduces
# 'the 5x5 input image x' as its own name; 'a target' and 'a' are English.
PROSE = {("nets_1_conv_transpose", "x"), ("train_4_inverse", "target"), ("nets_6_attention", "a")}


def test_no_lesson_names_a_node_by_its_id():
    """A lesson wrote 'the inner gradient g1' for the node the canvas calls
    t1.gradient(out, x) (g1 is its id): a node named otherwise is named by its name, or by a
    word of its name (filter w's w)."""
    import re
    found = []
    for sample in SAMPLES:
        doc = fileformat.load(sample)
        text = f"{doc.title} {doc.lesson}"
        for nid, node in doc.nodes.items():
            label = node.label or nid
            if label == nid or nid in re.findall(r"\w+", label) \
                    or (sample.stem, nid) in PROSE or nid in {n.label for n in doc.nodes.values()}:
                continue
            if re.search(rf"(?<![\w.]){re.escape(nid)}(?!\w)", text):
                found.append(f"{sample.stem}: '{nid}' for {label}")
    assert not found, found
