"""The order tests run in under pytest-xdist (tests/conftest.py applies it). A module of its
own, not conftest.py: a test importing `conftest` gets whichever conftest.py pytest loaded
last under that name (tests/render's in a whole run)."""


def slow_first(items, workers):
    """`items` in the order that starts the tests marked slow (the walks over every sample,
    a minute or more each) first on every pytest-xdist worker, dealt in turn. xdist's
    worksteal gives each of `workers` a run of the collection (the first worker the first
    len // workers items, and so on) and an idle worker takes the end of another's queue,
    but not the test it runs: a walk that starts last runs alone while the other core idles
    (the walks all lay in the first worker's run, tests/app, behind 900 quicker tests).
    Tests marked walk(name) share one walk (the first walks, the others read its misses):
    they are dealt together, one after another, so that one worker walks once."""
    slow = [item for item in items if item.get_closest_marker("slow")]
    if workers < 2 or not slow:
        return items
    rest = [item for item in items if not item.get_closest_marker("slow")]
    deals, sharing = [], {}        # what is dealt in turn: a test, or the tests sharing a walk
    for item in slow:
        walk = item.get_closest_marker("walk")
        if walk is None:
            deals.append([item])
        elif walk.args[0] in sharing:
            sharing[walk.args[0]].append(item)
        else:
            sharing[walk.args[0]] = [item]
            deals.append(sharing[walk.args[0]])
    out, taken = [], 0
    for k in range(workers):
        hand = [item for deal in deals[k::workers] for item in deal]
        run = (len(items) - len(out)) // (workers - k)      # as xdist deals the collection
        more = max(run - len(hand), 0)
        out += hand + rest[taken:taken + more]
        taken += more
    return out + rest[taken:]
