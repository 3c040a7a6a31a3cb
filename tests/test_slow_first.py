"""The walks (tests marked slow) start first on every pytest-xdist worker: the order
tests/conftest.py gives the collection, as xdist's worksteal deals it in runs."""
import pytest

from scheduling import slow_first


class _Item:
    def __init__(self, name, slow, walk=None):
        self.name, self.slow, self.walk = name, slow, walk

    def get_closest_marker(self, name):
        if name == "walk":
            return pytest.mark.walk(self.walk).mark if self.walk else None
        return pytest.mark.slow.mark if name == "slow" and self.slow else None


def _runs(items, workers):
    """The runs xdist deals `items` in: the first worker len // workers of them, and so on."""
    out, rest = [], list(items)
    for k in range(workers):
        n = len(rest) // (workers - k)
        out.append(rest[:n])
        rest = rest[n:]
    return out


@pytest.mark.parametrize("workers", [2, 3])
def test_each_worker_starts_with_its_share_of_the_walks_and_keeps_the_rest_in_order(workers):
    items = [_Item(f"t{i}", slow=i in (5, 6, 7, 8, 40, 41, 97)) for i in range(100)]
    ordered = slow_first(items, workers)
    assert sorted(i.name for i in ordered) == sorted(i.name for i in items)
    slow = [i.name for i in items if i.slow]
    runs = _runs(ordered, workers)
    heads = [[i.name for i in run if i.slow] for run in runs]
    assert heads == [slow[k::workers] for k in range(workers)]
    for run, head in zip(runs, heads):
        assert [i.name for i in run[:len(head)]] == head       # the walks first
    rest = [i.name for i in ordered if not i.slow]
    assert rest == [i.name for i in items if not i.slow]


def test_one_process_keeps_the_collection_order():
    items = [_Item(f"t{i}", slow=i == 3) for i in range(10)]
    assert slow_first(items, 1) == items


def test_the_tests_sharing_a_walk_start_one_after_another_on_one_worker():
    """The first of them walks, the others read its misses (tests/app/player/shared_walks.py):
    dealt to two workers, each would walk."""
    walks = {3: "presented", 11: "presented", 5: "lessons", 12: "lessons"}
    items = [_Item(f"t{i}", slow=i in (2, 3, 4, 5, 10, 11, 12), walk=walks.get(i)) for i in range(40)]
    runs = _runs(slow_first(items, 2), 2)
    # dealt in turn: t2, (t3 t11), t4, (t5 t12), t10
    heads = [[i.name for i in run if i.slow] for run in runs]
    assert heads == [["t2", "t4", "t10"], ["t3", "t11", "t5", "t12"]]
    for run, head in zip(runs, heads):
        assert [i.name for i in run[:len(head)]] == head       # the walks first
