"""graph.build.quiet() silences numpy's floating-point warnings on its own thread only: the
app evaluates on worker threads while the UI thread (and the user's code) keeps its warnings."""
import threading
import warnings

import numpy as np

from gradviz.graph.build import quiet


def _enter_on_a_thread(entered, leave):
    def run():
        with quiet():
            assert np.geterr()["invalid"] == "ignore"
            entered.set()
            leave.wait(10)
    thread = threading.Thread(target=run)
    thread.start()
    assert entered.wait(10)
    return thread


def test_quiet_on_two_threads_left_out_of_order_leaves_no_filter_behind():
    filters, errors = list(warnings.filters), np.geterr()
    entered = [threading.Event(), threading.Event()]
    leave = [threading.Event(), threading.Event()]
    first = _enter_on_a_thread(entered[0], leave[0])
    second = _enter_on_a_thread(entered[1], leave[1])
    # While both are inside, this thread still warns.
    assert warnings.filters == filters and np.geterr() == errors
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        np.sqrt(np.array([-1.0]))
    assert [w.category for w in seen] == [RuntimeWarning]
    leave[0].set()   # the first leaves before the second
    first.join()
    leave[1].set()
    second.join()
    assert warnings.filters == filters and np.geterr() == errors


def test_quiet_silences_nan_and_overflow_on_its_thread():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with quiet():
            values = np.sqrt(np.array([-1.0])), np.float32(3e38) * np.float32(10), \
                np.array([1.0]) / 0.0
    assert np.isnan(values[0]).all() and np.isinf(values[1]) and np.isinf(values[2]).all()
