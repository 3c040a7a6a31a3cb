"""Animation export: frames of seed 004, and APNG / GIF / PNG sequences decoded back.

The GIF is checked against a small LZW decoder written here, pixel for pixel against the
quantized input, and against Qt's own GIF reader; the APNG chunk by chunk (CRCs,
sequence numbers, acTL frame count) and by decoding frame 0 with QImage.
"""
import struct
import weakref
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage, QImageReader

from gradviz.graph import evaluate, fileformat
from gradviz.render import Renderer, animation, animation_files, gif_palette, png
from gradviz.story import build

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "004_matmul_sum.json"
FPS_STEP, HOLD = 3, 2


@pytest.fixture(scope="module")
def sample():
    doc = fileformat.load(str(SAMPLE), strict=False)
    ev, story = evaluate(doc), build(doc)
    renderer = Renderer(doc, evaluation=ev, story=story, theme="light")
    images = list(animation.frames(doc, renderer=renderer, scale=0.5, frames_per_step=FPS_STEP, hold=HOLD,
                                   slide=None))   # the whole picture on every frame (slides: test_animation_slides)
    return doc, story, renderer, images


def _distinct_count(images):
    arrays = [animation_files._rgb(im) for im in images]
    return 1 + sum(not np.array_equal(a, b) for a, b in zip(arrays, arrays[1:]))


# -- frames -------------------------------------------------------------------------------
def test_frames_cover_every_step_at_one_size(sample):
    doc, story, renderer, images = sample
    n = len(story.steps)
    assert n == 4
    assert len(images) == (1 + HOLD) + n * (animation.GLIDE + FPS_STEP + HOLD)
    assert len(images) == animation.frame_count(story, FPS_STEP, HOLD)
    sizes = {(im.width(), im.height()) for im in images}
    assert len(sizes) == 1
    rect = animation.canvas_rect(renderer)
    for i in range(n):
        assert rect.contains(renderer.bounds(i))
    assert sizes.pop() == (round(rect.width() * 0.5), round(rect.height() * 0.5))


def test_the_cotangent_moves_within_a_step(sample):
    _, story, _, images = sample
    plan = animation.frame_plan(len(story.steps), FPS_STEP, HOLD)
    contribution = next(s.index for s in story.steps if s.kind == "contribution")
    idx = [i for i, frame in enumerate(plan) if frame.shot == (contribution, contribution, 0, 0)]
    first, last = animation_files._rgb(images[idx[0]]), animation_files._rgb(images[idx[FPS_STEP - 1]])
    assert not np.array_equal(first, last)
    # The held frames repeat the finished picture.
    assert np.array_equal(last, animation_files._rgb(images[idx[-1]]))


# -- PNG sequence ---------------------------------------------------------------------------
def test_png_sequence(sample, tmp_path):
    *_, images = sample
    paths = animation_files.write_png_sequence(images, tmp_path / "seq", "matmul")
    assert [p.name for p in paths[:2]] == ["matmul_0001.png", "matmul_0002.png"]
    assert len(paths) == len(images) == len(list((tmp_path / "seq").glob("*.png")))
    back = QImage(str(paths[7]))
    assert back.size() == images[7].size()
    assert np.array_equal(animation_files._rgb(back), animation_files._rgb(images[7]))


# -- APNG -----------------------------------------------------------------------------------
def test_apng_structure(sample, tmp_path):
    *_, images = sample
    path = tmp_path / "anim.png"
    written = animation_files.write_apng(images, path, fps=4)
    data = path.read_bytes()
    chunks = png.chunks(data)  # raises on a bad CRC
    kinds = [k for k, _ in chunks]
    assert kinds[0] == b"IHDR" and kinds[1] == b"acTL" and kinds[-1] == b"IEND"
    width, height = struct.unpack(">II", chunks[0][1][:8])
    assert (width, height) == (images[0].width(), images[0].height())
    num_frames, plays = struct.unpack(">II", chunks[1][1])
    assert num_frames == written == _distinct_count(images)
    assert plays == 0
    fctl = [struct.unpack(">IIIIIHHBB", p) for k, p in chunks if k == b"fcTL"]
    assert len(fctl) == num_frames
    # Sequence numbers run 0, 1, 2 ... over fcTL and fdAT together.
    seqs = [struct.unpack(">I", p[:4])[0] for k, p in chunks if k in (b"fcTL", b"fdAT")]
    assert seqs == list(range(len(seqs)))
    # Frame 0 is the whole canvas; the others lie inside it; delays add up to the frames.
    assert fctl[0][1:5] == (width, height, 0, 0)
    for _, w, h, x, y, num, den, dispose, blend in fctl:
        assert x + w <= width and y + h <= height and den == 1000 and dispose == 0 and blend == 0
    assert sum(f[5] for f in fctl) == pytest.approx(len(images) * 250, abs=len(fctl))
    # The default image (frame 0) decodes with plain QImage and equals the first frame.
    first = QImage.fromData(data, "PNG")
    assert np.array_equal(animation_files._rgb(first), animation_files._rgb(images[0]))


