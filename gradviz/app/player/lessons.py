"""The Lessons menu: the bundled samples as a course, in the order of samples/README.md,
in three submenus (the seeds' examples, training, networks) so that no menu is taller than
a 1280x800 screen, and the steps of the open document with their captions.

Each lesson opens its sample as a new unsaved document and starts the backward pass at
step 0, so the player (or the presentation band) shows the first caption at once. The
Steps submenu lists every step of the story on screen; its status tip and tooltip are
the step's caption, and choosing one shows that step.
"""
import functools
import re
import textwrap

from PySide6.QtCore import QEvent, QObject, QPoint, QRect
from PySide6.QtWidgets import QApplication, QMenu, QToolTip

from ...bundled import Lesson, lesson_entries  # noqa: F401  (the course, named here for the menu's users)
from ..literal import mnemonic_free

TIP_WIDTH = 56          # characters a line of a lesson's tip holds
TIP_LINES = 2
CAPTION_WIDTH = 72      # characters a line of a step's caption holds in the Steps menu's tip
# A sentence ends at '.', '?' or '!' and a space, not inside an abbreviation ('w.r.t. its').
_SENTENCE_END = re.compile(r"(?<=[.?!])(?<!\.\w\.)\s+")
_REFERENCE_TITLE = re.compile(r"(\b[Ll]esson \d+), “[^”]+”")    # 'lesson 26, “Vanishing …”'


def _summary(text, limit=160):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rsplit(" ", 1)[0] + "…"


def _outside_brackets(text):
    """The indices of `text`'s spaces that lie outside (), [], {} and “”, with the character
    before each: where a cut leaves no bracket or quote open."""
    depth, out = 0, []
    for i, ch in enumerate(text):
        if ch in "([{“":
            depth += 1
        elif ch in ")]}”":
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            out.append((i, text[i - 1]))
    return out


