"""Regenerate the pictures of the course lessons (docs/lesson-*.png) from the real app.

    xvfb-run -a -s "-screen 0 1440x900x24" .venv/bin/python docs/screenshots_lessons.py

Each lesson opens as the Lessons menu opens it, in a 1440x900 window, on the step its row
of docs/teachers-guide.md names for a slide. Settings and recovery files go to a temporary
directory, so your own are untouched.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from screenshots import DOCS, close, export_view, wait  # noqa: E402  (sets up the app)

from gradviz.app import create_window  # noqa: E402
from gradviz.app import studies as views  # noqa: E402
from gradviz.app.player.lessons import lesson_entries, open_lesson  # noqa: E402

SIZE = (1440, 900)
# picture name: (sample, step as the player counts it, from 1; -1 is the last)
STEPS = {
    "lesson-conv-transpose": ("nets_1_conv_transpose", 3),
    "lesson-vanishing-gradients": ("nets_2_sigmoid_chain", 9),
    "lesson-dead-relu": ("nets_2_relu_chain", 5),
    "lesson-gradient-check": ("nets_3_gradient_check", -1),
    "lesson-wrong-gradient": ("nets_3_wrong_gradient", 7),
    "lesson-softmax-cross-entropy": ("nets_4_softmax_cross_entropy", 3),
    "lesson-softmax-then-log": ("nets_4_softmax_then_log", 11),
    "lesson-tiny-cnn-filter-rule": ("nets_5_tiny_cnn", 17),
    "lesson-tiny-cnn": ("nets_5_tiny_cnn", -3),
    "lesson-attention": ("nets_6_attention", 20),
    "lesson-layernorm": ("nets_7_layernorm_independent", 9),
    "lesson-embedding": ("nets_8_embedding", 3),
}
# picture name: (view class, sample), as File ▸ Export View… writes them
VIEWS = {
    "lesson-gradient-norms": (views.GradientNormView, "nets_2_sigmoid_chain"),
    "lesson-gradient-norms-exploding": (views.GradientNormView, "nets_2_bad_init"),
    "lesson-layernorm-batch-jacobian": (views.BatchJacobianView, "nets_7_layernorm_independent"),
    "lesson-gradient-check-view": (views.GradientCheckView, "nets_3_gradient_check"),
    "lesson-wrong-gradient-view": (views.GradientCheckView, "nets_3_wrong_gradient"),
}


def lesson_window(sample, step):
    lesson = next(e for e in lesson_entries() if e.path.stem == sample)
    w = create_window(None, offer_recovery=False)
    w.resize(*SIZE)
    w.show()
    wait(400)
    assert open_lesson(w, lesson, ask=False)
    p = w.player
    p.set_index(p.steps[step - 1 if step > 0 else step].index)
    p.finish_animation()
    wait(500)
    return w


def main():
    for name, (sample, step) in STEPS.items():
        w = lesson_window(sample, step)
        w.grab().save(str(DOCS / f"{name}.png"))
        close(w)
    for name, (cls, sample) in VIEWS.items():
        export_view(cls, sample, DOCS / f"{name}.png", size=(1100, 640))
    print("wrote", ", ".join(f"{n}.png" for n in [*STEPS, *VIEWS]))


if __name__ == "__main__":
    main()
