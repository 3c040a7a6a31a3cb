"""A document file's outline: its JSON with each tensor's data list counted, not read.

Reading a file's values is most of the time it takes to open (json makes a Python float
of each one: 2-3 s for a 2000 x 2000 tensor), and a file whose declared shapes, sizes or
op shapes are wrong is refused by checks that need no value. The outline lets those checks
run first: a data list whose values can be counted from its text by a few passes in C
(its commas) stands in the outline as a `Counted`; any list whose count those passes cannot
prove (nested brackets, text other than "nan"/"inf", a separator json would refuse) stays
in the outline as JSON, so the checks say what the full read would. The count does not read
the values: where the checks refuse a file, `numbers_read` makes sure json would read each
counted list ('[1.5-3e-2]' counts as one value), else the full read says what is wrong.
"""
import json
import math
import re

import numpy as np

from .tensors import Counted

DATA = re.compile(r'"data"\s*:\s*\[')
SPACE = b" \t\n\r"
WHITESPACE = SPACE.decode()
LEADING_SPACE = re.compile(r"[ \t\n\r]*")
NOT_ONE_LINE = ('"', "[", "{", "\t", "\n", "\r")   # each found by memchr, ~5 ms in 80 MB
CHUNK = 1 << 18   # 256 KB: two boolean arrays of it stay in cache
# Non-finite floats are written as these texts; no other text in a data list is counted.
TEXTS = (b'"nan"', b'"inf"', b'"-inf"')
PLACEHOLDER = "NaN"   # JSON has no NaN: where json meets it, the outline has a Counted


def outline(text):
    """The JSON value of `text` with every data list whose count is proved replaced by a
    Counted, or None when the outline cannot be made exactly (the text is not valid JSON
    outside the data lists, holds a NaN literal of its own, or a list stands where the
    format has no tensor): then only the full read can say what is wrong."""
    pieces, counts, at = [], [], 0
    match = DATA.search(text)
    while match:
        end = text.find("]", match.end())
        if end < 0:
            break   # cut short: the full read says where
        count = _count(text, match.end(), end)
        if count is None:   # kept as JSON
            match = DATA.search(text, match.end())
            continue
        pieces += [text[at:match.end() - 1], PLACEHOLDER]
        counts.append(Counted(count, (text, match.end(), end)))
        at = end + 1
        match = DATA.search(text, at)   # not inside the list: its values are not searched
    pieces.append(text[at:])
    if not counts or any("NaN" in p or "Infinity" in p for p in pieces[::2]):
        return None
    found = iter(counts)
    try:
        obj = json.loads("".join(pieces), parse_constant=lambda _: next(found))
    except (ValueError, RecursionError, StopIteration):
        return None
    if holds_infinity(obj):     # a number too large for a float: the full read names it
        return None
    return obj if _placed(obj) == len(counts) else None


def holds_infinity(obj):
    """Does the JSON value `obj` hold an infinite float? JSON writes none, so it is a number
    too large for a float. Checked once over the whole value, mostly in C: a Python call per
    number, as json read it (fileformat._float), took 2 s of a file of three 1000 x 1000
    tensors."""
    stack = [obj]
    while stack:
        values = stack.pop()
        if not isinstance(values, (list, dict)):    # a bare root: null, a number, a string
            values = [values]
        values = list(values.values()) if isinstance(values, dict) else values
        if math.inf in values or -math.inf in values:
            return True
        if not set(map(type, values)).isdisjoint((list, dict)):
            stack.extend(v for v in values if isinstance(v, (list, dict)))
    return False


def numbers_read(obj):
    """Does json read every counted data list of the outline `obj` as numbers it takes for
    finite floats (or "nan", "inf", "-inf")? The count proves where the commas stand, not
    the values between them: '[x]', '[1:2]' and '[1.5-3e-2]' each count one value, and the
    outline said 'data has 1 value but shape [2, 3] needs 6' of a file json refuses. Asked
    only where the outline refuses a file (0.8 CPU s for 80 MB): opening one costs nothing."""
    return all(_numbers(*counted.span) for counted in _counted(obj))


def _count(text, start=0, end=None):
    """How many values text[start:end], the text between a data list's brackets, holds, or
    None when it does not prove the count: each comma must stand between two values, and
    every quote belong to "nan", "inf" or "-inf".

    A list of millions of values is written as gradviz and json.dumps write it: on one line,
    ", " or "," between values. That form is proved where it stands (`_one_line`, ~0.1 s
    for 80 MB): copying the text and counting its separators pass by pass took 2-3 s."""
    end = len(text) if end is None else end
    start = LEADING_SPACE.match(text, start, end).end()
    while end > start and text[end - 1] in WHITESPACE:   # stripped 4096 at a time, in C
        tail = text[max(start, end - 4096):end]
        end -= len(tail) - len(tail.rstrip(WHITESPACE))
    if start == end:
        return 0
    if all(text.find(c, start, end) < 0 for c in NOT_ONE_LINE):
        count = _one_line(text, start, end)
        if count is not None:
            return count
    return _count_copy(text[start:end])


