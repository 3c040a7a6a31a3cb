"""An animation's frames written to files: a numbered PNG sequence, APNG and GIF.

QtGui and numpy only. The PNG frames come from render.png; the APNG container
(acTL/fcTL/fdAT) and the GIF89a encoder (LZW; its palette in render.gif_palette) are written
here, so no imaging library is needed. Both animated formats store only the rectangle that
changed since the previous frame (a GIF with the pixels in it that stayed transparent, where
that codes smaller), and merge identical consecutive frames into one longer frame: a story
step that holds still costs one frame, not many. The frames come from
render.animation.frames (or any iterable of QImages), streamed through a Spool: never all of
them in memory.
"""
from __future__ import annotations

import struct
import tempfile
import zlib
from pathlib import Path

import numpy as np

from ..engine import kernels
from ..graph.atomic import write_bytes, write_file
from . import png
from .animation import FPS
from .gif_palette import StoryPalette
from .themes import get_theme


# -- helpers ----------------------------------------------------------------------------
_rgb = png.rgb_array


def _changed_box(a, b):
    """(x, y, w, h) of the pixels that differ between two frames, or None if none do."""
    diff = (a != b).reshape(a.shape[0], -1)   # rows of pixels' channels side by side
    rows = np.flatnonzero(diff.any(axis=1))
    if rows.size == 0:
        return None
    top, bottom = int(rows[0]), int(rows[-1])
    cols = diff[top:bottom + 1].any(axis=0)    # only the rows that changed: few, for a moving arrow
    if a.ndim == 3:
        cols = cols.reshape(-1, a.shape[2]).any(axis=1)
    cols = np.flatnonzero(cols)
    return int(cols[0]), top, int(cols[-1] - cols[0] + 1), bottom - top + 1


