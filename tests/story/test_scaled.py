"""A picture's power of ten is that of its largest entry as written: float32's 1e-8 is
9.99999994e-9, and dividing by 10⁻⁹ wrote it "10.000×10⁻⁹" on its card (H44h's trace of
the guide's clip_gradients script)."""
import numpy as np
import pytest

from gradviz.story.numbers import mantissa_spec, scaled


@pytest.mark.parametrize("values, dtype, text, power", [
    ([1e-8, -5e-9], np.float32, "1.000", -8),
    ([9.9996e-7, 1e-7], np.float64, "1.000", -6),
    ([99999.9999, 3.0], np.float64, "1.000", 5),
    ([2.5e-3, 1e-3], np.float32, "2.500", -3),
])
def test_the_largest_entry_reads_from_1_to_9_999_once_written(values, dtype, text, power):
    shown, p = scaled(np.array(values, dtype=dtype))
    assert p == power
    assert mantissa_spec(p) % np.abs(shown).max() == text
