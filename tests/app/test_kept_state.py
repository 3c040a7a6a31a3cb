"""kept_state.unchanged: objects by identity, values by value."""
import numpy as np

from gradviz.app.kept_state import unchanged


def test_the_same_objects_and_equal_values_are_unchanged():
    m = np.zeros((2, 2))
    assert unchanged(((m, "doc"), (1, (2, 3))), ((m, "doc"), (1, (2, 3))))


def test_an_equal_copy_of_an_object_is_a_change():
    """A matrix replaced by an equal one is new: the view weighs it by identity."""
    m = np.zeros((2, 2))
    assert not unchanged(((m,), (1,)), ((m.copy(),), (1,)))


def test_a_value_or_the_number_of_objects_changing_is_a_change():
    m = np.zeros(1)
    assert not unchanged(((m,), (1,)), ((m,), (2,)))
    assert not unchanged(((m,), (1,)), ((m, m), (1,)))


def test_no_state_kept_is_never_unchanged():
    assert not unchanged(None, ((), ()))
