"""The Lessons menu: the bundled samples as a course, in the order of samples/README.md,
in three submenus (the seeds' examples, training, networks) so that no menu is taller than
a 1280x800 screen, and the steps of the open document with their captions.

Each lesson opens its sample as a new unsaved document and starts the backward pass at
step 0, so the player (or the presentation band) shows the first caption at once. The
Steps submenu lists every step of the story on screen; its status tip and tooltip are
the step's caption, and choosing one shows that step.
"""
from ...bundled import Lesson, lesson_entries  # noqa: F401  (the course, named here for the menu's users)
from ..literal import mnemonic_free


def _summary(text, limit=160):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"


def open_lesson(window, lesson, ask=True):
    """Open `lesson` in `window` and show step 0 of its backward pass; False if not opened."""
    if not window.open_sample(lesson.path, ask=ask):
        return False
    player = getattr(window, "player", None)
    presentation = getattr(window, "presentation", None)
    if player is not None:
        player.show_opened()
    if presentation is not None and presentation.active:
        presentation.refresh()
        presentation.schedule_fit()
    elif getattr(window, "lesson_dock", None) is not None:
        window.lesson_dock.show()
        window.lesson_dock.raise_()   # the lesson's text, in front of the palette
    window.show_message(f"Lesson {lesson.number}: {lesson.title}")
    return True


def fill_steps_menu(window, menu):
    """`menu` lists the steps of the window's story, each with its caption."""
    menu.clear()
    player = getattr(window, "player", None)
    steps = player.steps if player is not None else []
    if not steps:
        menu.addAction("No backward pass to show").setEnabled(False)
        return []
    actions = []
    for step in steps:
        action = menu.addAction(mnemonic_free(player.step_name(step)))
        action.setCheckable(True)
        action.setChecked(step.index == player.index)
        action.setStatusTip(_summary(step.caption, 300))
        action.setToolTip(step.caption)
        action.triggered.connect(lambda *_, i=step.index: player.set_index(i))
        actions.append(action)
    return actions


# submenu title: which samples it holds (by file name), in the README's order
PARTS = (("&Seeds: tape.gradient, Jacobians, Hessians", lambda name: not name.startswith(("train_", "nets_"))),
         ("&Training: optimizers step by step", lambda name: name.startswith("train_")),
         ("&Networks: CNN, attention, LayerNorm, …", lambda name: name.startswith("nets_")))


def lesson_actions(menu):
    """The lesson actions of a Lessons menu, in order, through its submenus."""
    return list(getattr(menu, "lesson_actions", []))


def build_lessons_menu(window, menu):
    """Fill `menu` with a submenu per part of the course (one action per lesson, numbered
    through the whole course), then the Steps submenu; returns the lessons' actions."""
    menu.setToolTipsVisible(True)
    actions = []
    entries = lesson_entries()
    for title, holds in PARTS:
        part = [e for e in entries if holds(e.path.name)]
        if part:
            sub = menu.addMenu(f"{title}  ({part[0].number}–{part[-1].number})")
            sub.setToolTipsVisible(True)
            actions += [_lesson_action(window, sub, lesson) for lesson in part]
    menu.lesson_actions = actions
    menu.addSeparator()
    steps = menu.addMenu("S&teps of This Document")
    steps.setToolTipsVisible(True)
    steps.aboutToShow.connect(lambda: fill_steps_menu(window, steps))
    menu.steps_menu = steps
    return actions


def _lesson_action(window, menu, lesson):
    """A lesson's entry: its number in the course (a mnemonic for 1 to 9) and its title."""
    title = mnemonic_free(lesson.title)
    action = menu.addAction(f"&{lesson.number}  {title}" if lesson.number < 10
                            else f"{lesson.number}  {title}")
    action.setStatusTip(_summary(lesson.lesson) or lesson.path.name)
    action.setToolTip(f"{lesson.path.name}: {_summary(lesson.lesson, 300)}")
    action.setData(str(lesson.path))
    action.triggered.connect(lambda *_, entry=lesson: open_lesson(window, entry))
    return action
