"""PNG encoding of RGB pixels, shared by the still export and the APNG animation.

Qt's PNG writer (libpng with adaptive row filters) spends ~30 ns a pixel here. A graph
picture is mostly flat background, so unfiltered rows and a fast deflate are several
times faster and the files stay small; the rows are compressed in a few blocks on
threads (zlib and numpy's copies release the GIL), joined with sync flushes.
`BandWriter` codes a still picture while it is being painted, band by band.
"""
from __future__ import annotations

import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from PySide6.QtGui import QImage
from . import png_fast

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ADLER_BASE = 65521
_ROWS_PER_PASS = 32          # rows copied into the filter buffer at a time: stays in cache


def rgb_array(image):
    """(height, width, 3) uint8 copy of any QImage's pixels."""
    converted = image.convertToFormat(QImage.Format.Format_RGB888)
    return rgb_view(converted).copy()           # copied while `converted` still holds the pixels


def rgb_view(image):
    """(height, width, 3) uint8 view of an RGB888 QImage's pixels, valid while `image` lives."""
    if image.format() != QImage.Format.Format_RGB888:
        raise ValueError("rgb_view needs an RGB888 image")
    w, h, stride = image.width(), image.height(), image.bytesPerLine()
    data = np.frombuffer(image.constBits(), np.uint8, count=stride * h).reshape(h, stride)
    return data[:, :w * 3].reshape(h, w, 3)


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def chunks(data):
    """[(type, payload)] of a PNG byte string, CRCs checked."""
    if data[:8] != SIGNATURE:
        raise ValueError("not a PNG")
    out, pos = [], 8
    while pos < len(data):
        length, = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        payload = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if crc != zlib.crc32(kind + payload):
            raise ValueError(f"bad CRC in the {kind.decode('latin-1')} chunk at byte {pos}")
        out.append((kind, payload))
        pos += 12 + length
    return out


def header(width, height):
    """The IHDR payload of an 8-bit RGB, non-interlaced image."""
    return struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)


def image_data(rgb, level=2):
    """The zlib stream (IDAT payload) of an (h, w, 3) uint8 array, rows unfiltered."""
    rgb = np.asarray(rgb, np.uint8)
    height = rgb.shape[0]
    workers = max(1, min(os.cpu_count() or 1, 8, height // 256))
    bounds = np.linspace(0, height, workers + 1).astype(int)
    jobs = [(rgb[a:b], level, i == workers - 1) for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(lambda job: _deflate_rows(*job), jobs))
    else:
        parts = [_deflate_rows(*jobs[0])]
    return _zlib_stream(parts)


def _zlib_stream(parts):
    """One zlib stream from raw deflate parts [(data, adler32, length)] in order."""
    adler, stream = 1, []
    for data, part_adler, length in parts:
        adler = _adler32_combine(adler, part_adler, length)
        stream.append(data)
    return b"\x78\x01" + b"".join(stream) + struct.pack(">I", adler)


def encode(rgb, dpi=None, level=2):
    """The bytes of a PNG file holding `rgb`; `dpi` is recorded in a pHYs chunk."""
    height, width = rgb.shape[:2]
    return _file(width, height, image_data(rgb, level), dpi)


def _file(width, height, idat, dpi):
    """The PNG file around one IDAT payload."""
    parts = [SIGNATURE, chunk(b"IHDR", header(width, height))]
    if dpi:
        ppm = round(dpi / 0.0254)
        parts.append(chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))
    parts += [chunk(b"IDAT", idat), chunk(b"IEND", b"")]
    return b"".join(parts)


def _deflate_rows(rows, level, last):
    """Raw deflate of `rows` with a filter byte (0) before each; (data, adler32, length)."""
    height, width = rows.shape[:2]
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    buffer = np.zeros((min(_ROWS_PER_PASS, max(1, height)), width * 3 + 1), np.uint8)
    out, adler = [], 1
    for start in range(0, height, _ROWS_PER_PASS):
        block = rows[start:start + _ROWS_PER_PASS]
        filtered = buffer[:len(block)]
        filtered[:, 1:] = block.reshape(len(block), -1)
        view = memoryview(filtered).cast("B")
        adler = zlib.adler32(view, adler)
        out.append(compressor.compress(view))
    out.append(compressor.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH))
    return b"".join(out), adler, height * (width * 3 + 1)


def _adler32_combine(adler1, adler2, length2):
    """adler32 of A + B from adler32(A), adler32(B) and len(B) (zlib's adler32_combine)."""
    rem = length2 % _ADLER_BASE
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 += (adler2 & 0xFFFF) + _ADLER_BASE - 1
    sum2 += ((adler1 >> 16) & 0xFFFF) + ((adler2 >> 16) & 0xFFFF) + _ADLER_BASE - rem
    return (sum1 % _ADLER_BASE) | ((sum2 % _ADLER_BASE) << 16)


FAST_MIN_PIXELS = 8_000_000


class BandWriter:
    """Codes a picture band by band while the next band is painted, then joins the PNG.

    `band()` hands out a free RGB32 QImage of `rows` rows (at most two exist: one being
    painted, one being coded on a worker thread); `submit(image, height)` codes its first
    `height` rows. A large picture's rows are Up-filtered and coded by png_fast (numba),
    a small one's go unfiltered through zlib; either way the same pixels come out.
    """

    def __init__(self, width, height, rows=256, dpi=None, fast=None, overlap=0):
        self.width, self.height, self.rows, self.dpi = width, height, rows, dpi
        self.overlap = overlap    # rows painted above and below a band but not coded
        if fast is None:     # numba's import and kernel load pay off only on large pictures
            fast = width * height >= FAST_MIN_PIXELS
        self.fast = fast and png_fast.kernel() is not None
        self._pool = ThreadPoolExecutor(1)
        self._free = [QImage(width, min(rows, height) + 2 * overlap, QImage.Format.Format_RGB32)
                      for _ in range(2)]
        self._busy = []
        self._parts = []
        self._prev = np.zeros(width, np.uint32)
        self._done = 0

    def band(self):
        while not self._free:
            image, future = self._busy.pop(0)
            self._parts.append(future.result())
            self._free.append(image)
        return self._free.pop(0)

    def submit(self, image, height):
        pixels = np.frombuffer(image.constBits(), np.uint32, count=image.bytesPerLine() // 4 * image.height())
        top = self.overlap
        pixels = pixels.reshape(image.height(), image.bytesPerLine() // 4)[top:top + height, :self.width]
        prev, self._prev = self._prev, pixels[-1].copy()
        self._done += height
        final = self._done >= self.height
        self._busy.append((image, self._pool.submit(self._code, pixels, prev, final)))

    def _code(self, pixels, prev, final):
        if self.fast:
            return png_fast.deflate_band(pixels, prev, final)
        bgra = pixels.view(np.uint8).reshape(*pixels.shape, 4)   # little-endian: B, G, R, A
        return _deflate_rows(bgra[..., 2::-1], 2, final)

    def finish(self):
        """The bytes of the PNG file."""
        try:
            for _, future in self._busy:
                self._parts.append(future.result())
        finally:
            self._pool.shutdown()
        return _file(self.width, self.height, _zlib_stream(self._parts), self.dpi)
