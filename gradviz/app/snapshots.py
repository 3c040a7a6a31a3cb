"""Structural snapshots of a document, for undo and for telling what an edit changed.

A snapshot copies every container and node record of a Document but shares its
tensors: the editor replaces a tensor, it never writes into one, and a snapshot
marks the tensors it shares read-only so that nobody can. Sharing is therefore as
exact as a deep copy, and a 100-node document snapshots in well under a millisecond.
"""
import copy
import dataclasses
import operator

import numpy as np

_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, np.generic)


def _frozen(array):
    if array.flags.writeable:
        array.flags.writeable = False
    return array


def copy_plain(value):
    """A copy of `value` that shares only what cannot change: numbers, strings, frozen
    dataclasses (Port, Edge) and tensors (made read-only)."""
    kind = type(value)
    if kind in _SHARED:
        return value
    copier = _COPIERS.get(kind)
    if copier is None:
        _learn(kind, value)
        return copy_plain(value)
    return copier(value)


def _learn(kind, value):
    """Decide once per type, not per value (a 100-node document holds over a thousand
    values of a dozen types), whether copy_plain shares values of type `kind` or how it
    copies them. Records are dataclasses with a __dict__: frozen ones are shared, others
    copied field by field (so a field added later is copied too); anything else unknown
    is deep-copied."""
    record = dataclasses.is_dataclass(kind) and hasattr(value, "__dict__")
    if isinstance(value, _IMMUTABLE) or record and kind.__dataclass_params__.frozen:
        _SHARED.add(kind)
    else:
        _COPIERS[kind] = _copy_record if record else copy.deepcopy


# Most values are shared (strings, numbers, None, Ports, Edges): the copiers below pass
# them over without calling copy_plain, a whole list or tuple at once in C when it holds
# nothing else (edges, targets, a position).
def _copy_list(value):
    if _SHARED.issuperset(map(type, value)):
        return value.copy()
    return [copy_plain(v) for v in value]


def _copy_tuple(value):
    if _SHARED.issuperset(map(type, value)):
        return value
    items = tuple(map(copy_plain, value))
    return value if all(map(operator.is_, items, value)) else items


def _copy_dict(value):
    clone = value.copy()  # in C; a loop then copies only what cannot be shared
    for k, v in clone.items():
        if type(v) not in _SHARED:
            clone[k] = copy_plain(v)
    return clone


def _copy_record(value):
    clone = object.__new__(type(value))
    clone.__dict__.update(_copy_dict(value.__dict__))  # not `=`: no __setattr__ runs
    return clone


_SHARED = {type(None), bool, int, float, str}  # and each type _learn finds immutable
_COPIERS = {list: _copy_list, dict: _copy_dict, tuple: _copy_tuple, np.ndarray: _frozen}


def snapshot(doc):
    """A Document equal to `doc` that later edits of `doc` leave untouched."""
    return copy_plain(doc)


def _same(a, b):
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False  # tensors are replaced, never rewritten: another object is another value
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # containers holding arrays
        return False


# What a node's card and the engine never read: moving or renaming a node changes no number.
_PRESENTATION = {"position", "label"}


def _alike(a, b, same, ignored):
    """Documents `a` and `b` hold the same nodes, edges, roles, tape settings and studies,
    every tensor and node field (but those in `ignored`) alike by `same`."""
    if list(a.nodes) != list(b.nodes) or a.edges != b.edges or a.targets != b.targets \
            or a.sources != b.sources or not _same(a.tape, b.tape) \
            or not _same(a.studies, b.studies) \
            or a.output_gradients.keys() != b.output_gradients.keys() \
            or not all(same(v, b.output_gradients[p]) for p, v in a.output_gradients.items()):
        return False
    for nid, node in a.nodes.items():
        other = b.nodes[nid].__dict__
        for key, value in node.__dict__.items():
            theirs = other.get(key)  # snapshots share most fields; `same` holds for `is`
            if value is not theirs and key not in ignored and not same(value, theirs):
                return False
    return True


def same_for_engine(a, b):
    """True when documents `a` and `b` evaluate identically: they may differ only in
    positions, labels, the title and the lesson, which the engine never reads (only their
    own text checks can differ)."""
    return _alike(a, b, _same, _PRESENTATION)


def same_for_engine_but(a, b, tensors_alike):
    """same_for_engine, where two distinct tensors count as the same too when
    `tensors_alike(tensor of a, tensor of b)` says so (a landscape's slice: they may
    differ in the two entries it is drawn over)."""
    def same(u, v):
        if type(u) is dict and type(v) is dict:      # a layer's weights
            return u.keys() == v.keys() and all(same(t, v[k]) for k, t in u.items())
        return _same(u, v) or isinstance(u, np.ndarray) and isinstance(v, np.ndarray) \
            and bool(tensors_alike(u, v))
    return _alike(a, b, same, _PRESENTATION)


def same_names(a, b):
    """True when the story's words would be the same: the title and every node's label."""
    return a.title == b.title and all(n.label == b.nodes[nid].label for nid, n in a.nodes.items())


def _same_form(a, b):
    """Equal, or tensors of the same shape and dtype (dicts of them: a layer's weights)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype
    if type(a) is dict and type(b) is dict and a.keys() == b.keys():
        return all(_same_form(v, b[k]) for k, v in a.items())
    return _same(a, b)


def changed_attributes(a, b):
    """The ids of the nodes whose attributes differ between documents `a` and `b`, when
    nothing else does but their tensors' numbers (not shapes or dtypes) and their nodes'
    positions; None when anything else differs. An empty set: `a` and `b` check and plan
    identically (graph.evaluate.checks_hold tells for a set of nodes)."""
    if a.title != b.title or a.lesson != b.lesson or not _alike(a, b, _same_form, {"position", "attrs"}):
        return None
    return {nid for nid, node in a.nodes.items() if not _same(node.attrs, b.nodes[nid].attrs)}
