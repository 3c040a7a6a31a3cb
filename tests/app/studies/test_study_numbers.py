"""Every number a study view writes follows the cards' rule (story.numbers; issue 20 §5):
fixed-point at an ordinary magnitude, beyond it a mantissa and its power of ten (×10⁻⁶),
one format on a line, never e-notation ('norm 1.14e+00 (tolerance 1.00e-06)' was the Batch
Jacobian's banner): banners, captions, tables, tick labels as drawn, hover readouts."""
import re

import numpy as np
import pyqtgraph as pg
import pytest

from app_ui import tick_labels
from gradviz.app.studies.check_view import long_number
from gradviz.app.studies.heatmap import Heatmap
from gradviz.app.studies.plot_style import tick_texts
from gradviz.app.studies.norms_view import LogAxis
from gradviz.story.numbers import alone, line_format
from test_study_docks import _open, window
from test_study_labels import CASES
from test_study_plots import view_texts

pytestmark = pytest.mark.numeric  # computed numbers: .ci/run repeats it as other CPUs compute

_ = window   # the fixture, shared with test_study_docks

E_FORM = re.compile(r"\d[eE][+-]?\d")


def written(view):
    """What the view writes: its texts, every tick label as its axis draws it, and the
    hover readout of each heatmap's first cell and of its smallest non-zero one."""
    texts = view_texts(view)
    for graphics in view.findChildren(pg.GraphicsView):
        for item in graphics.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible():
                texts += [text for _, text in tick_labels(item)]
    for heatmap in view.findChildren(Heatmap):
        m = heatmap.matrix
        if m.size:
            small = np.where(m != 0, np.abs(m), np.inf)
            cells = [(0, 0), np.unravel_index(int(np.argmin(small)), m.shape)]
            texts += [heatmap.cell_text(int(r), int(c)) for r, c in cells]
    return texts


@pytest.mark.parametrize("title, sample", CASES)
def test_no_study_view_writes_e_notation(qtbot, window, title, sample):
    view = _open(qtbot, window(sample, (1280, 800)), title).view
    qtbot.wait(50)
    texts = [t for t in written(view) if t]
    assert len(texts) > 5
    assert [t for t in texts if E_FORM.search(t)] == []


def test_the_batch_jacobian_banner_writes_norm_and_tolerance_as_cards_do(qtbot, window):
    """The walk-through's line: 'norm 1.14e+00 (tolerance 1.00e-06)'. Since the check names
    the black box's block (H36k), the norm is written '‖∂layer2[3] / ∂x[6]‖ = 1.142'."""
    view = _open(qtbot, window("001_batchnorm_pitfall"), "Batch Jacobian").view
    study = view.result
    number = line_format(study.largest, study.block_difference, study.tolerance)
    assert number(study.tolerance) == "1.000×10⁻⁶"
    assert f"‖ = {number(study.largest)} (tolerance 1.000×10⁻⁶)" in view.check.whole_text()
    assert re.fullmatch(r"\d+\.\d{3}", number(study.largest))     # 1.14 → 1.140: one format


def test_numbers_by_the_cards_rule():
    assert [alone(x) for x in (0, 1.14, 12.0, 5.34e-4, -2.31e5, 9.99996e-7)] == \
        ["0", "1.140", "12", "5.340×10⁻⁴", "-2.310×10⁵", "1.000×10⁻⁶"]
    line = line_format(1.14, 1e-6, 0.0)                 # one format: three decimals each
    assert [line(x) for x in (1.14, 1e-6, 0.0, -0.0001)] == ["1.140", "1.000×10⁻⁶", "0", "-1.000×10⁻⁴"]
    ordinary = line_format(np.array([0.25, 3.0]))        # all ordinary: the card_spec alone
    assert [ordinary(x) for x in (0.25, 3.0)] == ["0.250", "3.000"]
    assert tick_texts([-2e-5, 0.0, 2e-5, 4e-5]) == ["-2×10⁻⁵", "0", "2×10⁻⁵", "4×10⁻⁵"]
    assert tick_texts([0.0, 2.5e-7, 5e-7]) == ["0", "2.5×10⁻⁷", "5.0×10⁻⁷"]
    assert tick_texts([0.0, 0.05, 0.1]) == ["0", "0.05", "0.10"]
    assert long_number(0.1413016497)(0.14133533841) == "0.1413353384"
    assert long_number(1.413016497e-5)(1.4133533e-5) == "1.413353300×10⁻⁵"


