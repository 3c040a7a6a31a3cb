"""A file whose declared shapes, sizes or op shapes are wrong is refused before its values are
read (issue 20: a 2000 x 2000 tensor whose shape did not fit took 34 s before its message):
the checks that need no value run on the file's outline (graph/skim.py), where each data
list is counted, not read. They say exactly what the full read says; a data list whose
count its text does not prove is read as before."""
import json
import math

import numpy as np
import pytest

from gradviz.graph import DocumentError, fileformat, skim

from graph_samples import SAMPLES

pytestmark = pytest.mark.cpu_independent(
    "counts, refusals' messages and values read from text as json reads them: no arithmetic "
    "is compared")

MARK = 0.918273645   # a value no other part of a document holds


def base():
    """Lesson 'matmul gradient' (a @ b -> c -> reduce_sum) with MARK among a's values."""
    d = json.loads((SAMPLES / "003_matmul_gradient.json").read_text(encoding="utf-8"))
    d["nodes"][0]["value"]["data"][0] = MARK
    return d


def node(d, nid):
    return next(n for n in d["nodes"] if n["id"] == nid)


def wrong_count(d):
    node(d, "b")["value"]["shape"] = [7, 1]


def too_large(d):
    node(d, "b")["value"] = {"dtype": "float64", "shape": [100000, 100000, 100000], "data": []}


def unknown_dtype(d):
    node(d, "b")["value"]["dtype"] = "complex64"


def seed_count(d):
    d["output_gradients"] = {"c": {"dtype": "float32", "shape": [9], "data": [1.0, 2.0]}}


def matmul_shapes(d):
    node(d, "b")["value"] = {"dtype": "float32", "shape": [3], "data": [1.0, 2.0, 3.0]}


def output_too_large(d):
    d["nodes"].append({"id": "big", "kind": "op", "op": "broadcast_to",
                       "attrs": {"shape": [10000, 10000, 2, 2]}})
    d["edges"].append({"from": "a", "to": "big"})


def missing_node(d):
    d["edges"].append({"from": "ghost", "to": "c"})


# (how the file is spoilt, strict): the app (strict=False) opens a file whose op shapes do
# not fit and shows the node in error; `gradviz run` (strict) refuses it
BAD = [(wrong_count, False), (too_large, False), (unknown_dtype, False), (seed_count, False),
       (matmul_shapes, True), (output_too_large, True), (missing_node, True)]


def full_read_error(text, strict, monkeypatch):
    """The message of the read without an outline: every value read, then checked."""
    with monkeypatch.context() as m:
        m.setattr(fileformat, "outline", lambda text: None)
        with pytest.raises(DocumentError) as info:
            fileformat.loads(text, strict=strict)
    return str(info.value)


def spy_on_json(monkeypatch):
    """The texts json reads, in order."""
    read, loads = [], json.loads

    def spy(text, **kw):
        read.append(text)
        return loads(text, **kw)
    monkeypatch.setattr(fileformat.json, "loads", spy)
    return read


@pytest.mark.parametrize("spoil,strict", BAD, ids=[f.__name__ for f, _ in BAD])
@pytest.mark.parametrize("indent", [None, 2])
def test_a_file_whose_shapes_are_wrong_is_refused_before_its_values_are_read(
        spoil, strict, indent, monkeypatch):
    d = base()
    spoil(d)
    text = json.dumps(d, indent=indent)
    expected = full_read_error(text, strict, monkeypatch)
    read = spy_on_json(monkeypatch)
    with pytest.raises(DocumentError) as info:
        fileformat.loads(text, strict=strict)
    assert str(info.value) == expected
    assert read and not any(repr(MARK) in t for t in read), "a's values were read"


def test_the_file_s_total_of_values_is_checked_before_its_values_are_read(monkeypatch):
    text = json.dumps(base())
    monkeypatch.setattr(fileformat, "MAX_ELEMENTS", 9)   # the sample holds 4 + 6 values
    expected = full_read_error(text, False, monkeypatch)
    assert "more than 9 values in total" in expected
    read = spy_on_json(monkeypatch)
    with pytest.raises(DocumentError, match="more than 9 values in total"):
        fileformat.loads(text, strict=False)
    assert not any(repr(MARK) in t for t in read)


def test_a_file_that_opens_holds_its_values_not_stand_ins():
    d = base()
    matmul_shapes(d)   # the app opens it, node c in error
    doc = fileformat.loads(json.dumps(d), strict=False)
    a = doc.nodes["a"].value
    assert a.flags.writeable and a.strides != (0, 0)
    np.testing.assert_array_equal(a.reshape(-1), np.float32(base()["nodes"][0]["value"]["data"]))
    np.testing.assert_array_equal(doc.nodes["b"].value, np.float32([1, 2, 3]))


