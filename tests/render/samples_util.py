"""The shipped samples with their evaluation and story, and a painted image's pixels, for the
render tests."""
from functools import lru_cache
from pathlib import Path

import numpy as np

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
NAMES = sorted(p.stem for p in SAMPLES.glob("*.json"))


@lru_cache(maxsize=None)
def sample(name):
    """(doc, story) of samples/<name>.json; the story carries its evaluation."""
    from gradviz.graph import load
    from gradviz.story import build
    doc = load(SAMPLES / f"{name}.json")
    return doc, build(doc)


def renderer(name, theme="light"):
    from gradviz.render import Renderer
    doc, story = sample(name)
    return Renderer(doc, evaluation=story.evaluation, story=story, theme=theme)


def edge(doc, src, dst, slot=0):
    return next(e for e in doc.edges if e.src.node == src and e.dst.node == dst and e.dst.index == slot)


def image_pixels(image):
    """A 32-bit QImage's pixels as an array (rows, columns, 4 channels), copied."""
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4).copy()
