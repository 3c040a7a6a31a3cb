"""gradviz.capture(...).show() in a process whose app is running opens one more window."""
import gradviz as tf
from gradviz import tape_document


def test_show_opens_a_window_of_the_running_app(qapp, qtbot, app_env, monkeypatch):
    x = tf.Variable([[1.0, 2.0], [3.0, -4.0]])
    w = tf.Variable([[0.5], [1.0]])
    with tf.GradientTape() as tape:
        hidden = tf.nn.relu(x @ w)
        loss = tf.reduce_sum(hidden * hidden)
    doc = tf.capture(tape, loss, [x, w], title="two layers")
    monkeypatch.setattr(tape_document, "_running_app", lambda: qapp)
    window = doc.show()
    try:
        assert window.isVisible() and window in tape_document._windows
        assert window.controller.doc.title == "two layers"
        assert set(window.controller.doc.nodes) == set(doc.document.nodes)
        qtbot.waitUntil(lambda: window.controller.result.evaluation is not None)  # evaluated
    finally:
        tape_document._windows.remove(window)
        window.controller.undo_stack.setClean()
        window.close()