# The text between a data list's brackets, and the count it proves (None: not proved, so
# the list is read as JSON and json's own message, if any, is said).
SPANS = [("1.5, 2, -3e-2", 3), ("1,2,3", 3), ("\n  1,\n  2,\n  3\n", 3), (" 1 , 2 ,3 ", 3),
         ("", 0), ("  \n", 0), ('"nan", "inf", "-inf", 1', 4), ("true, false", 2),
         ("1 2, 3", None), ("1\n2", None), ("1,,2", None), ("1, , 2", None), (",1", None),
         ("1,", None), ('"a,b"', None), ('"nan""inf"', None), ('1"nan"', None),
         ('"na\\u006e"', None), ("[1], 2", None), ("1, {}", None), ("1, 2é", None)]


@pytest.mark.parametrize("span,count", SPANS)
def test_a_data_list_is_counted_only_where_its_text_proves_the_count(span, count):
    assert skim._count(span) == count


@pytest.mark.parametrize("span", [s for s, _ in SPANS])
def test_whatever_a_data_list_holds_the_message_is_the_full_read_s(span, monkeypatch):
    d = base()
    data = json.dumps(node(d, "b")["value"]["data"])
    assert json.dumps(d).count(data) == 1
    text = json.dumps(d).replace(data, f"[{span}]")
    expected = full_read_error(text, True, monkeypatch)   # b holds 6 values, none of these
    with pytest.raises(DocumentError) as info:
        fileformat.loads(text)
    assert str(info.value) == expected


def test_a_data_list_where_the_format_has_no_tensor_is_read_as_json(monkeypatch):
    d = base()
    d["studies"] = {"jacobian": {"data": [1, 2, 3]}}
    text = json.dumps(d)
    assert skim.outline(text) is None
    expected = full_read_error(text, True, monkeypatch)
    assert "unknown key 'data'" in expected
    with pytest.raises(DocumentError) as info:
        fileformat.loads(text)
    assert str(info.value) == expected


def counted_by_copy(span):
    """skim._count as it was before it proved one-line lists in place (a copy of its bytes
    and a few passes over them): the reference the faster count must agree with."""
    try:
        data = span.encode("ascii").strip(b" \t\n\r")
    except UnicodeEncodeError:
        return None
    if not data:
        return 0
    if b'"' in data:
        for t in (b'"nan"', b'"inf"', b'"-inf"'):
            data = data.replace(t, b" 0 ")
        if b'"' in data:
            return None
        data = data.strip(b" \t\n\r")
    if b"[" in data or b"{" in data or data[:1] == b"," or data[-1:] == b",":
        return None
    data = data.translate(bytes.maketrans(b"\t\n\r", b"   "))
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    data = data.replace(b" ,", b",").replace(b", ", b",")
    return data.count(b",") + 1 if b" " not in data and b",," not in data else None


TOKENS = ["1.5", "-3e-2", "7", "true", '"nan"', '"-inf"', '"a"', "[1]", "{}", "é", "x"]
GAPS = [", ", ",", " , ", ",,", ", ,", " ", "  ", "\t", ",\n  ", "\r\n", ", \t", ""]


