"""Helpers the Jacobian tests share (a plain module: test modules do not import each other)."""
import numpy as np

import gradviz as tf


def per_row(tape, y, x):
    """TF's definition of jacobian: one gradient per one-hot cotangent of y."""
    n = int(np.prod(y.shape))
    dtype = y.numpy().dtype
    rows = []
    for i in range(n):
        e = np.zeros(n, dtype)
        e[i] = 1
        g = tape.gradient(y, x, output_gradients=tf.constant(e.reshape(tuple(y.shape))),
                          unconnected_gradients="zero")
        rows.append(g.numpy().reshape(-1))
    return np.array(rows).reshape(tuple(y.shape) + tuple(x.shape))
