"""Export writes valid PNG / SVG / PDF files, and what is painted is really there."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from graphs import chain, mlp, numpy_values, seed004, seed004_evaluation, seed004_story
from types import SimpleNamespace

from gradviz.render import Renderer, export, render_image
from gradviz.render.preview import diverging_rgb, kind, number_format


def _pixels(image):
    image = image.convertToFormat(image.Format.Format_RGBA8888)
    data = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes())
    data = data.reshape(image.height(), image.bytesPerLine() // 4, 4)
    return data[:, : image.width(), :3].copy()


def _seed_renderer(theme="light"):
    return Renderer(seed004(), evaluation=seed004_evaluation(), story=seed004_story(), theme=theme)


@pytest.mark.parametrize("theme", ["light", "dark", "high-contrast"])
def test_png_has_header_size_and_scale(tmp_path, theme):
    out = export(seed004(), tmp_path / "g.png", theme=theme, scale=2.0, evaluation=seed004_evaluation())
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    bounds = Renderer(seed004(), evaluation=seed004_evaluation()).bounds()
    assert (width, height) == (round(bounds.width() * 2), round(bounds.height() * 2))
    assert 1000 < len(data) < 2_000_000


def test_png_dpi_sets_scale_and_metadata(tmp_path):
    from PySide6.QtGui import QImage

    out = export(seed004(), tmp_path / "g.png", dpi=192)
    image = QImage(str(out))
    assert round(image.dotsPerMeterX() * 0.0254) == 192
    one = QImage(str(export(seed004(), tmp_path / "one.png", scale=1.0)))
    assert abs(image.width() - 2 * one.width()) <= 1


def test_svg_is_96_dpi_and_contains_the_text(tmp_path):
    out = export(seed004(), tmp_path / "g.svg", evaluation=seed004_evaluation(), step=1,
                 story=seed004_story())
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    for word in ("matmul", "source", "target", "-0.173", "grad_a = grad @ b"):
        assert word in text, word
    # Point sizes at 96 dpi: an 11 pt title is 14.67 px; at Qt's default 72 dpi it would be 11.
    sizes = {float(s) for s in re.findall(r'font-size="([0-9.]+)"', text)}
    assert any(abs(s - 11 * 96 / 72) < 0.2 for s in sizes), sorted(sizes)
    width = float(re.search(r'<svg[^>]*width="([0-9.]+)mm"', text).group(1))
    bounds = _seed_renderer().bounds(1)
    assert abs(width - bounds.width() * 25.4 / 96) < 1.0


def test_pdf_header_and_page_size(tmp_path):
    out = export(seed004(), tmp_path / "g.pdf", evaluation=seed004_evaluation())
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:]
    box = re.search(rb"/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]", data)
    bounds = Renderer(seed004(), evaluation=seed004_evaluation()).bounds()
    assert abs(float(box.group(1)) - bounds.width() * 72 / 96) < 2


def test_unknown_suffix_and_theme_are_refused(tmp_path):
    with pytest.raises(ValueError, match="png"):
        export(seed004(), tmp_path / "g.jpg")
    with pytest.raises(ValueError, match="unknown theme"):
        export(seed004(), tmp_path / "g.png", theme="neon")


def test_image_is_not_blank_and_themes_differ():
    light = _pixels(render_image(_seed_renderer("light"), scale=1.0))
    dark = _pixels(render_image(_seed_renderer("dark"), scale=1.0))
    assert (light[0, 0] == 255).all()               # white background
    assert light.mean() > dark.mean() + 100
    colours = {tuple(p) for p in light[::7, ::7].reshape(-1, 3)}
    assert len(colours) > 30                        # cards, headers, text, edges
    assert (light.sum(axis=2) < 300).mean() > 0.01   # dark text and lines


def test_step_overlay_highlights_the_active_node_and_draws_the_cotangent():
    renderer = _seed_renderer()
    plain = _pixels(render_image(renderer, scale=1.0))
    step = _pixels(render_image(renderer, step=1, scale=1.0))
    assert step.shape[0] > plain.shape[0]           # the formula card adds room
    active = np.array([0xF4, 0xA1, 0x00])
    cotangent = np.array([0xE4, 0x57, 0x2E])
    assert (np.abs(step.astype(int) - active).sum(axis=2) < 30).sum() > 200
    assert (np.abs(step.astype(int) - cotangent).sum(axis=2) < 30).sum() > 200
    assert (np.abs(plain.astype(int) - cotangent).sum(axis=2) < 30).sum() == 0


def test_step_out_of_range_raises_index_error():
    with pytest.raises(IndexError, match="out of range"):
        _seed_renderer().bounds(7)


def test_cut_edges_are_marked():
    doc = mlp()
    renderer = Renderer(doc)
    cut = [e for e in doc.edges if renderer.is_cut(e)]
    assert [(e.src.node, e.dst.node) for e in cut] == [("o", "sg")]
    doc.tape.stop_recording = ["a"]
    assert Renderer(doc).is_cut(next(e for e in doc.edges if e.dst.node == "a"))


def test_large_document_with_heatmaps_renders(tmp_path):
    doc = chain(40)
    doc.nodes["x"].value = np.random.default_rng(1).normal(size=(32, 4)).astype(np.float32)
    evaluation = SimpleNamespace(values=numpy_values(doc), gradients={})
    renderer = Renderer(doc, evaluation=evaluation)
    assert any(c.value is not None and kind(c.value) == "heatmap" for c in renderer.cards.values())
    out = export(doc, tmp_path / "big.png", evaluation=evaluation, scale=1.0)
    assert out.stat().st_size > 10_000
    from PySide6.QtGui import QImage
    assert QImage(str(out)).width() == round(renderer.bounds().width())


def test_preview_kinds_and_formats():
    assert kind(np.float32(2.5)) == "scalar"
    assert kind(np.ones((5, 3))) == "grid"
    assert kind(np.ones((8, 8))) == "ellipsis"
    assert kind(np.ones((32, 32))) == "heatmap"
    fmt = number_format(np.tile([-0.17307831, 1.1900724, 2.245003], (5, 1)))
    assert [fmt(v) for v in (-0.17307831, 2.245003)] == ["-0.173", "2.245"]
    assert number_format(np.ones(3))(1.0) == "1"
    rgb, scale = diverging_rgb(np.array([-2.0, 0.0, 2.0]), ("#0000ff", "#ffffff", "#ff0000"))
    assert scale == 2.0 and rgb.tolist() == [[0, 0, 255], [255, 255, 255], [255, 0, 0]]


def test_png_encoder_round_trips_through_qt_and_zlib():
    """Our encoder's files decode (Qt's reader, zlib's adler32 check) to the same pixels,
    including images split across several compression threads."""
    import zlib

    from PySide6.QtGui import QImage

    from gradviz.render import png

    rng = np.random.default_rng(3)
    for shape in [(1, 1, 3), (7, 5, 3), (1100, 333, 3)]:
        rgb = rng.integers(0, 256, size=shape, dtype=np.uint8)
        rgb[: shape[0] // 2] = 255                  # flat areas as in a picture, noise elsewhere
        data = png.encode(rgb, dpi=192)
        kinds = [k for k, _ in png.chunks(data)]
        assert kinds == [b"IHDR", b"pHYs", b"IDAT", b"IEND"]
        idat = b"".join(p for k, p in png.chunks(data) if k == b"IDAT")
        raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(shape[0], -1)
        assert (raw[:, 0] == 0).all()
        assert np.array_equal(raw[:, 1:].reshape(shape), rgb)
        image = QImage.fromData(data, "PNG")
        assert (image.width(), image.height()) == (shape[1], shape[0])
        assert np.array_equal(png.rgb_array(image), rgb)
        assert round(image.dotsPerMeterX() * 0.0254) == 192


def test_png_too_large_to_open_is_drawn_smaller_and_says_so(tmp_path):
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage

    from gradviz.render.export import MAX_PNG_PIXELS, MAX_PNG_SIDE, png_scale

    assert png_scale(QRectF(0, 0, 1000, 500), 2.0) == 2.0
    wide = png_scale(QRectF(0, 0, 10_000, 400), 2.0)
    assert wide < 2.0 and 10_000 * wide <= MAX_PNG_SIDE and 10_000 * (wide + 0.01) > MAX_PNG_SIDE
    square = png_scale(QRectF(0, 0, 8000, 8000), 2.0)
    assert (8000 * square) ** 2 <= MAX_PNG_PIXELS

    doc = chain(100)
    evaluation = SimpleNamespace(values=numpy_values(doc), gradients={})
    width = Renderer(doc, evaluation=evaluation).bounds().width()
    notes = []
    out = export(doc, tmp_path / "wide.png", evaluation=evaluation, scale=4.0, warn=notes.append)
    image = QImage(str(out))                          # Qt's reader opens it
    assert 0 < image.width() <= MAX_PNG_SIDE and image.width() < 4 * width
    assert len(notes) == 1 and "wide.png" in notes[0] and "instead of 4" in notes[0]
    notes.clear()
    export(seed004(), tmp_path / "small.png", scale=4.0, warn=notes.append)
    assert notes == []


def _rgb32(rgb):
    """An RGB32 QImage holding `rgb` ((h, w, 3) uint8)."""
    from PySide6.QtGui import QImage
    h, w, _ = rgb.shape
    packed = np.full((h, w), 0xFF000000, np.uint32)
    packed |= rgb[..., 0].astype(np.uint32) << 16 | rgb[..., 1].astype(np.uint32) << 8 | rgb[..., 2]
    return QImage(packed.tobytes(), w, h, w * 4, QImage.Format.Format_RGB32).copy()


@pytest.mark.cpu_independent("integer pixels copied by Qt, coded (Up filter, zlib) and decoded: integers only")
@pytest.mark.parametrize("fast", [True, False])
def test_band_writer_round_trips_through_qt_and_zlib(fast):
    """Band by band (Up-filtered runs by the numba coder, or zlib), the file decodes to the
    pixels painted: noise, flat areas, runs across band edges, one-pixel images."""
    import zlib

    from PySide6.QtCore import QRect
    from PySide6.QtGui import QImage, QPainter

    from gradviz.render import png, png_fast

    if fast and png_fast.KERNEL.wait() is None:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(5)
    for shape, rows in [((1, 1, 3), 4), ((7, 5, 3), 3), ((301, 613, 3), 64), ((64, 900, 3), 16)]:
        rgb = rng.integers(0, 256, size=shape, dtype=np.uint8)
        rgb[: shape[0] // 3] = 250                                # flat
        rgb[shape[0] // 3: shape[0] // 2, ::2] = (10, 200, 30)    # runs of one colour, broken
        rgb[shape[0] // 2:, : shape[1] // 2] = rgb[shape[0] // 2, 0]
        source = _rgb32(rgb)
        writer = png.BandWriter(shape[1], shape[0], rows, dpi=96, fast=fast)
        assert writer.fast == fast
        for top in range(0, shape[0], rows):
            band = writer.band()
            height = min(rows, shape[0] - top)
            painter = QPainter(band)
            painter.drawImage(0, 0, source, 0, top, shape[1], height)
            painter.end()
            writer.submit(band, height)
        data = writer.finish()
        idat = b"".join(p for k, p in png.chunks(data) if k == b"IDAT")
        raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(shape[0], -1)
        assert set(raw[:, 0]) == ({2} if fast else {0})           # Up-filtered rows, or none
        image = QImage.fromData(data, "PNG")
        assert np.array_equal(png.rgb_array(image), rgb), shape
        assert QRect(0, 0, shape[1], shape[0]) == image.rect()


def test_png_export_matches_the_painted_picture():
    """The band-by-band export paints exactly what one full-size image shows."""
    from PySide6.QtGui import QImage

    from gradviz.render import png, render_image
    from gradviz.render.export import png_bytes

    renderer = _seed_renderer()
    for step in (None, 1):
        whole = png.rgb_array(render_image(renderer, step, scale=1.0))
        banded = png.rgb_array(QImage.fromData(png_bytes(renderer, step, 1.0, band_rows=37), "PNG"))
        assert np.array_equal(whole, banded)


@pytest.mark.parametrize("step", [None, 1])
def test_static_exports_name_matmuls_operands_a_and_b_in_order(tmp_path, step):
    """matmul's operand order is the maths (t @ b is not b @ t): the SVG writes `a` beside
    the upper input port and `b` beside the lower one, left of the card, as the canvas does."""
    out = export(seed004(), tmp_path / "g.svg", evaluation=seed004_evaluation(), story=seed004_story(),
                 step=step)
    text = out.read_text(encoding="utf-8")
    found = {m.group(3): (float(m.group(1)), float(m.group(2))) for m in re.finditer(   # not node b's bold title
        r'<text [^>]*x="([0-9.-]+)" y="([0-9.-]+)"[^>]*font-weight="400"[^>]*>\s*([ab])\s*</text>', text)}
    assert set(found) == {"a", "b"}, found
    assert found["a"][1] < found["b"][1] and abs(found["a"][0] - found["b"][0]) < 2
    renderer = _seed_renderer()
    matmul = next(nid for nid, n in seed004().nodes.items() if n.op == "matmul")
    labels = renderer.port_labels(matmul)
    assert [name for _, name, _ in labels] == ["a", "b"]
    for (rect, name, _), port in zip(labels, range(2)):
        assert rect.right() < renderer.rect(matmul).left()         # outside the card, on its left
        assert rect.bottom() <= renderer.input_pos(matmul, port).y()   # above its own port's edge
        assert renderer.bounds(step).contains(rect)


_EXPORT_THEN_A_WIDGET = """
import sys
from gradviz.graph import load
from gradviz.render import export
export(load(sys.argv[1]), sys.argv[2])
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication.instance() or QApplication([])   # as pytest-qt, matplotlib and IPython do
QWidget()
print(type(app).__name__)
"""


@pytest.mark.cpu_independent("which Qt application a process makes")
def test_a_widget_made_after_an_export_in_the_same_process_does_not_abort_it(tmp_path):
    """A process has one Qt application for good. export made a QGuiApplication, and the first
    widget made after it (a notebook's matplotlib window after a captured tape was drawn, a
    pytest-qt test after an in-process export) aborted the process: "QWidget: Cannot create a
    QWidget without QApplication". A fresh process: this run already has its QApplication."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _EXPORT_THEN_A_WIDGET,
                           str(root / "samples" / "001_reset.json"), str(tmp_path / "g.svg")],
                          cwd=root, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "QApplication"
    assert (tmp_path / "g.svg").read_text(encoding="utf-8").startswith("<?xml")