def random_spans(seed, n):
    """Spans of values and gaps, mostly as gradviz writes them (', '), with odd gaps,
    texts and edges at random places."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        parts = [rng.choice(GAPS[:5] + [" ", ""]) if rng.random() < 0.3 else ""]
        odd = rng.random() < 0.5
        for i in range(int(rng.integers(1, 12))):
            parts.append(rng.choice(TOKENS) if odd and rng.random() < 0.2 else TOKENS[i % 3])
            parts.append(rng.choice(GAPS) if odd and rng.random() < 0.3 else ", ")
        parts[-1] = rng.choice([" ", "", "\n", ","]) if odd else ""
        yield "".join(parts)


# Spans that meet the one-line proof's edges: chunk borders (CHUNK 4 puts one every four
# characters), tabs and line breaks, texts, one value, only spaces.
EDGES = ["1, 2, 3, 4, 5, 6", "12, 3", "123, 4", "1234, 5", "1,2,3,4,5,6", "1, 2,, 3",
         "1, 2, , 3", "123 , 4", "1 2, 3", "1234 5678", "1,\t2", "1,\n2", "\t1, 2\n",
         '"nan", 1', '1, "inf"', "7", " 7 ", "1.25e-10", " " * 11, ",", " , ", "1, 2,",
         ", 1", "12345é", "1, 2é"]


@pytest.mark.parametrize("chunk", [4, 5, skim.CHUNK])
def test_a_one_line_list_is_counted_as_by_a_copy_of_its_bytes(chunk, monkeypatch):
    monkeypatch.setattr(skim, "CHUNK", chunk)
    for span in EDGES + list(random_spans(chunk, 400)):
        expected = counted_by_copy(span)
        assert skim._count(span) == expected, span
        around = f'"data": [{span}], "x": [ 1 ,'   # counted where it stands in a file
        assert skim._count(around, 9, 9 + len(span)) == expected, span
        if expected is not None and json_length(span) is not None:
            assert expected == json_length(span), span


def json_length(span):
    """How many values json reads in the list, or None where it refuses it (values the
    count takes as one, '1.5-3e-2', are refused by the full read, which then speaks)."""
    try:
        return len(json.loads(f"[{span}]"))
    except ValueError:
        return None


def test_a_long_list_s_chunk_borders_fall_everywhere_in_its_separators(monkeypatch):
    span = ", ".join(["0.1", "22.5", "-3e-07"] * 40)
    for chunk in range(2, 12):
        monkeypatch.setattr(skim, "CHUNK", chunk)
        assert skim._count(span) == 120
        assert skim._count(span.replace(", ", ",")) == 120
        for at in range(5, 40):   # a fault at every place against the borders
            for fault in (",", ", ,", " "):
                spoilt = span[:at] + fault + span[at:]
                assert skim._count(spoilt) == counted_by_copy(spoilt), (chunk, at, fault)


# Data lists whose commas _count proves but whose values json refuses, or reads as no
# finite number: counted as one value each, '[x]' was refused with 'data has 1 value but
# shape [2, 3] needs 6' where the full read says the file is not valid JSON.
NOT_NUMBERS = ["x", "1:2", "1.5-3e-2", "1.2.3", "1e-5e5", "1e5.5", "01", "-01", "0.5, .5",
               "5.", "+1", "--1", "1e", "1e+", "-", "NaN", "1, -Infinity", "true, false",
               "null", "1e999", "1" * 400 + ".0", '"nan", 1-2', "1,\n 2x"]
NUMBERS = ["0, -0, 0.5, 10, -0e5, 1E-05, 2.5e+16, 1e-400", '"nan", -1e-05', "1,\n  2.5,\t3"]


def json_numbers(span):
    """Does json read every value of the list as a finite number, or as "nan", "inf",
    "-inf"?"""
    try:
        values = json.loads(f"[{span}]", parse_constant=float)
    except ValueError:
        return False
    return all(v in ("nan", "inf", "-inf") if isinstance(v, str) else
               type(v) is int or type(v) is float and math.isfinite(v) for v in values)


@pytest.mark.parametrize("span", NOT_NUMBERS + NUMBERS)
def test_a_refusal_by_the_count_of_a_list_json_refuses_is_the_full_read_s(span, monkeypatch):
    assert skim._count(span) is not None           # its commas are proved
    assert skim._numbers(span, 0, len(span)) == json_numbers(span) == (span in NUMBERS)
    d = base()
    data = json.dumps(node(d, "b")["value"]["data"])
    text = json.dumps(d).replace(data, f"[{span}]")
    expected = full_read_error(text, True, monkeypatch)   # b's shape needs 6 values
    with pytest.raises(DocumentError) as info:
        fileformat.loads(text)
    assert str(info.value) == expected


def test_an_exponent_that_may_be_too_large_is_no_proof():
    """Three digits, not negative, or more than LONGEST bytes: the full read decides."""
    for span in ("1e100", "1e+308", "1" * (skim.LONGEST + 1)):
        assert json_numbers(span) and not skim._numbers(span, 0, len(span))


NUMBER_TOKENS = ["1.5", "-3e-2", "7", "0", "-0", "0.25", "1e-05", "1e+16", "12E3", '"nan"',
                 "01", "-01", "1.2.3", "1e5e5", ".5", "5.", "+1", "--1", "1-2", "x", "true",
                 "1e999", "NaN", "1:2", "0e5", "00", "-", "e5", "1e", "1e-", "1e+"]


@pytest.mark.parametrize("seed", [3, 4, 5, 7, 1 << 18])
def test_the_numbers_are_read_as_json_reads_them(seed):
    rng = np.random.default_rng(seed)
    for _ in range(300):
        span = rng.choice([", ", ",", " , ", ",\n  "]).join(
            rng.choice(NUMBER_TOKENS) if rng.random() < 0.3 else NUMBER_TOKENS[i % 10]
            for i in range(int(rng.integers(1, 12))))
        if skim._count(span) is not None:
            assert skim._numbers(span, 0, len(span)) == json_numbers(span), span
        around = f'"data": [{span}], "x": [ 1 ,'   # read where it stands in a file
        assert skim._numbers(around, 9, 9 + len(span)) == skim._numbers(span, 0, len(span))


def test_a_large_refused_file_of_numbers_keeps_its_refusal():
    """300,000 numbers as json.dumps writes them, in a shape they do not fill: refused by
    the count, its numbers read by one regular expression, not by json."""
    rng = np.random.default_rng(0)
    values = rng.normal(size=300_000) * 10.0 ** rng.integers(-30, 30, 300_000)
    d = base()
    node(d, "b")["value"] = {"dtype": "float64", "shape": [7], "data": values.tolist()}
    text = json.dumps(d)
    assert "e-" in text and "e+" in text and len(text) > 20 * skim.CHUNK
    with pytest.raises(DocumentError, match="data has 300000 values but shape"):
        fileformat.loads(text)
    middle = text.index(", ", len(text) // 2) + 2     # a value far into the list
    spoilt = text[:middle] + "x" + text[middle:]
    assert len(node(skim.outline(spoilt), "b")["value"]["data"]) == 300_000   # counted
    with pytest.raises(DocumentError, match="not valid JSON"):
        fileformat.loads(spoilt)