def apng_pictures(path):
    """Every picture of an APNG, its fdAT rectangles composed as a viewer does."""
    chunks = png.chunks(path.read_bytes())
    ihdr = chunks[0][1]
    canvas = None
    pictures = []
    pending = None

    def flush():
        nonlocal canvas
        if pending is None:
            return
        (w, h, x, y), datas = pending
        data = png.SIGNATURE + png.chunk(b"IHDR", struct.pack(">II", w, h) + ihdr[8:])
        data += b"".join(png.chunk(b"IDAT", d) for d in datas) + png.chunk(b"IEND", b"")
        part = animation_files._rgb(QImage.fromData(data, "PNG"))
        if canvas is None:
            canvas = part.copy()
        else:
            canvas[y:y + h, x:x + w] = part
        pictures.append(canvas.copy())

    for kind, payload in chunks:
        if kind == b"fcTL":
            flush()
            _, w, h, x, y, *_ = struct.unpack(">IIIIIHHBB", payload)
            pending = ((w, h, x, y), [])
        elif kind == b"IDAT" and pending is not None:
            pending[1].append(payload)
        elif kind == b"fdAT":
            pending[1].append(payload[4:])
    flush()
    return pictures


def test_apng_frames_rebuild_every_picture(sample, tmp_path):
    """Compose the fdAT rectangles as a viewer does and compare every frame."""
    *_, images = sample
    path = tmp_path / "anim.png"
    animation_files.write_apng(images, path, fps=4)
    pictures = apng_pictures(path)
    expected = [animation_files._rgb(images[0])]
    for im in images[1:]:
        a = animation_files._rgb(im)
        if not np.array_equal(a, expected[-1]):
            expected.append(a)
    assert len(pictures) == len(expected)
    for got, want in zip(pictures, expected):
        assert np.array_equal(got, want)


