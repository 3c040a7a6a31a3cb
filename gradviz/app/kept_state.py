"""Is a view's state the one it was drawn for? A view keeps the state its last costly work
was done for and skips the work while nothing changed.

A state is a pair: the objects it weighs, compared by identity (a document, a renderer, a
matrix: replaced when they change, never changed in place, and too costly to compare by
value), and small values, compared by value (a size, an index, a zoom).
"""


def unchanged(kept, now):
    """Is `now` the state `kept` recorded: the same objects, equal values? (None: no state kept.)"""
    if kept is None:
        return False
    (kept_objects, kept_values), (objects, values) = kept, now
    return (len(kept_objects) == len(objects) and all(a is b for a, b in zip(kept_objects, objects))
            and kept_values == values)
