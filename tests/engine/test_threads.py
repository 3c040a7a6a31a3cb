"""Tapes are per thread: a worker thread's tape never sees the main thread's ops."""
import threading

import numpy as np

import gradviz as tf


def test_a_tape_in_another_thread_does_not_record_this_threads_ops():
    v = tf.Variable(3.0)
    inside = threading.Event()
    done = threading.Event()
    seen = {}

    def worker():
        with tf.GradientTape() as tape:
            inside.set()
            done.wait(5)
            seen["watched"] = tape.watched_variables()

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    y = v * v  # read on the main thread while the worker's tape is recording
    done.set()
    thread.join(5)
    assert seen["watched"] == ()
    assert y.numpy() == 9.0


def test_jacobians_in_two_threads_give_the_single_thread_answer():
    x = tf.constant(np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32))

    def jac():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(x) * x
        return tape.jacobian(y, x).numpy()

    expected = jac()
    results = [None, None]

    def run(i):
        for _ in range(20):
            results[i] = jac()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    with tf.GradientTape() as main_tape:  # a tape left open on the main thread
        main_tape.watch(x)
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    for r in results:
        np.testing.assert_array_equal(r, expected)
