"""The saved file names nodes as the canvas does (issue 20 §2), in the real window: a rename,
a save, its undo, the autosave and a reopen. The ids in memory never change on a save, so
nothing the window keys by id (cards, selection, the story player, studies) is disturbed;
the file and everything read back from it use the user's names."""
import json

import numpy as np
import pytest
from PySide6.QtWidgets import QMessageBox

from gradviz.graph import evaluate, fileformat
from gradviz.graph.document import Port

from test_recovery import crash

pytestmark = pytest.mark.numeric

Button = QMessageBox.StandardButton


def file_ids(path):
    obj = json.loads(path.read_text(encoding="utf-8"))
    return [n["id"] for n in obj["nodes"]], obj


def shows_the_engine(w):
    """Every card shows the engine's numbers for its node (keyed by the ids in memory)."""
    ev = evaluate(w.controller.doc)
    assert set(w.canvas.node_items) == set(w.controller.doc.nodes)
    for nid, item in w.canvas.node_items.items():
        np.testing.assert_array_equal(item.value, ev.values[Port(nid)])
        if Port(nid) in ev.gradients:
            np.testing.assert_array_equal(item.gradient, ev.gradients[Port(nid)])


def test_rename_save_undo_and_reopen_keep_the_users_names(make_window, labelled_mlp, tmp_path,
                                                          app_env, qtbot):
    w = make_window()
    c = w.controller
    c.set_document(labelled_mlp())
    c.set_field("relu4", "label", "hidden layer")              # the undoable rename
    path = tmp_path / "mlp.gradviz.json"
    assert w.save_as(str(path))
    ids, obj = file_ids(path)
    assert ids == ["x", "W1", "matmul3", "hidden_layer", "W2", "matmul6", "reduce_sum7"]
    assert {"from": "hidden_layer", "to": "matmul6"} in obj["edges"]
    assert obj["sources"] == ["W1", "W2"]
    assert not c.dirty and not w.isWindowModified()
    assert list(c.doc.nodes) == ["x1", "w2", "matmul3", "relu4", "w5", "matmul6", "reduce_sum7"]
    shows_the_engine(w)                                        # a save renames nothing in memory
    steps = [(s.kind, s.caption) for s in w.player.steps]

    c.set_field("w2", "label", "A")
    assert c.dirty and w.isWindowModified()
    assert w.save()
    assert file_ids(path)[0][1] == "A" and file_ids(path)[1]["sources"] == ["A", "W2"]
    c.undo_stack.undo()                                        # the rename undone after the save
    assert c.doc.nodes["w2"].label == "W1" and c.dirty and w.isWindowModified()
    shows_the_engine(w)
    assert c.text() != path.read_text(encoding="utf-8")
    assert w.save()
    assert file_ids(path)[0][1] == "W1" and not c.dirty
    assert c.text() == path.read_text(encoding="utf-8")
    c.undo_stack.redo()
    assert c.doc.nodes["w2"].label == "A" and c.dirty
    c.undo_stack.undo()
    assert not c.dirty                                         # back at what the file holds

    reopened = make_window(str(path))                          # the same graph, by the names
    r = reopened.controller
    assert list(r.doc.nodes) == ["x", "W1", "matmul3", "hidden_layer", "W2", "matmul6",
                                 "reduce_sum7"] and not r.dirty
    assert r.text() == path.read_text(encoding="utf-8")
    mine, theirs = evaluate(c.doc), evaluate(r.doc)
    for before, after in (("w2", "W1"), ("w5", "W2")):
        np.testing.assert_array_equal(theirs.gradients[Port(after)], mine.gradients[Port(before)])
    assert [(s.kind, s.caption) for s in reopened.player.steps] == steps
    shows_the_engine(reopened)

    r.set_field("W1", "label", "weights in")                    # unsaved, then a crash
    left = crash(reopened)
    assert file_ids(left)[0][1] == "weights_in"
    crashed = left.read_text(encoding="utf-8")
    app_env.answers[:] = [Button.Yes]
    recovered = make_window()
    assert recovered.controller.text() == crashed
    assert recovered.controller.doc.nodes["weights_in"].label == "weights in"
    assert recovered.controller.path == str(path) and recovered.controller.dirty
    recovered.controller.undo_stack.undo()                     # back to the file as saved
    assert recovered.controller.text() == path.read_text(encoding="utf-8")
