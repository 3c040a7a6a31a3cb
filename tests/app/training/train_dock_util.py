"""What the Train dock's test files share: the sample and its kernel, choosing an
optimizer, waiting for a run and drawing the landscape (the panel fixture is in
conftest.py)."""
from gradviz.graph import Port

SAMPLE = "samples/001_hessian_newton.json"
KERNEL = Port("layer1", 1)


def kernel(w):
    return w.controller.doc.nodes["layer1"].weights["kernel"]


def choose(panel, name, **fields):
    panel.optimizer_box.setCurrentIndex(panel.optimizer_box.findData(name))
    for key, text in fields.items():
        panel.fields[key].setText(text)


def finish(qtbot, panel, timeout=30000):
    qtbot.waitUntil(lambda: not panel.session.running, timeout=timeout)


def draw(qtbot, p):
    p.tabs.setCurrentWidget(p.landscape)
    assert p.landscape.draw()
    qtbot.waitUntil(lambda: p.landscape.job is None, timeout=60000)
    return p.landscape