def test_a_log_axis_writes_one_form(qapp):
    """Its major and minor ticks alike (the gradient norms' axis read 10⁰ beside 0.1)."""
    axis = LogAxis("left")
    axis.setRange(-2.2, 1.2)
    assert axis.tickStrings([-2, -1, 0, 1], 1, 1) == ["0.01", "0.1", "1", "10"]
    axis.setRange(-4.2, 1.2)
    assert axis.tickStrings([-4, -2, 0], 1, 2) == ["10⁻⁴", "10⁻²", "10⁰"]
    assert axis.tickStrings([-3, -1, 1], 1, 1) == ["10⁻³", "10⁻¹", "10¹"]


@pytest.mark.parametrize("sample", ["nets_2_sigmoid_chain", "nets_2_relu_chain"])
def test_the_gradient_norms_read_with_three_significant_digits_in_one_form(qtbot, sample):
    """The sigmoid chain's norms read 'layer2 0.002' (0.00239, one significant digit) beside
    'layer1 5.339×10⁻⁴'. Every norm the summary writes has three significant digits or more
    and reads back within its last digit; a norm below 0.1 is never written in fixed
    notation while another is written with its power of ten."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies import GradientNormView
    from gradviz.app.window.main_window import SAMPLES_DIR
    from gradviz.story.numbers import resolution

    controller = DocumentController()
    view = GradientNormView(controller)
    qtbot.addWidget(view)
    controller.open(SAMPLES_DIR / f"{sample}.json")
    view.refresh()
    qtbot.waitUntil(lambda: view.result is not None, timeout=8000)
    norms = view.result
    text = re.sub(r"<[^>]+>", " ", view.summary.text())
    written = {}
    for name, number in re.findall(r"(\S+)\s+(-?[0-9.]+(?:×10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)", text):
        written[name] = number
    values = dict(zip(norms.names, np.asarray(norms.norms, np.float64)))
    assert len(written) >= 5, text
    powered = any("×10" in w for w in written.values())
    for name, number in written.items():
        value = values[name]
        mantissa = number.split("×")[0].lstrip("-").replace(".", "").lstrip("0")
        assert len(mantissa) >= 3, (name, number, value)
        power = int(number.split("×10")[1].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))) \
            if "×10" in number else 0
        assert float(number.split("×")[0]) * 10.0 ** power == pytest.approx(
            value, abs=resolution(number) / 2 * 1.001), (name, number)
        if powered and abs(value) < 0.1:
            assert "×10" in number, (name, number, text)


def test_the_jacobian_checks_write_entries_as_their_cards_do(qtbot):
    """Lesson attention: the Σ check wrote [0.220, 3.359×10⁻², -5.549×10⁻², 0.130, …] where
    the gradient's card writes 0.220 0.034 -0.055 0.130 (the line's tiny difference made
    every number take its own power of ten)."""
    from gradviz.app.controller import DocumentController
    from gradviz.app.studies import JacobianView
    from gradviz.bundled import sample
    from gradviz.story.numbers import writer
    controller = DocumentController()
    view = JacobianView(controller)
    qtbot.addWidget(view)
    controller.open(sample("nets_6_attention"))
    view.refresh()
    study = view.result
    both = np.concatenate([np.ravel(study.summed), np.ravel(study.gradient)])
    assert 0.1 <= np.abs(both).max() < 1e4          # an ordinary magnitude: fixed notation
    write = writer(both)
    listed = "[" + ", ".join(write(v) for v in np.ravel(study.gradient)[:4]) + ", …]"
    assert listed in view.sum_check.whole_text(), view.sum_check.whole_text()
    assert "×10" not in view.sum_check.whole_text().split("<br>")[0]
