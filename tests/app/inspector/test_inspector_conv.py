"""The inspector on convolution nodes: padding offered as a menu of TF's values, and a
Conv2D layer's weights created and resized (filters, kernel_size) with Keras' fans."""
import numpy as np
import pytest
from PySide6.QtWidgets import QComboBox

from gradviz.app.controller import DocumentController
from gradviz.app.inspector.panel import InspectorWidget
from gradviz.engine.layers import glorot_limit
from gradviz.graph import CONSTANT, OP, Document, Node, Port, save


@pytest.fixture
def opened(qtbot, tmp_path):
    doc = Document(title="conv")
    rng = np.random.default_rng(0)
    doc.add(Node("x", CONSTANT, value=rng.standard_normal((1, 5, 5, 2)).astype(np.float32),
                 watched=True))
    doc.add(Node("w", CONSTANT, value=rng.standard_normal((3, 3, 2, 1)).astype(np.float32)))
    doc.add(Node("conv", OP, op="nn.conv2d", attrs={"padding": "SAME"}))
    doc.add(Node("loss", OP, op="reduce_sum"))
    doc.connect("x", "conv", dst_index=0)
    doc.connect("w", "conv", dst_index=1)
    doc.connect("conv", "loss")
    doc.targets, doc.sources = [Port("loss")], [Port("x")]
    save(doc, tmp_path / "conv.json")
    c = DocumentController()
    c.open(tmp_path / "conv.json")
    w = InspectorWidget(c)
    w.confirm = lambda text: True
    qtbot.addWidget(w)
    w.resize(380, 900)
    w.show()
    yield c, w
    c.undo_stack.blockSignals(True)  # the undo stack outlives its controller in teardown


def test_padding_is_a_menu_of_tfs_values(opened):
    c, w = opened
    c.set_selection(["conv"])
    combo = w.page.attr_widgets["padding"]
    assert isinstance(combo, QComboBox) and combo.currentText() == "SAME"
    assert [combo.itemText(i) for i in range(combo.count())] == ["SAME", "VALID", "EXPLICIT"]
    combo.activated.emit(combo.findText("VALID"))
    assert c.doc.nodes["conv"].attrs["padding"] == "VALID"
    assert c.result.evaluation.values[Port("conv")].shape == (1, 3, 3, 1)


def test_a_new_conv2d_layer_gets_keras_weights_and_resizes_them(opened):
    c, w = opened
    nid = c.add_node("layer", "Conv2D")
    assert [w.page.attr_widgets["padding"].itemText(i) for i in range(2)] == ["valid", "same"]
    assert c.connect(Port("x"), Port(nid)) is not None  # no weights yet: refused
    w.page.input_width.setValue(2)
    w.page.build_weights.click()
    kernel = c.doc.nodes[nid].weights["kernel"]
    assert kernel.shape == (3, 3, 2, 1) and c.doc.nodes[nid].weights["bias"].shape == (1,)
    assert 0 < np.abs(kernel).max() <= glorot_limit((3, 3, 2, 1))
    assert c.connect(Port("x"), Port(nid)) is None
    assert c.result.evaluation.values[Port(nid)].shape == (1, 3, 3, 1)
    w.page.attr_widgets["filters"].setValue(4)
    assert c.doc.nodes[nid].weights["kernel"].shape == (3, 3, 2, 4)
    assert c.doc.nodes[nid].weights["bias"].shape == (4,)
    assert c.result.evaluation.values[Port(nid)].shape == (1, 3, 3, 4)
