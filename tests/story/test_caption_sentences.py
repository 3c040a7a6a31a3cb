"""A step's caption is a sentence: one that opens with a described tensor starts with a
capital ('The relu grad for ∂out/∂(layer's matmul) inside t1.gradient(out, x) receives …'; an
auditor read 'the multiply for ∂y/∂xx …' in presentation), one that opens with the user's
name keeps the name's case (x, tf_t, layer2's elu)."""
from pathlib import Path

import pytest

from gradviz import graph, story

SAMPLES = sorted((Path(__file__).parents[2] / "gradviz" / "samples").glob("*.json"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_caption_starts_as_a_sentence(path):
    doc = graph.load(path)
    names = sorted({n.label or n.id for n in doc.nodes.values()}, key=len, reverse=True)
    for step in story.build(doc).steps:
        caption = step.caption or ""
        if not caption or not caption[0].islower():
            continue
        assert any(caption.startswith(name) for name in names), (step.index, caption[:80])
