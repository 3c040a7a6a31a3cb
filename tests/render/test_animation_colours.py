"""The colours of an animated GIF, read back and compared with the frames drawn: every
pixel of a frame the camera passes through stays on the ramp its anti-aliasing lies on
(issue 20 §6: grey text on a glide's frames had pink and blue fringes, 32 colours each
pixel's nearest)."""
from itertools import islice

import numpy as np
from PySide6.QtGui import QImage, QImageReader
from samples_util import SAMPLES

from gradviz.graph import load
from gradviz.render import Renderer, animation, animation_files, png
from gradviz.story import build

LESSON = "001_input_gradient_regularization"     # lesson 14: its text-heavy rule cards glide
HUE_TURN = 60.0


def _glide(name, moves=5, scale=animation.SCALE):
    """[rgb] of the frames of lesson `name` at `scale` (the default: 1920 x 1080), from the
    start to the end of its `moves`-th camera glide, each step's cotangent in one frame and
    not held (the glides as `gradviz export` draws them, in a third of the frames)."""
    doc = load(str(SAMPLES / f"{name}.json"))
    story = build(doc)
    renderer = animation.slide_renderer(Renderer(doc, evaluation=story.evaluation, story=story), scale=scale)
    plan = animation.frame_plan(len(story.steps), frames_per_step=1, hold=0)
    glides = [k for k, f in enumerate(plan) if f.shot[0] != f.shot[1] and f.shot[2] == f.shot[3]]
    stop = glides[min(moves, len(glides)) - 1] + 2
    return [png.rgb_array(image) for image in
            islice(animation.frames(doc, renderer=renderer, scale=scale, frames_per_step=1, hold=0), stop)]


def _passing(arrays):
    """The indices of the distinct frames (consecutive repeats merged) that the writer
    draws as the camera's passing frames (`animation_files.passing_frames`), with them."""
    distinct, repeats = [arrays[0]], [1]
    for a in arrays[1:]:
        if np.array_equal(a, distinct[-1]):
            repeats[-1] += 1
        else:
            distinct.append(a)
            repeats.append(1)
    boxes = [(0, 0, 1, 1)] + [animation_files._changed_box(a, b) for a, b in zip(distinct, distinct[1:])]
    return distinct, animation_files.passing_frames(distinct[0].shape, repeats, boxes)


def _story_colours(theme, rgb, share=0.001):
    """The `theme`'s colours and those covering `share` of the picture `rgb` (a
    highlight's fill: the active card's ring over white), (n, 3) float."""
    packed = (rgb[..., 0].astype(np.int64) << 16) | (rgb[..., 1].astype(np.int64) << 8) | rgb[..., 2]
    values, counts = np.unique(packed, return_counts=True)
    theme = [int(c[1:], 16) for c in theme]
    ends = np.array(theme + values[counts >= share * counts.sum()].tolist(), np.int64)
    return np.stack([ends >> 16, (ends >> 8) & 255, ends & 255], axis=1).astype(np.float64)


def _one_ramp(drawn, written, ends, near=12.0, on=4.0):
    """For each pair of colours (rows of `drawn` and `written`): whether one ramp between
    two of `ends` passes within `near` of the drawn one and `on` of the written one: the
    written colour is lighter or darker on the drawn one's own ramp."""
    found = np.zeros(len(drawn), bool)
    for i in range(len(ends)):
        for j in range(i + 1, len(ends)):
            a, d = ends[i], ends[j] - ends[i]

            def miss(c):
                t = np.clip((c - a) @ d / max(d @ d, 1e-9), 0, 1)
                return np.linalg.norm(a + t[:, None] * d - c, axis=1)
            found |= (miss(drawn) <= near) & (miss(written) <= on)
    return found


def _chroma(rgb):
    """Each pixel's chroma (its largest channel less its smallest) and its smallest channel,
    channel by channel (numpy's max and min over an axis of three took a third of this
    test's time)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    darkest = np.minimum(np.minimum(r, g), b)
    return np.maximum(np.maximum(r, g), b) - darkest, darkest


def _hue(rgb):
    """Each colour's hue (degrees) of `rgb` (..., 3)."""
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    return np.degrees(np.arctan2(np.sqrt(3) * (g - b), 2 * r - g - b))


def test_a_glides_frames_keep_each_pixel_on_its_own_ramp(tmp_path, qapp):
    """Lesson 14's glides drawn in 32 colours, each pixel the nearest: 450-880 of a frame's
    grey pixels (the rule card's grey text, the edges) turned pink, blue or peach. Now each
    pixel that lies on a ramp between two of the story's colours (the theme's, the flat
    colours its frames fill) is drawn in a colour of that ramp. Checked on every frame the
    camera passes through, against the frame as drawn: (1) a grey pixel (its channels
    within 8 of each other, darker than the background) stays grey (within 24); (2) a
    coloured pixel written coloured keeps its hue (within HUE_TURN degrees), unless both
    colours lie on one ramp between two of the story's colours (the theme's and those
    filling 0.1 % of the frame: a pixel of purple text's edge on orange, written purple or
    orange)."""
    arrays = _glide(LESSON)
    distinct, passing = _passing(arrays)
    assert sum(passing) >= 1
    path = tmp_path / "glide.gif"
    theme = animation_files.theme_colours("light")
    animation_files.write_gif([_image(a) for a in arrays], path, keep=theme)
    reader = QImageReader(str(path))        # Qt's GIF reader: each frame as it shows it
    assert reader.imageCount() == len(distinct)
    greys = tinted_pixels = turned_pixels = 0
    for k, drawn in enumerate(distinct):
        shown = reader.read()
        if not passing[k]:
            continue
        written = png.rgb_array(shown.convertToFormat(QImage.Format.Format_RGB32))
        chroma, darkest = _chroma(drawn)
        written_chroma, _ = _chroma(written)
        grey = (chroma <= 8) & (darkest < 240)
        greys += int(grey.sum())
        tinted = grey & (written_chroma > 24)
        tinted_pixels += int(tinted.sum())
        coloured = (chroma >= 24) & (written_chroma >= 24)      # a hue only where both have one
        was, now = drawn[coloured].astype(int), written[coloured].astype(int)
        turned = np.abs((_hue(now) - _hue(was) + 180) % 360 - 180) > HUE_TURN
        if turned.any():
            ends = _story_colours(theme, drawn)
            turned_pixels += int((~_one_ramp(was[turned], now[turned], ends)).sum())
    assert (tinted_pixels, turned_pixels) == (0, 0)
    assert greys >= 5000            # grey text and edges were checked, not an empty frame


def _image(rgb):
    h, w, _ = rgb.shape
    return QImage(np.ascontiguousarray(rgb).tobytes(), w, h, 3 * w, QImage.Format.Format_RGB888).convertToFormat(
        QImage.Format.Format_RGB32)
