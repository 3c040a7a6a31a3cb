"""`gradviz export --step K` lays the graph out for a slide, folded into rows as the GIF
and the player fold it: a 16-node MLP's step was one row of 6640 x 1836 px
(File ▸ Export Step at scale 2)."""
import struct

import numpy as np

from gradviz.cli import main
from gradviz.graph import save
from gradviz.graph.document import Document, Node, Port
from gradviz.render import animation, legible


def mlp16():
    """x -> (@ W + b -> relu) x 2 -> @ W3 + b3 -> reduce_sum: 16 nodes."""
    rng = np.random.default_rng(1)
    doc = Document(title="16-node MLP")
    doc.add(Node("x", "constant", value=rng.normal(size=(2, 3)).astype(np.float32)))
    prev = "x"
    for i in (1, 2, 3):
        doc.add(Node(f"W{i}", "variable", value=rng.normal(size=(3, 3)).astype(np.float32)))
        doc.add(Node(f"b{i}", "variable", value=rng.normal(size=(3,)).astype(np.float32)))
        doc.add(Node(f"matmul_{i}", "op", op="matmul"))
        doc.add(Node(f"add_{i}", "op", op="add"))
        for src, dst, slot in ((prev, f"matmul_{i}", 0), (f"W{i}", f"matmul_{i}", 1),
                               (f"matmul_{i}", f"add_{i}", 0), (f"b{i}", f"add_{i}", 1)):
            doc.connect(src, dst, 0, slot)
        prev = f"add_{i}"
        if i < 3:
            doc.add(Node(f"relu_{i}", "op", op="nn.relu"))
            doc.connect(prev, f"relu_{i}", 0, 0)
            prev = f"relu_{i}"
        doc.sources.append(Port(f"W{i}"))
    doc.add(Node("loss", "op", op="reduce_sum"))
    doc.connect(prev, "loss", 0, 0)
    doc.targets = [Port("loss")]
    assert len(doc.nodes) == 16
    return doc


def png_size(path):
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_an_exported_step_of_a_16_node_mlp_is_folded_to_suit_a_slide(tmp_path):
    source, out = tmp_path / "mlp16.gradviz.json", tmp_path / "step.png"
    save(mlp16(), str(source))
    scale = 0.25
    assert main(["export", str(source), "-o", str(out), "--step", "5", "--scale", str(scale)]) == 0
    width, height = png_size(out)
    # a 1920 x 1080 slide shows it whole at a zoom where its numbers read (3142 x 940 before)
    zoom = legible.readable_zoom() / animation.SCALE
    assert width / scale <= animation.SLIDE[0] / zoom and height / scale <= animation.SLIDE[1] / zoom, (width, height)
