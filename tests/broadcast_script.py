"""The auditor's script for broadcast sums (issue 20 §1): y = x * w with w a scalar and
z = reduce_sum(y + b) with b 2x1, so w's contribution sums 6 entries and b's 3 columns."""
import gradviz as tf


def scaled_plus_bias():
    """(tape, x, y, z, w, b), the tape still holding its record: dz/dw = Σx = 12, dz/db = [3, 3].
    (The caller binds every name: capture names a node by the caller's variable.)"""
    x = tf.constant([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    w = tf.Variable(2.0)
    b = tf.Variable([[0.5], [-0.5]])
    with tf.GradientTape(persistent=True) as tape:
        y = x * w
        z = tf.reduce_sum(y + b)
    return tape, x, y, z, w, b
