"""The walks (tests marked slow) start first on every pytest-xdist worker: the order
tests/conftest.py gives the collection, as xdist's worksteal deals it in runs."""
import pytest

from scheduling import slow_first


class _Item:
    def __init__(self, name, slow):
        self.name, self.slow = name, slow

    def get_closest_marker(self, name):
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