class Spool:
    """The distinct frames of an animation, drawn once and kept as what each changes: an
    animated file's palette and its frame count go before its frames, and whether a frame
    is one the camera passes through depends on the next one, so a writer reads its frames
    twice. Kept whole they took 6.2 MB each at 1920 x 1080 (Newton's lesson: 1.3 GB,
    lesson 14: 2 GB, an out-of-memory kill on a laptop); here each frame's changed
    rectangle (`_changed_box`) is deflated into an unnamed temporary file (gone with the
    process, whatever ends it), and `arrays()` rebuilds the frames one at a time.

    `repeats[k]`: how many consecutive frames of the source frame k stands for (identical
    ones merged; a held frame, the same image again, is not even converted); `boxes[k]`:
    the rectangle frame k changes (the first: all of it); `passing`: `passing_frames`."""

    def __init__(self, frames, convert):
        self.repeats, self.boxes, self._spans = [], [], []
        self._file = tempfile.TemporaryFile()
        try:
            self._read(frames, convert)
        except BaseException:
            self._file.close()
            raise
        self.passing = passing_frames(self.shape, self.repeats, self.boxes) if self.repeats else []

    def _read(self, frames, convert):
        last = previous = None
        for image in frames:
            if self.repeats and image is last:
                self.repeats[-1] += 1
                continue
            last = image
            array = convert(image)
            if previous is None:
                self.shape = array.shape
                if array.ndim != 3 or array.shape[2] != 3:
                    raise ValueError("every frame must have the size of the first")
                box = (0, 0, array.shape[1], array.shape[0])
            elif array.shape != self.shape:
                raise ValueError("every frame must have the size of the first")
            else:
                box = _changed_box(previous, array)
                if box is None:
                    self.repeats[-1] += 1
                    continue
            x, y, w, h = box
            data = zlib.compress(np.ascontiguousarray(array[y:y + h, x:x + w]).tobytes(), 1)
            self._spans.append(len(data))
            self._file.write(data)
            self.repeats.append(1)
            self.boxes.append(box)
            previous = array

    def __len__(self):
        return len(self.repeats)

    def arrays(self):
        """Each distinct frame, (height, width, 3) uint8, in order: a new array each (the
        writer compares a frame with the one before)."""
        self._file.seek(0)
        array = np.zeros(self.shape, np.uint8)
        for (x, y, w, h), span in zip(self.boxes, self._spans):
            array = array.copy()
            array[y:y + h, x:x + w] = np.frombuffer(zlib.decompress(self._file.read(span)),
                                                    np.uint8).reshape(h, w, 3)
            yield array

    def sampled(self):
        """Every eighth or so of the frames: what a palette is made from."""
        every = max(1, len(self) // 8)
        return (a for k, a in enumerate(self.arrays()) if k % every == 0)

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# A frame the camera passes through is on screen for one frame (1/25 s) and redraws the
# whole picture: an APNG draws it with PASSING_COLOURS colours of the story's palette
# (`StoryPalette`: each pixel on its own ramp), half the bytes of its exact colours. Every
# frame that stays, and every frame of the cotangent's motion, keeps all its colours. (A
# GIF draws every frame in one palette: see `write_gif`.)
PASSING_COLOURS = 32
PASSING_SHARE = 0.5    # a frame changes the whole picture when its change covers this much of it


def passing_frames(shape, repeats, boxes):
    """[bool] for each distinct frame of `shape` (shown `repeats[k]` times; `boxes[k]`: the
    change into frame k, None for none): the frames the camera passes through: shown once,
    between two changes that each cover at least PASSING_SHARE of the picture."""
    height, width = shape[:2]

    def whole(box):
        return box is not None and box[2] * box[3] >= PASSING_SHARE * width * height

    return [0 < k < len(repeats) - 1 and repeat == 1 and whole(boxes[k]) and whole(boxes[k + 1])
            for k, repeat in enumerate(repeats)]


# -- PNG sequence ----------------------------------------------------------------------
def write_png_sequence(frames, directory, stem="frame"):
    """stem_0001.png, stem_0002.png ... in `directory` (made if missing); returns the paths.

    Every frame is written, held frames too, so video tools can assume a constant rate.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    try:
        for i, image in enumerate(frames, start=1):
            path = directory / f"{stem}_{i:04d}.png"
            write_bytes(path, png.encode(png.rgb_array(image)))
            paths.append(path)
    except BaseException:   # cancelled or failed: no half sequence left behind
        for path in paths:
            try:
                path.unlink()
            except OSError:
                pass
        raise
    return paths


# -- APNG --------------------------------------------------------------------------------
# A gliding camera redraws whole frames: deflate level 6 stores them a quarter smaller than
# the PNG export's quick level 2 (Newton's lesson, one 1920 x 1080 frame: 74 kB for 100 kB).
APNG_LEVEL = 6

def write_apng(frames, path, fps=FPS, loop=0, keep=()):
    """An animated PNG: frame 0 is the full picture, later frames the changed rectangle.
    A frame the camera passes through (`passing_frames`) is drawn with PASSING_COLOURS
    colours (a `StoryPalette`, `keep`: the theme's hex colours); the others exact.

    Returns the number of frames written (identical consecutive frames are merged).
    """
    with Spool(frames, _rgb) as spool:
        if not len(spool):
            raise ValueError("no frames to write")
        return write_file(path, lambda f: _write_apng(f, spool, fps, loop, keep))


def _write_apng(f, spool, fps, loop, keep):
    frame_ms = 1000.0 / max(0.1, float(fps))
    height, width, _ = spool.shape
    if any(spool.passing):
        coarse = StoryPalette(spool.sampled(), keep=keep).first(PASSING_COLOURS)
    seq = 0
    previous = None
    for index, (array, repeat) in enumerate(zip(spool.arrays(), spool.repeats)):
        if spool.passing[index]:
            array = coarse.colours[coarse(array)]
        box = (0, 0, width, height) if previous is None else _changed_box(previous, array) or (0, 0, 1, 1)
        x, y, w, h = box
        if index == 0:
            f.write(png.SIGNATURE)
            f.write(png.chunk(b"IHDR", png.header(width, height)))
            f.write(png.chunk(b"acTL", struct.pack(">II", len(spool), loop)))
        delay = max(1, round(frame_ms * repeat))
        f.write(png.chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, x, y, min(delay, 65535),
                                               1000, 0, 0)))
        seq += 1
        data = png.image_data(array[y:y + h, x:x + w], level=APNG_LEVEL)
        if index == 0:
            f.write(png.chunk(b"IDAT", data))
        else:
            f.write(png.chunk(b"fdAT", struct.pack(">I", seq) + data))
            seq += 1
        previous = array
    f.write(png.chunk(b"IEND", b""))
    return len(spool)


# -- GIF ---------------------------------------------------------------------------------
def theme_colours(theme):
    """The hex colours of a render theme (its flat colours, worth keeping exact in a GIF)."""
    t = get_theme(theme)
    out = []
    for value in vars(t).values():
        items = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else [value]
        out += [v for v in items if isinstance(v, str) and v.startswith("#") and len(v) == 7]
    return list(dict.fromkeys(out))


def _lzw_python(indices, min_code_size=8):
    """GIF LZW of a flat uint8 array: bytes (before splitting into sub-blocks)."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out = bytearray()
    bits = nbits = 0
    code_size = min_code_size + 1

    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += code_size
        while nbits >= 8:
            out.append(bits & 255)
            bits >>= 8
            nbits -= 8

    table = {}
    next_code = end + 1
    emit(clear)
    data = indices.tolist()
    if not data:
        emit(end)
        if nbits:
            out.append(bits & 255)
        return bytes(out)
    prefix = data[0]
    for c in data[1:]:
        key = (prefix << 8) | c
        code = table.get(key)
        if code is not None:
            prefix = code
            continue
        emit(prefix)
        table[key] = next_code
        if next_code == (1 << code_size) and code_size < 12:
            code_size += 1
        next_code += 1
        if next_code == 4096:
            emit(clear)
            table.clear()
            next_code = end + 1
            code_size = min_code_size + 1
        prefix = c
    emit(prefix)
    if next_code == (1 << code_size) and code_size < 12:   # the decoder adds one more entry here
        code_size += 1
    emit(end)
    if nbits:
        out.append(bits & 255)
    return bytes(out)


def _lzw_arrays(indices, min_code_size, child, out):
    """The same LZW with arrays only (numba compiles this); returns the byte count."""
    clear = 1 << min_code_size
    end = clear + 1
    code_size = min_code_size + 1
    next_code = end + 1
    bits = 0
    nbits = 0
    n = 0
    child[:] = -1
    # emit(clear)
    bits |= clear << nbits
    nbits += code_size
    while nbits >= 8:
        out[n] = bits & 255
        n += 1
        bits >>= 8
        nbits -= 8
    prefix = np.int64(indices[0])
    for i in range(1, indices.shape[0]):
        c = np.int64(indices[i])
        code = child[prefix * 256 + c]
        if code >= 0:
            prefix = np.int64(code)
            continue
        bits |= prefix << nbits
        nbits += code_size
        while nbits >= 8:
            out[n] = bits & 255
            n += 1
            bits >>= 8
            nbits -= 8
        child[prefix * 256 + c] = next_code
        if next_code == (1 << code_size) and code_size < 12:
            code_size += 1
        next_code += 1
        if next_code == 4096:
            bits |= clear << nbits
            nbits += code_size
            while nbits >= 8:
                out[n] = bits & 255
                n += 1
                bits >>= 8
                nbits -= 8
            child[:] = -1
            next_code = end + 1
            code_size = min_code_size + 1
        prefix = c
    bits |= prefix << nbits
    nbits += code_size
    if next_code == (1 << code_size) and code_size < 12:
        code_size += 1
    while nbits >= 8:
        out[n] = bits & 255
        n += 1
        bits >>= 8
        nbits -= 8
    bits |= end << nbits
    nbits += code_size
    while nbits > 0:
        out[n] = bits & 255
        n += 1
        bits >>= 8
        nbits -= 8
    return n


NUMBA_MIN_PIXELS = 20000
_LZW = kernels.BackgroundKernel(
    _lzw_arrays, lambda: [(np.zeros(16, np.uint8), 8, np.empty(4096 * 256, np.int32),
                           np.empty(48, np.uint8))])


def _lzw_kernel():
    """The numba-compiled LZW (loaded on a worker, see kernels.BackgroundKernel), or None:
    then the Python LZW codes the frame."""
    return _LZW.get()


def lzw_encode(indices, min_code_size=8):
    """GIF LZW code stream of palette indices (numba for large frames, Python otherwise)."""
    flat = np.ascontiguousarray(indices, np.uint8).ravel()
    kernel = _lzw_kernel() if flat.size >= NUMBA_MIN_PIXELS else None
    if kernel is None or flat.size == 0:
        return _lzw_python(flat, min_code_size)
    child = np.empty(4096 * 256, np.int32)
    out = np.empty(flat.size * 2 + 16, np.uint8)   # 12-bit codes: at most 1.5 bytes per pixel
    n = kernel(flat, min_code_size, child, out)
    return out[:n].tobytes()


def _sub_blocks(data):
    out = bytearray()
    for i in range(0, len(data), 255):
        block = data[i:i + 255]
        out.append(len(block))
        out += block
    out.append(0)
    return bytes(out)


def _encoded(indices, transparent=None):
    """(LZW code size, LZW data, `transparent`) of a frame's palette `indices`: the code
    size as small as its largest index allows (a palette of 64 colours starts at 7-bit
    codes, not 9)."""
    code_size = max(2, int(indices.max()).bit_length()) if indices.size else 2
    return code_size, lzw_encode(indices, code_size), transparent


def write_gif(frames, path, fps=FPS, loop=0, keep=()):
    """An animated GIF89a (one global palette, NETSCAPE2.0 looping, changed rectangles only,
    in them the pixels that stay as they were transparent where that codes smaller: a moving
    arrow's rectangle is mostly what it was).

    The palette is a `StoryPalette` of the frames (`keep`: the theme's hex colours, e.g.
    `theme_colours(theme)`); a frame the camera passes through (`passing_frames`) uses
    only its first PASSING_COLOURS (`StoryPalette.first`), each pixel on its own ramp.

    Returns the number of frames written (identical consecutive frames are merged).
    """
    with Spool(frames, _rgb) as spool:
        if not len(spool):
            raise ValueError("no frames to write")
        height, width, _ = spool.shape
        if width > 65535 or height > 65535:
            raise ValueError("a GIF is at most 65535 pixels wide and high")
        palette = StoryPalette(spool.sampled(), keep=keep)
        return write_file(path, lambda f: _write_gif(f, spool, fps, loop, palette))


def _write_gif(f, spool, fps, loop, palette):
    height, width, _ = spool.shape
    table = np.zeros((256, 3), np.uint8)
    table[:len(palette)] = palette.colours
    centis = 100.0 / max(0.1, float(fps))
    f.write(b"GIF89a")
    f.write(struct.pack("<HHBBB", width, height, 0xF7, 0, 0))
    f.write(table.tobytes())
    f.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00")
    previous = None
    coarse, passing = palette.first(PASSING_COLOURS), spool.passing
    for k, (array, repeat) in enumerate(zip(spool.arrays(), spool.repeats)):
        # only the rectangle that changed is quantized again (the moving arrow); all of
        # the frame after one drawn coarse
        x, y, w, h = spool.boxes[0] if k == 0 or passing[k - 1] else spool.boxes[k] or (0, 0, 0, 0)
        indices = np.empty((height, width), np.uint8) if previous is None else previous.copy()
        indices[y:y + h, x:x + w] = (coarse if passing[k] else palette)(array[y:y + h, x:x + w])
        box = spool.boxes[0] if previous is None else _changed_box(previous, indices)
        if box is None:                  # differs only below the palette's resolution
            box = (0, 0, 1, 1)
        x, y, w, h = box
        sub = indices[y:y + h, x:x + w]
        code_size, data, transparent = _encoded(sub)
        if previous is not None and not passing[k]:     # a glide's frame: hardly a pixel stays
            unused = np.flatnonzero(np.bincount(sub.ravel(), minlength=256) == 0)
            if unused.size:
                kept = np.where(sub == previous[y:y + h, x:x + w], np.uint8(unused[0]), sub)
                with_holes = _encoded(kept, int(unused[0]))
                if len(with_holes[1]) < len(data):
                    code_size, data, transparent = with_holes
        delay = min(65535, max(2, round(centis * repeat)))
        flags = 0x04 | (transparent is not None)       # each frame stays under the next (disposal 1)
        f.write(b"\x21\xf9\x04" + struct.pack("<BHB", flags, delay, transparent or 0) + b"\x00")
        f.write(b"\x2c" + struct.pack("<HHHHB", x, y, w, h, 0))
        f.write(bytes([code_size]))
        f.write(_sub_blocks(data))
        previous = indices
    f.write(b"\x3b")
    return len(spool)


def write_animation(frames, path, fps=FPS, theme=None):
    """By suffix: .gif, .png/.apng (APNG); returns the number of frames written."""
    suffix = Path(path).suffix.lower()
    if suffix == ".gif":
        return write_gif(frames, path, fps, keep=theme_colours(theme) if theme is not None else ())
    if suffix in (".png", ".apng"):
        return write_apng(frames, path, fps, keep=theme_colours(theme) if theme is not None else ())
    raise ValueError(f"cannot write an animation to '{Path(path).name}': use .gif or .png (APNG)")
