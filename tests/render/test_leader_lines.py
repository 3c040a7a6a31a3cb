"""tests/leader_lines.py, the check the overlay tests run on every step's leaders, finds what
it is about: the rule card's leader may touch its own card where it ends, at the port, and
nothing else there. It let anything within TIP of the tip pass (a port's name, another card)."""
from types import SimpleNamespace

from PySide6.QtCore import QLineF, QPointF, QRectF

from leader_lines import TIP, leader_crossings

OWN = QRectF(100, 0, 80, 60)       # the step's card, its leader ending at its port (100, 30)


class Picture:
    """A renderer's answers for one step: the cards, the texts outside them, the leader."""

    def __init__(self, path, cards=(), texts=(), labels=(), label_leaders=()):
        self.cards = {"own": OWN, **dict(cards)}
        self.doc = SimpleNamespace(nodes={n: SimpleNamespace(label=n) for n in self.cards})
        self.texts, self.path = list(texts), [QPointF(*p) for p in path]
        self.labels, self.label_leaders = list(labels), list(label_leaders)

    def rect(self, n):
        return self.cards[n]

    def port_labels(self, n):
        return [(rect, port, None) for node, port, rect in self.texts if node == n]

    def badges(self, n):
        return []

    def problem_rects(self):
        return []

    def label_rects(self, step):
        return self.labels

    def leader_path(self, step):
        return self.path

    def pill_leaders(self, step):
        return self.label_leaders


STEP = SimpleNamespace(node="own")
NEAR = TIP / 2       # nearer the tip than TIP


def test_the_rule_cards_leader_may_end_on_its_own_card():
    into = Picture([(0, 30), (50, 30), (101 + NEAR, 30)])
    assert leader_crossings(into, STEP) == []


def test_a_text_or_another_card_at_the_tip_is_crossed():
    name = QRectF(100 - NEAR, 25, 0.5, 10)        # a port's name beside the port
    assert leader_crossings(Picture([(0, 30), (100, 30)], texts=[("own", "a", name)]), STEP) \
        == [("the rule card's leader", "own's port name a")]
    other = {"other": QRectF(99 - NEAR, -1, 43, 32)}    # above the port, its corner at the tip
    assert leader_crossings(Picture([(0, 30), (100, 30)], cards=other), STEP) \
        == [("the rule card's leader", "card other")]
    label = QRectF(100 - NEAR, 28, 10, 4)
    assert leader_crossings(Picture([(0, 30), (100, 30)], labels=[("cotangent (2,)", label)]), STEP) \
        == [("the rule card's leader", "cotangent (2,)")]


def test_its_own_card_before_the_tip_is_crossed():
    through = Picture([(140, 80), (140, 40), (101 + NEAR, 30)])     # up through its own card
    assert set(leader_crossings(through, STEP)) == {("the rule card's leader", "card own")}


def test_a_labels_leader_crosses_a_text_up_to_its_end():
    name = QRectF(200.5, 95, 0.5, 10)     # a port name at its very end
    leader = ("cotangent (3,)", QLineF(300, 100, 200, 100))
    assert leader_crossings(Picture([], texts=[("own", "b", name)], label_leaders=[leader]), STEP) \
        == [("cotangent (3,)'s leader", "own's port name b")]