def lesson_lead(text, fits, whole_sentences=False, by_number=False):
    """The start of a lesson's `text` that `fits` (a predicate on a candidate): its first
    sentence (with `whole_sentences`, as many of its opening sentences as fit together), or
    the first sentence up to its last clause (else word) that fits, outside brackets and
    quotes, with ' …' where it goes on. With `by_number` (a menu's tip: the menu beside
    shows every title) another lesson is named by its number alone ('lesson 26'); else with
    its title, as the text has it (a title slide: lesson 35's read 'This is lesson 19, with
    LayerNormalization …', and nothing on the slide said what lesson 19 is)."""
    text = " ".join(text.split())
    if by_number:
        text = _REFERENCE_TITLE.sub(r"\1", text)
    if not text:
        return ""
    sentences = _SENTENCE_END.split(text)
    first = sentences[0]
    if fits(first):
        for more in sentences[1:] if whole_sentences else ():
            if not fits(first + " " + more):
                break
            first += " " + more
        return first
    spaces = _outside_brackets(first)
    clauses = [i - 1 for i, before in spaces if before in ",:;"]
    words = [i for i, _ in spaces] or [i for i, ch in enumerate(first) if ch == " "]

    def longest(cuts):
        return next((first[:i] + " …" for i in reversed(cuts) if fits(first[:i] + " …")), None)
    by_word, by_clause = longest(words), longest(clauses)
    # a clause is the better cut unless it leaves much of the room empty
    if by_clause and (by_word is None or len(by_clause) > len(by_word) * 2 // 3):
        return by_clause
    return by_word or first


@functools.lru_cache(maxsize=None)
def lesson_tip(lesson):
    """What the lesson teaches, from its own text, in at most two short lines: its lead
    (`lesson_lead`) wrapped to TIP_WIDTH. The tip never names the lesson's file. Kept per
    Lesson (a frozen value: its text is the key): every window's File and Lessons menus tip
    each lesson, and wrapping every cut of every lead took a third of opening a window."""
    def fits(t):
        return len(textwrap.wrap(t, TIP_WIDTH)) <= TIP_LINES
    first = lesson_lead(lesson.lesson, fits, by_number=True) or lesson.title
    return "\n".join(textwrap.wrap(first, TIP_WIDTH))


def _plain(text):
    """A menu entry's text as Qt makes its tooltip when none is set: no mnemonic, no '…'."""
    return re.sub(r"&(.)", r"\1", text.replace("...", "").replace("…", "")).strip()


class BesideTips(QObject):
    """Shows a menu entry's tooltip beside the menu, level with the entry, where it covers
    none of the menu's entries (Qt puts it under the cursor, over the entries below)."""

    def eventFilter(self, menu, event):
        if event.type() != QEvent.Type.ToolTip:
            return False
        action = menu.actionAt(event.pos())
        tip = "" if action is None else action.toolTip()
        if not tip or tip == _plain(action.text()):     # no tip of its own: Qt shows none
            return False
        rect = menu.actionGeometry(action)
        QToolTip.showText(menu.mapToGlobal(rect.topRight()), tip, menu, rect)
        label = next((w for w in QApplication.topLevelWidgets()
                      if w.metaObject().className() == "QTipLabel" and w.isVisible()), None)
        if label is not None:
            others = [w.geometry() for w in QApplication.topLevelWidgets()
                      if isinstance(w, QMenu) and w.isVisible() and w is not menu]
            label.move(beside(menu.geometry(), menu.mapToGlobal(rect.topLeft()).y(),
                              label.frameGeometry().size(), menu.screen().availableGeometry(), others))
        return True


def beside(menu, top, size, screen, others=()):
    """Where a tip of `size` goes beside the `menu` (a global rectangle), its top at `top`:
    right of the menu, else left of it, else (a screen too narrow) under the menu, or over
    it; below any of the `others` (the menus it opened from) it would cover; on the `screen`."""
    if menu.right() + 2 + size.width() <= screen.right():
        x = menu.right() + 2
    elif menu.left() - size.width() - 2 >= screen.left():
        x = menu.left() - size.width() - 2
    else:
        x = max(screen.left(), min(menu.left(), screen.right() - size.width()))
        under = menu.bottom() + 2
        top = under if under + size.height() <= screen.bottom() else menu.top() - size.height() - 2
    y = top
    for other in sorted(others, key=lambda r: r.top()):
        if QRect(QPoint(x, y), size).intersects(other):
            y = other.bottom() + 2
    y = max(screen.top(), min(y, screen.bottom() - size.height()))
    return QPoint(x, y)


def show_tips_beside(menu):
    """`menu` shows its entries' tooltips beside it (BesideTips)."""
    menu.setToolTipsVisible(True)
    menu.beside_tips = BesideTips(menu)
    menu.installEventFilter(menu.beside_tips)


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
        action.setToolTip("\n".join(textwrap.wrap(step.caption, CAPTION_WIDTH)))
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
            show_tips_beside(sub)
            actions += [_lesson_action(window, sub, lesson) for lesson in part]
    menu.lesson_actions = actions
    menu.addSeparator()
    steps = menu.addMenu("St&eps of This Document")
    show_tips_beside(steps)     # a step's caption beside the menu, over no other step
    steps.aboutToShow.connect(lambda: fill_steps_menu(window, steps))
    menu.steps_menu = steps
    return actions


def painted_first(window, open_document):
    """`open_document()` after the window is painted again where the menu that chose it
    was: opening a lesson keeps the UI thread for a second or more, and without a
    compositor the closed menu stayed drawn over the canvas until it was done."""
    QApplication.processEvents()     # the menu's hide, done (its popups unmapped)
    window.repaint()
    return open_document()


def _lesson_action(window, menu, lesson):
    """A lesson's entry: its number in the course (a mnemonic for 1 to 9) and its title."""
    title = mnemonic_free(lesson.title)
    action = menu.addAction(f"&{lesson.number}  {title}" if lesson.number < 10
                            else f"{lesson.number}  {title}")
    tip = lesson_tip(lesson)
    action.setStatusTip(" ".join(tip.split()))
    action.setToolTip(tip)
    action.setData(str(lesson.path))
    action.triggered.connect(lambda *_, entry=lesson: painted_first(
        window, lambda: open_lesson(window, entry)))
    return action
