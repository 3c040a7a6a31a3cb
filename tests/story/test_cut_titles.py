"""A cut's title says in words what is cut (issue 20 §1): lesson 10 step 6 read
'Cut: y_sq_stopped ✕ y_sq', and '✕' reads as a multiplication beside lesson 8's
'Cut: y_sq not recorded'. Every kind of cut title is words between the user's names."""
import re
from pathlib import Path

import pytest

from gradviz import story
from gradviz.graph import load

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.json"))
WORDS = re.compile(r"^Cut: (.+) (?:passes no gradient to .+|not recorded)$")


def _cut_titles():
    for path in SAMPLES:
        for step in story.build(load(path)).of_kind("cut"):
            yield path.stem, step.index + 1, step.title


CUTS = list(_cut_titles())


def test_samples_have_both_kinds_of_cut():
    titles = " ".join(t for *_, t in CUTS)
    assert "passes no gradient to" in titles and "not recorded" in titles


@pytest.mark.parametrize("stem,index,title", CUTS)
def test_a_cut_title_is_words_between_names(stem, index, title):
    assert not re.search(r"[×✕⊗·*]", title), (stem, index, title)
    assert WORDS.match(title), (stem, index, title)
