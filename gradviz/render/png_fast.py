"""A deflate encoder made for pictures of graphs, compiled with numba.

A graph picture is mostly flat colour. With PNG's "Up" filter every pixel equal to the
one above becomes zero, and a flat run of equal filtered pixels is one literal pixel
plus a back-reference at distance 3 (258 bytes a code). That alone, coded with deflate's
fixed Huffman table, makes files about as small as zlib's and is many times faster:
zlib searches for matches at every byte, this looks only for runs of equal pixels, a
few instructions a pixel. Adler-32 of a run has a closed form, so runs cost nothing
there either.

Bands of rows are coded independently (each closes with an empty stored block, like
zlib's sync flush) so several threads can code one picture; numba releases the GIL.
"""
from __future__ import annotations

import numpy as np
from ..engine import kernels

_BASE = 65521


def _reverse(code, length):
    out = 0
    for _ in range(length):
        out = (out << 1) | (code & 1)
        code >>= 1
    return out


def _tables():
    """Fixed-Huffman literal codes (bit-reversed for an LSB-first writer) and, for every
    match length 3..258, its length code with extra bits folded in."""
    lit_bits = np.zeros(288, np.int64)
    lit_len = np.zeros(288, np.int64)
    for v in range(288):
        if v < 144:
            code, n = 0x30 + v, 8
        elif v < 256:
            code, n = 0x190 + v - 144, 9
        elif v < 280:
            code, n = v - 256, 7
        else:
            code, n = 0xC0 + v - 280, 8
        lit_bits[v], lit_len[v] = _reverse(code, n), n
    bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
             131, 163, 195, 227, 258]
    extra = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
    len_bits = np.zeros(259, np.int64)
    len_len = np.zeros(259, np.int64)
    for length in range(3, 259):
        i = max(k for k in range(29) if bases[k] <= length)
        if length == 258:
            i = 28
        sym = 257 + i
        len_bits[length] = lit_bits[sym] | ((length - bases[i]) << lit_len[sym])
        len_len[length] = lit_len[sym] + extra[i]
    return lit_bits, lit_len, len_bits, len_len


LIT_BITS, LIT_LEN, LEN_BITS, LEN_LEN = _tables()


def encode_band(rows, prev, final, lit_bits, lit_len, len_bits, len_len, out):
    """Deflate the Up-filtered scanlines of `rows` ((h, w) uint32 pixels 0xAARRGGBB, as
    QImage's RGB32) after `prev` (the row above, (w,)); returns (bytes written, adler32 of
    the filtered stream, its length). Compiled with numba; the bit buffer never holds
    more than 7 + 26 bits, so plain 64-bit integers do."""
    h, w = rows.shape[0], rows.shape[1]
    rgb = np.uint32(0x00FFFFFF)
    high, low = np.uint32(0x80808080), np.uint32(0x7F7F7F7F)
    acc = 0
    nbits = 0
    n = 0
    s1 = 1
    s2 = 0
    acc |= (1 if final else 0) | 2           # BFINAL, BTYPE=01 (fixed Huffman)
    nbits += 3
    for y in range(h):
        above = prev if y == 0 else rows[y - 1]
        row = rows[y]
        acc |= lit_bits[2] << nbits          # the row's filter byte: 2 (Up)
        nbits += lit_len[2]
        s1 += 2
        s2 += s1
        x = 0
        while x < w:
            a, c = row[x], above[x]
            f = (((a | high) - (c & low)) ^ ((a ^ ~c) & high)) & rgb   # byte-wise a - c
            j = x + 1
            if f == 0:                       # unchanged from the row above: the common case
                while j < w and ((row[j] ^ above[j]) & rgb) == 0:
                    j += 1
            else:
                while j < w:
                    a, c = row[j], above[j]
                    if (((a | high) - (c & low)) ^ ((a ^ ~c) & high)) & rgb != f:
                        break
                    j += 1
            r = np.int64(f >> np.uint32(16))
            g = np.int64((f >> np.uint32(8)) & np.uint32(255))
            b = np.int64(f & np.uint32(255))
            acc |= lit_bits[r] << nbits
            nbits += lit_len[r]
            acc |= lit_bits[g] << nbits
            nbits += lit_len[g]
            acc |= lit_bits[b] << nbits
            nbits += lit_len[b]
            s1 += r
            s2 += s1
            s1 += g
            s2 += s1
            s1 += b
            s2 += s1
            while nbits >= 8:
                out[n] = acc & 255
                n += 1
                acc >>= 8
                nbits -= 8
            k = j - x - 1          # pixels repeating the first one: back-references at distance 3
            if k > 0:
                total = 3 * k
                t = r + g + b
                s2 += 3 * k * s1 + 3 * t * (k * (k - 1) // 2) + k * (3 * r + 2 * g + b)
                s1 += k * t
                s1 %= _BASE
                s2 %= _BASE
                while total > 0:
                    m = total if total <= 258 else 258
                    acc |= len_bits[m] << nbits
                    nbits += len_len[m]
                    acc |= 8 << nbits        # distance 3: code 2, bit-reversed
                    nbits += 5
                    total -= m
                    while nbits >= 8:
                        out[n] = acc & 255
                        n += 1
                        acc >>= 8
                        nbits -= 8
            x = j
        s1 %= _BASE
        s2 %= _BASE
    acc |= lit_bits[256] << nbits            # end of block
    nbits += lit_len[256]
    if not final:
        nbits += 3                           # an empty stored block (BFINAL=0, BTYPE=00) aligns to a byte
    while nbits > 0:
        out[n] = acc & 255
        n += 1
        acc >>= 8
        nbits -= 8
    if not final:
        out[n] = 0
        out[n + 1] = 0
        out[n + 2] = 255
        out[n + 3] = 255
        n += 4
    return n, (s2 << 16) | s1, h * (1 + 3 * w)


def _examples():
    """A first call per layout of `pixels` (a band is a C-order block when the image has
    no padding at the ends of its rows, else a view with a row stride)."""
    out = np.empty(2 * (3 * 4 + 1) * 9 // 8 + 64, np.uint8)   # as deflate_band sizes it
    tables = (LIT_BITS, LIT_LEN, LEN_BITS, LEN_LEN)
    strided = np.zeros((2, 6), np.uint32)[:, :4]
    return [(np.zeros((2, 4), np.uint32), np.zeros(4, np.uint32), True, *tables, out),
            (strided, np.zeros(4, np.uint32), True, *tables, out)]


KERNEL = kernels.BackgroundKernel(encode_band, _examples)


def kernel():
    """The compiled `encode_band` (loaded on a worker, see kernels.BackgroundKernel), or
    None: then BandWriter codes with zlib."""
    return KERNEL.get()


def deflate_band(pixels, prev, final):
    """(raw deflate bytes, adler32, length) of a band of RGB32 pixels ((h, w) uint32)."""
    fn = kernel()
    h, w = pixels.shape
    out = np.empty(h * (3 * w + 1) * 9 // 8 + 64, np.uint8)
    n, adler, length = fn(pixels, prev, bool(final), LIT_BITS, LIT_LEN, LEN_BITS, LEN_LEN, out)
    return out[:n].tobytes(), int(adler), int(length)