def _one_line(text, start, end):
    """The count of a stripped span of values, spaces and commas in which every comma is
    between two values and every space follows a comma, else None (`_count_copy` then
    decides: the span may still be proved, as ' 1 , 2', or not). Chunk by chunk: a copy of
    256 KB as bytes, its pairs of neighbours checked by numpy."""
    if text[start] == "," or text[end - 1] == ",":
        return None
    commas = 0
    for at in range(start, end, CHUNK):
        try:   # one character more: the pair across the chunks' border is checked too
            chunk = np.frombuffer(text[at:min(at + CHUNK + 1, end)].encode("ascii"), np.uint8)
        except UnicodeEncodeError:
            return None
        comma, space = chunk == ord(","), chunk == ord(" ")
        if (space[1:] > comma[:-1]).any() or (comma[1:] & (comma[:-1] | space[:-1])).any():
            return None   # ' ' after a value, ',,' or ', ,'
        commas += np.count_nonzero(comma[:CHUNK])
    return commas + 1


def _count_copy(span):
    """`_count` of any span (line breaks, tabs, texts, spaces before commas) by a few
    passes over a copy of its bytes."""
    try:
        data = span.encode("ascii").strip(SPACE)
    except UnicodeEncodeError:
        return None
    if not data:
        return 0
    if b'"' in data:   # each text a value of its own, so '1"nan"' reads as two values
        for t in TEXTS:
            data = data.replace(t, b" 0 ")
        if b'"' in data:
            return None
        data = data.strip(SPACE)
    if b"[" in data or b"{" in data or data[:1] == b"," or data[-1:] == b",":
        return None
    return data.count(b",") + 1 if _separated(data) else None


def _separated(data):
    """Is every comma between two values, and every space next to a comma (a space between
    two values stands for a missing comma)? `data` starts and ends with a value. On one
    line, as gradviz writes a list with texts ('1.0, 0 , 2.0' once "nan" is replaced), it
    takes three passes."""
    if b"\t" in data or b"\n" in data or b"\r" in data:
        data = data.translate(_ONE_SPACE)
    elif data.count(b" ") == data.count(b", "):   # every space follows a comma
        return b",," not in data and b", ," not in data
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    data = data.replace(b" ,", b",").replace(b", ", b",")
    return b" " not in data and b",," not in data


_ONE_SPACE = bytes.maketrans(b"\t\n\r", b"   ")


def _placed(obj):
    """How many Counted stand where the format has a tensor's data (a node's value or
    weight, an output gradient), or -1 when any stands elsewhere."""
    tensors = []
    if isinstance(obj, dict):
        nodes = obj.get("nodes")
        for node in nodes if isinstance(nodes, list) else ():
            if isinstance(node, dict):
                tensors.append(node.get("value"))
                weights = node.get("weights")
                tensors += weights.values() if isinstance(weights, dict) else ()
        gradients = obj.get("output_gradients")
        tensors += gradients.values() if isinstance(gradients, dict) else ()
    placed = sum(isinstance(t, dict) and isinstance(t.get("data"), Counted) for t in tensors)
    return placed if placed == sum(1 for _ in _counted(obj)) else -1


def _counted(obj):
    """Every Counted in the JSON value `obj`."""
    stack = [obj]
    while stack:
        value = stack.pop()
        items = value.values() if isinstance(value, dict) else value
        for item in items:
            if isinstance(item, Counted):
                yield item
            elif isinstance(item, (dict, list)):
                stack.append(item)


LONGEST = 200   # digits of a number's integer part: a longer one may be too large for a float
# A data list as _numbers reads it: its numbers with an integer part of at most LONGEST
# digits and an exponent of at most two digits unless negative. Possessive (`*+`): a list
# of millions of values keeps no backtracking state per value (3 GB and 8 s for 80 MB
# without it, 0.8 s with).
_NUMBER = r'-?(?:0|[1-9][0-9]{0,%d})(?:\.[0-9]+)?(?:[eE](?:-[0-9]+|\+?[0-9]{1,2}))?' % (LONGEST - 1)
_VALUE = rf'[ \t\n\r]*(?:{_NUMBER}|"(?:nan|inf|-inf)")[ \t\n\r]*'
NUMBERS = re.compile(rf"[ \t\n\r]*|{_VALUE}(?:,{_VALUE})*+")


def _numbers(text, start, end):
    """Is every value of the counted data list text[start:end] (its commas proved by
    `_count`) a JSON number, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, that json reads
    as a finite float, or "nan", "inf", "-inf"? An exponent of three digits or more, not
    negative, or an integer part of more than LONGEST digits, may be too large: not proved
    either."""
    return NUMBERS.fullmatch(text, start, end) is not None