# -- GIF ------------------------------------------------------------------------------------
def lzw_decode(data, min_code_size):
    """A plain GIF LZW decoder (variable code width, clear and end codes, KwKwK)."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    size = min_code_size + 1
    table = [[i] for i in range(clear)] + [None, None]
    out, prev = [], None
    bits = nbits = pos = 0
    while True:
        while nbits < size:
            if pos >= len(data):
                raise ValueError("the code stream ends without an end code")
            bits |= data[pos] << nbits
            pos += 1
            nbits += 8
        code = bits & ((1 << size) - 1)
        bits >>= size
        nbits -= size
        if code == clear:
            table = table[:clear + 2]
            size = min_code_size + 1
            prev = None
            continue
        if code == end:
            return out
        if prev is None:
            entry = table[code]
        else:
            if code < len(table):
                entry = table[code]
                table.append(prev + entry[:1])
            elif code == len(table):
                entry = prev + prev[:1]
                table.append(entry)
            else:
                raise ValueError(f"code {code} is not in the table ({len(table)})")
            if len(table) == (1 << size) and size < 12:
                size += 1
        out += entry
        prev = entry


def paste(canvas, frame):
    """`canvas` (palette indices) with a frame of `read_gif` drawn over it: its transparent
    pixels (-1) leave what lies under them (each frame stays under the next: disposal 1)."""
    x, y, w, h, _, indices = frame
    canvas[y:y + h, x:x + w] = np.where(indices >= 0, indices, canvas[y:y + h, x:x + w])
    return canvas


def read_gif(data, decode=True):
    """(width, height, palette, [(x, y, w, h, delay, indices)], loop) of a GIF89a
    (`decode` False: indices None, for the frames' places and times alone; a transparent
    pixel's index is -1)."""
    assert data[:6] == b"GIF89a"
    width, height, packed, _, _ = struct.unpack("<HHBBB", data[6:13])
    assert packed & 0x80
    n = 2 << (packed & 7)
    palette = np.frombuffer(data[13:13 + 3 * n], np.uint8).reshape(n, 3)
    pos = 13 + 3 * n
    frames, delay, loop, transparent = [], None, None, None
    while True:
        kind = data[pos]
        if kind == 0x3B:
            return width, height, palette, frames, loop
        if kind == 0x21:
            label = data[pos + 1]
            pos += 2
            blocks = []
            while data[pos]:
                blocks.append(data[pos + 1:pos + 1 + data[pos]])
                pos += 1 + data[pos]
            pos += 1
            if label == 0xF9:
                flags, delay, index = struct.unpack("<BHB", blocks[0][:4])
                assert flags >> 2 & 7 == 1          # the frame stays under the next
                transparent = index if flags & 1 else None
            elif label == 0xFF and blocks[0] == b"NETSCAPE2.0":
                loop = struct.unpack("<H", blocks[1][1:3])[0]
            continue
        assert kind == 0x2C
        x, y, w, h, flags = struct.unpack("<HHHHB", data[pos + 1:pos + 10])
        assert flags == 0
        pos += 10
        min_code = data[pos]
        pos += 1
        stream = bytearray()
        while data[pos]:
            stream += data[pos + 1:pos + 1 + data[pos]]
            pos += 1 + data[pos]
        pos += 1
        if not decode:
            frames.append((x, y, w, h, delay, None))
            continue
        indices = np.array(lzw_decode(bytes(stream), min_code), np.int16)
        assert indices.size == w * h and 2 <= min_code <= 8 and indices.max() < 1 << min_code
        if transparent is not None:
            indices[indices == transparent] = -1
        frames.append((x, y, w, h, delay, indices.reshape(h, w)))


@pytest.mark.cpu_independent("LZW codes of integer bytes, decoded back: integers only")
@pytest.mark.parametrize("numba", [True, False])
def test_lzw_round_trip(numba, monkeypatch):
    rng = np.random.default_rng(4)
    if not numba:
        monkeypatch.setattr(animation_files, "_lzw_kernel", lambda: None)
    elif animation_files._LZW.wait() is None:
        pytest.skip("numba is not installed")
    for data in (np.zeros(70000, np.uint8),                      # long runs: table fills and clears
                 rng.integers(0, 256, 60000).astype(np.uint8),   # noise: 12-bit codes, many clears
                 np.repeat(rng.integers(0, 5, 9000), 7).astype(np.uint8),
                 np.array([7], np.uint8), np.arange(256, dtype=np.uint8)):
        assert lzw_decode(animation_files.lzw_encode(data), 8) == data.tolist()


@pytest.mark.cpu_independent("LZW codes of integer bytes: integers only")
def test_lzw_numba_and_python_agree():
    data = np.repeat(np.random.default_rng(1).integers(0, 40, 30000), 3).astype(np.uint8)
    if animation_files._LZW.wait() is None:
        pytest.skip("numba is not installed")
    assert animation_files.lzw_encode(data) == animation_files._lzw_python(data)


def test_gif_decodes_to_the_quantized_frames(sample, tmp_path):
    """Each frame decodes to the frame drawn in the story's palette, its flat colours
    exact. An anti-aliased pixel lies on a ramp between two flat colours that holds one
    in-between colour (gif_palette.RAMP_LEVELS): it is at most a quarter of the ramp
    off (black text on white: 64 a channel), no longer within 48 as with the 256 most
    used colours: as smooth to read at the default 2x, each edge in fewer colours, 20-25 %
    fewer bytes (bench/README.md, "GIF sizes")."""
    *_, images = sample
    path = tmp_path / "anim.gif"
    written = animation_files.write_gif(images, path, fps=5)
    width, height, palette, frames, loop = read_gif(path.read_bytes())
    assert (width, height) == (images[0].width(), images[0].height())
    assert loop == 0
    assert len(frames) == written == _distinct_count(images)
    assert frames[0][:4] == (0, 0, width, height)
    assert sum(f[4] for f in frames) == pytest.approx(len(images) * 20, abs=len(frames))
    # Compose and compare with the input drawn in the story's palette of every eighth frame.
    arrays = [animation_files._rgb(im) for im in images]
    distinct = [arrays[0]] + [b for a, b in zip(arrays, arrays[1:]) if not np.array_equal(a, b)]
    story = gif_palette.StoryPalette(distinct[::max(1, len(distinct) // 8)])
    assert np.array_equal(palette[:len(story)], story.colours)
    canvas = np.zeros((height, width), np.uint8)
    for frame, rgb in zip(frames, distinct):
        paste(canvas, frame)
        assert np.array_equal(canvas, story(rgb))
        # Flat colours survive exactly; anti-aliased pixels stay close.
        error = np.abs(palette[canvas].astype(int) - rgb.astype(int)).max(axis=2)
        exact = np.isin(gif_palette._pack(rgb), gif_palette._pack(story.colours[None]))
        assert exact.mean() > 0.9 and not error[exact].any()
        assert np.percentile(error, 99.9) <= 255 / 4 + 8


def test_a_gifs_moving_part_stores_only_the_pixels_that_changed(sample, tmp_path, monkeypatch):
    """Lesson 14's GIF was 5.1 MB: the rectangle a moving cotangent changes was stored
    whole, though most of its pixels (the cards and edges it passes over) stay as they
    were. Those are now transparent where that codes smaller (the frame before shows
    through: disposal 1), and a frame's LZW codes start as small as its colours allow.
    The cotangent's frames here store transparent pixels, the file is smaller than with
    none, and Qt's own GIF reader shows every frame as composing ours gives it."""
    *_, images = sample
    path, whole = tmp_path / "holes.gif", tmp_path / "whole.gif"
    assert animation_files.write_gif(images, path, fps=5) == _distinct_count(images)
    width, height, palette, frames, _ = read_gif(path.read_bytes())
    holed = [k for k, f in enumerate(frames) if (f[5] < 0).any()]
    assert len(holed) >= len(frames) // 2
    encoded = animation_files._encoded
    monkeypatch.setattr(animation_files, "_encoded",
                        lambda indices, transparent=None: encoded(indices) if transparent is None
                        else (8, b"x" * indices.size, transparent))   # never smaller: no holes
    animation_files.write_gif(images, whole, fps=5)
    assert not any((f[5] < 0).any() for f in read_gif(whole.read_bytes())[3])
    assert path.stat().st_size < 0.9 * whole.stat().st_size
    reader = QImageReader(str(path))
    canvas = np.zeros((height, width), np.int16)
    for k, frame in enumerate(frames):
        shown = reader.read().convertToFormat(QImage.Format.Format_RGB32)
        assert not shown.isNull(), k
        assert np.array_equal(animation_files._rgb(shown), palette[paste(canvas, frame)]), k


def _glide_pictures():
    """[(rgb, image)]: a picture held, three the camera passes through (each shifted, the
    whole picture changed), one held: 96 x 48, 6 x 6 blocks of 128 flat colours."""
    h, w = 48, 96
    ramp = np.stack(np.meshgrid(np.arange(w) // 6, np.arange(h) // 6), axis=2)
    out = []
    for k in range(5):
        rgb = np.ascontiguousarray(np.dstack([(ramp[..., 0] * 15 + 7 * k) % 256, ramp[..., 1] * 30,
                                              (ramp[..., 0] * 11 + ramp[..., 1] * 3 + 11 * k) % 256]).astype(np.uint8))
        image = QImage(rgb.tobytes(), w, h, 3 * w, QImage.Format.Format_RGB888).convertToFormat(
            QImage.Format.Format_RGB32)
        out.append((rgb, image))
    return out


def test_frames_the_camera_passes_through_have_fewer_colours(tmp_path):
    """A glide's frames redraw the whole picture and are on screen for one frame: each
    stored with PASSING_COLOURS colours (the first of the story's palette: its ramps' ends,
    then the most used) costs a fifth less in a GIF (Newton's lesson: 70 kB a frame), half
    in an APNG. Every frame that stays and the one after the glide keep every colour: after
    decoding, each picture is its frame drawn in the colours it was meant for (the APNG:
    exact). (The palette was passed in; the writers now make it: `StoryPalette`.)"""
    pictures = _glide_pictures()
    frames = [pictures[0][1]] * 3 + [p[1] for p in pictures[1:4]] + [pictures[4][1]] * 5
    palette = gif_palette.StoryPalette([p[0] for p in pictures])   # every frame sampled
    assert len(palette) > 2 * animation_files.PASSING_COLOURS
    coarse = palette.first(animation_files.PASSING_COLOURS)
    path = tmp_path / "glide.gif"
    assert animation_files.write_gif(iter(frames), path, fps=25) == 5
    _, _, colours, stored, _ = read_gif(path.read_bytes())
    assert np.array_equal(colours[:len(palette)], palette.colours)
    assert [f[4] for f in stored] == [12, 4, 4, 4, 20]
    canvas = np.zeros((48, 96), np.uint8)
    for k, (frame, (rgb, _)) in enumerate(zip(stored, pictures)):
        paste(canvas, frame)
        passing = k in (1, 2, 3)
        assert np.array_equal(canvas, (coarse if passing else palette)(rgb)), k
        assert (canvas.max() < animation_files.PASSING_COLOURS) == passing
    path = tmp_path / "glide.png"
    assert animation_files.write_apng(iter(frames), path, fps=25) == 5
    for k, (got, (rgb, _)) in enumerate(zip(apng_pictures(path), pictures)):
        want = coarse.colours[coarse(rgb)] if k in (1, 2, 3) else rgb
        assert np.array_equal(got, want), k
        assert (len(np.unique(gif_palette._pack(got))) <= animation_files.PASSING_COLOURS) == (k in (1, 2, 3))


def test_an_apng_keeps_one_colour_table_not_two(tmp_path):
    """An APNG draws only its glides' frames in colours of the story's palette, all in its
    first PASSING_COLOURS: it made the whole palette's table of every 24-bit colour too
    (32 MB) and never read it. The most memory its writer holds at once is now below two
    such tables (one, and the frames' few kB; no lower bound: a writer that needs no
    table at all would do better); and the pictures are those of
    test_frames_the_camera_passes_through_have_fewer_colours."""
    import tracemalloc
    pictures = _glide_pictures()
    frames = [pictures[0][1]] * 3 + [p[1] for p in pictures[1:4]] + [pictures[4][1]] * 5
    table = (1 << 24) * np.dtype(np.uint16).itemsize
    tracemalloc.start()
    try:
        assert animation_files.write_apng(iter(frames), tmp_path / "glide.png", fps=25) == 5
        most = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert most < 1.5 * table


def test_a_palettes_ramps_to_its_line_colours_are_added_not_worked_out_again():
    """StoryPalette measured every colour's distance to every ramp twice: before and after
    its line colours (a highlight's ring) became ramps' ends too. The second time now
    works out only the ramps to those new ends: the same distances as all worked out again."""
    rng = np.random.default_rng(7)
    colours = rng.integers(0, 256, (600, 3)).astype(np.float64)
    ends = rng.integers(0, 256, (9, 3)).astype(np.float64)
    known = gif_palette._misses(colours, ends[:6])
    assert np.array_equal(gif_palette._misses(colours, ends, since=6, known=known),
                          gif_palette._misses(colours, ends))


def test_gif_palette_keeps_the_theme_colours(sample):
    """The story's palette holds its flat colours exactly (backgrounds, headers) and, given
    the theme's colours, those the frames use (text colours too), first: the ends of its
    ramps. A theme colour that no frame uses takes no place."""
    *_, images = sample
    rgb = lambda h: tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))  # noqa: E731
    frame = animation_files._rgb(images[-1])
    colours = {tuple(c) for c in gif_palette.StoryPalette([frame]).colours.tolist()}
    for flat in ("#ffffff", "#1565c0", "#2e7d32", "#fff1e6", "#eef3fa"):   # backgrounds, headers
        assert rgb(flat) in colours, flat
    keep = animation_files.theme_colours("light")
    assert "#b34700" in keep and "#1d4f91" in keep
    palette = gif_palette.StoryPalette([frame], keep=keep)
    assert len(palette) <= 256
    packed = set(gif_palette._pack(frame).ravel().tolist())
    used = [h for h in keep if int(h[1:], 16) in packed]
    assert "#1d4f91" in used and "#c62828" not in used            # value text; no error shown
    assert [tuple(c) for c in palette.colours[:len(used)].tolist()] == [rgb(h) for h in used]


def test_qt_reads_the_gif(sample, tmp_path):
    if b"gif" not in [bytes(f) for f in QImageReader.supportedImageFormats()]:
        pytest.skip("this Qt has no GIF reader")
    *_, images = sample
    path = tmp_path / "anim.gif"
    written = animation_files.write_gif(images, path, fps=5)
    reader = QImageReader(str(path))
    assert reader.supportsAnimation()
    count = 0
    last = None
    while reader.canRead():
        image = reader.read()
        if image.isNull():
            break
        last = image
        count += 1
    assert count == written
    assert (last.width(), last.height()) == (images[-1].width(), images[-1].height())
    error = np.abs(animation_files._rgb(last).astype(int) - animation_files._rgb(images[-1]).astype(int)).max(axis=2)
    assert np.mean(error == 0) > 0.93


def test_writers_leave_no_partial_file(sample, tmp_path):
    *_, images = sample

    def cancelled():
        yield images[0]
        yield images[5]
        raise animation.Cancelled()

    for name, write in (("a.gif", animation_files.write_gif), ("a.png", animation_files.write_apng)):
        with pytest.raises(animation.Cancelled):
            write(cancelled(), tmp_path / name, fps=4)
    assert list(tmp_path.iterdir()) == []


def test_write_animation_by_suffix(sample, tmp_path):
    *_, images = sample
    assert animation_files.write_animation(images[:4], tmp_path / "a.gif") >= 1
    assert animation_files.write_animation(images[:4], tmp_path / "a.apng") >= 1
    with pytest.raises(ValueError):
        animation_files.write_animation(images[:4], tmp_path / "a.mp4")


def test_the_answer_appears_only_at_its_accumulation_step(sample):
    """Intro frames and every frame before the source's accumulate step show the gradient
    as pending; the accumulate step shows it as the final, still picture does."""
    doc, story, renderer, images = sample
    source = doc.sources[0].node
    rect = animation.canvas_rect(renderer)
    card = renderer.rect(source).translated(-rect.left(), -rect.top())
    box = [round(v * 0.5) for v in (card.left(), card.top(), card.width(), card.height())]

    def crop(image):
        return animation_files._rgb(image)[box[1]:box[1] + box[3], box[0]:box[0] + box[2]]

    plan = animation.frame_plan(len(story.steps), FPS_STEP, HOLD)
    final = next(s.index for s in story.steps if s.kind == "accumulate")
    pending = [crop(im) for im, frame in zip(images, plan) if frame.step is None or frame.step < final]
    shown = [crop(im) for im, frame in zip(images, plan) if frame.step is not None and frame.step >= final]
    assert pending and shown
    assert all(np.array_equal(p, pending[0]) for p in pending)
    assert all(np.array_equal(s, shown[0]) for s in shown)
    assert not np.array_equal(pending[0], shown[0])
    assert renderer.story_index is None            # the renderer is left as it was


def test_animation_to_a_full_disk_keeps_the_old_file(full_disk, fill_disk):
    from PySide6.QtGui import QColor, QImage
    out = full_disk / "story.gif"
    out.write_bytes(b"the old animation")
    fill_disk(full_disk)
    frames = []
    for shade in range(0, 250, 10):
        image = QImage(200, 200, QImage.Format.Format_RGB32)
        image.fill(QColor(shade, 255 - shade, (shade * 7) % 255))
        frames.append(image)
    for write in (animation_files.write_gif, animation_files.write_apng):
        with pytest.raises(OSError):
            write(frames, out)
        assert out.read_bytes() == b"the old animation"
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "story.gif"]


@pytest.mark.parametrize("name", ["a.gif", "a.png"])
def test_a_writer_holds_a_few_frames_at_once_not_all(tmp_path, monkeypatch, name):
    """Writing Newton's lesson held every frame's pixels at once (193 frames of 6.2 MB at
    1920 x 1080: 1.3 GB, lesson 14 2 GB, an out-of-memory kill on a student's laptop). A
    writer draws, converts and stores one frame at a time: of the 40 distinct frames'
    pixels (what `_rgb` makes of each), at most 3 are alive at any moment, and the file
    still holds all 40, each picture exact."""
    alive, most = set(), [0]

    def rgb(image):
        array = png.rgb_array(image)
        key = id(array)
        alive.add(key)
        weakref.finalize(array, alive.discard, key)
        most[0] = max(most[0], len(alive))
        return array

    pictures = []
    for k in range(40):
        rgb_k = np.zeros((24, 80, 3), np.uint8)
        rgb_k[:, :, 0] = 255
        rgb_k[4:20, 2 * k:2 * k + 6] = (20, 90, 200)     # a block moving right
        pictures.append(rgb_k)
    images = (QImage(p.tobytes(), 80, 24, 240, QImage.Format.Format_RGB888).copy() for p in pictures)
    monkeypatch.setattr(animation_files, "_rgb", rgb)
    write = animation_files.write_gif if name.endswith(".gif") else animation_files.write_apng
    assert write(images, tmp_path / name, fps=25) == 40
    assert 1 <= most[0] <= 3
    if name.endswith(".png"):
        back = apng_pictures(tmp_path / name)
    else:
        _, _, palette, stored, _ = read_gif((tmp_path / name).read_bytes())
        canvas, back = np.zeros((24, 80), np.uint8), []
        for frame in stored:
            back.append(palette[paste(canvas, frame)])
    assert len(back) == 40
    for k, (got, want) in enumerate(zip(back, pictures)):
        assert np.array_equal(got, want), k
