"""Flatten and rebuild nested structures (dict, list, tuple) as tf.nest does.

Dicts are flattened in sorted key order, like TF, so results come back in the
caller's structure.
"""


def _is_nested(x):
    return isinstance(x, (list, tuple, dict))


def flatten(structure):
    if not _is_nested(structure):
        return [structure]
    out = []
    _flatten_into(structure, out)
    return out


def _flatten_into(structure, out):
    if isinstance(structure, dict):
        items = (structure[k] for k in sorted(structure))
    else:
        items = structure
    for item in items:
        if _is_nested(item):
            _flatten_into(item, out)
        else:
            out.append(item)


def pack_sequence_as(structure, flat):
    if not _is_nested(structure):
        return flat[0]
    packed, used = _pack(structure, list(flat), 0)
    if used != len(flat):
        raise ValueError(f"structure has {counted(used, 'leaf', 'leaves')} but "
                         f"{counted(len(flat), 'value')} {'was' if len(flat) == 1 else 'were'} given")
    return packed


def _pack(structure, flat, i):
    if isinstance(structure, dict):
        result = {}
        for key in sorted(structure):
            value = structure[key]
            if _is_nested(value):
                result[key], i = _pack(value, flat, i)
            else:
                result[key] = flat[i]
                i += 1
        # The caller's key order (and dict type) comes back, whatever order we filled in.
        if type(structure) is dict:
            return {k: result[k] for k in structure}, i
        return type(structure)((k, result[k]) for k in structure), i
    items = []
    for value in structure:
        if _is_nested(value):
            packed, i = _pack(value, flat, i)
            items.append(packed)
        else:
            items.append(flat[i])
            i += 1
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*items), i
    return type(structure)(items), i


def map_structure(fn, structure):
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])
