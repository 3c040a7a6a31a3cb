"""Snapshots (app/snapshots.py) copy every mutable container, at any depth and in any
field, even fields and types the copier was not written for; they share only tensors
(made read-only), frozen dataclasses (Port, Edge) and immutable values."""
import dataclasses

import numpy as np
import pytest

from gradviz.app.snapshots import snapshot
from gradviz.graph.document import CONSTANT, LAYER, OP, Document, Edge, Node, Port, TapeSettings

SHAREABLE = (type(None), bool, int, float, str, np.generic, Port, Edge)


@dataclasses.dataclass
class TaggedNode(Node):
    """A Node subclass with a field of its own."""

    tags: list = dataclasses.field(default_factory=list)


class Trail(list):
    """A list subclass: not a plain list, so the generic (deep) copy takes it."""


class Box:
    """Neither a dataclass nor a container the copier knows."""

    def __init__(self, items):
        self.items = items

    def __eq__(self, other):
        return type(other) is Box and other.items == self.items


def busy_document():
    """Every field of Document, Node and TapeSettings set, containers nested in attrs and
    studies, plus a Node subclass, unknown types and a field Document does not declare."""
    doc = Document(title="busy", lesson="a\nlesson")
    doc.add(Node("x", CONSTANT, value=np.arange(4, dtype=np.float32).reshape(2, 2),
                 watched=True, position=(1.0, 2.0)))
    doc.add(Node("d", LAYER, op="Dense", label="dense", trainable=False, position=(3.0, 4.0),
                 attrs={"units": 3, "sizes": [[1, 2], [3]], "spec": {"axes": [0, 1]},
                        "pair": ([4], 5), "shape": (2, 2), "scale": np.float32(0.5)},
                 weights={"kernel": np.ones((2, 3), np.float32), "bias": None}))
    doc.add(TaggedNode("t", OP, op="identity", tags=[["a"]],
                       attrs={"set": {1, 2}, "box": Box([1]), "trail": Trail([[1]])}))
    doc.add(Node("loss", OP, op="reduce_sum", attrs={"axis": None, "keepdims": False}))
    doc.connect("x", "d")
    doc.connect("d", "t")
    doc.connect("t", "loss")
    doc.targets = [Port("loss")]
    doc.sources = [Port("x")]
    doc.output_gradients = {Port("loss"): np.ones((), np.float32)}
    doc.tape = TapeSettings(persistent=True, stop_recording=["d"])
    doc.studies = {"jacobian": {"target": "loss", "sources": ["x"]}, "hessian": {}}
    doc.notes = {"todo": [["check"]]}  # as if a field were added to Document later
    return doc


def is_record(value):
    return dataclasses.is_dataclass(value) and not type(value).__dataclass_params__.frozen


def assert_copied(original, copied, path="doc"):
    """`copied` equals `original` with every mutable container, at any depth, a new one;
    tensors are the same objects, read-only."""
    assert type(copied) is type(original), path
    if isinstance(original, np.ndarray):
        assert copied is original and not original.flags.writeable, path
    elif isinstance(original, (list, tuple)):
        assert isinstance(original, tuple) or copied is not original, path
        assert len(copied) == len(original), path
        for i, (a, b) in enumerate(zip(original, copied)):
            assert_copied(a, b, f"{path}[{i}]")
    elif isinstance(original, dict) or is_record(original):
        mine, theirs = ((original, copied) if isinstance(original, dict)
                        else (vars(original), vars(copied)))
        assert copied is not original and mine is not theirs and list(theirs) == list(mine), path
        for key, value in mine.items():
            assert_copied(value, theirs[key], f"{path}.{key}")
    else:
        assert copied == original, path
        assert isinstance(original, SHAREABLE) or copied is not original, path


def content(value):
    """`value` as nested plain data, to compare documents by value."""
    if isinstance(value, np.ndarray):
        return ("tensor", value.dtype.str, value.tolist())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [content(v) for v in value])
    if isinstance(value, dict):
        return {k: content(v) for k, v in value.items()}
    if is_record(value):
        return (type(value).__name__, content(vars(value)))
    if isinstance(value, Box):
        return ("Box", content(value.items))
    return value


def test_a_snapshot_copies_every_container_and_shares_tensors_read_only():
    doc = busy_document()
    snap = snapshot(doc)
    assert_copied(doc, snap)
    assert_copied(snap, snapshot(snap))  # undo restores from snapshots
    assert type(snap.nodes["t"]) is TaggedNode and snap.notes == {"todo": [["check"]]}
    for tensor in (doc.nodes["x"].value, doc.nodes["d"].weights["kernel"],
                   doc.output_gradients[Port("loss")]):
        with pytest.raises(ValueError):
            tensor[...] = 7.0
    assert content(snap) == content(busy_document())


def test_edits_inside_a_snapshot_leave_its_document_alone():
    doc = busy_document()
    snap = snapshot(doc)
    snap.nodes["d"].attrs["sizes"][0].append(99)
    snap.nodes["d"].attrs["pair"][0].append(6)
    snap.nodes["d"].attrs["spec"]["axes"].clear()
    snap.nodes["d"].weights["bias"] = np.zeros(3, np.float32)
    snap.nodes["t"].tags[0].append("b")
    snap.nodes["t"].attrs["set"].add(3)
    snap.nodes["t"].attrs["box"].items.append(2)
    snap.nodes["t"].attrs["trail"][0].append(2)
    snap.studies["jacobian"]["sources"].append("d")
    snap.tape.stop_recording.clear()
    snap.notes["todo"][0].append("done")
    snap.edges.pop()
    snap.targets.clear()
    assert content(doc) == content(busy_document())


def test_edits_of_the_document_leave_its_snapshot_alone():
    doc = busy_document()
    snap = snapshot(doc)
    doc.nodes["x"].position = (9.0, 9.0)
    doc.nodes["x"].value = np.zeros((2, 2), np.float32)
    doc.nodes["d"].attrs["sizes"][1].append(7)
    doc.nodes["d"].attrs["pair"][0].clear()
    doc.nodes["d"].weights["kernel"] = np.zeros((2, 3), np.float32)
    doc.nodes["d"].weights["extra"] = None
    doc.nodes["t"].tags.append(["c"])
    doc.nodes["t"].attrs["trail"].append([3])
    doc.edges.pop()
    doc.targets.clear()
    doc.sources.append(Port("d"))
    doc.output_gradients.clear()
    doc.studies["hessian"]["target"] = "loss"
    doc.tape.stop_recording.append("t")
    doc.notes["todo"].clear()
    doc.remove("x")
    assert content(snap) == content(busy_document())
