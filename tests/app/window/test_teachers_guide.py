"""Every key and menu path docs/teachers-guide.md names is the window's (issue 20 §1: the
guide said the lessons' digits were in the Lessons menu; they are in its Seeds submenu)."""
import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "teachers-guide.md"
MENUS = ("File", "Edit", "View", "Tools", "Lessons", "Help")
KEY = r"(?:(?:Ctrl|Alt|Shift)\+)+(?:F\d+|[A-Z0-9])|F\d+"


def _plain(text):
    """A menu entry as the guide writes it: no accelerator '&', no '  (1–20)' range."""
    return re.sub(r"\s{2,}\(.*\)$", "", text.replace("&", "")).strip()


def _entries(menu):
    return {_plain(a.text()): a for a in menu.actions() if not a.isSeparator() and a.text()}


def _guide():
    return " ".join(GUIDE.read_text(encoding="utf-8").split())


def _paths(text):
    """('View', 'Studies', 'Gradient norms'), and the text after it, for each 'A ▸ B ▸ C'."""
    head = "|".join(MENUS)
    for m in re.finditer(rf"\b({head}) ▸ ((?:[^▸,;()|]+? ▸ )*[^▸,;()|]+?)(?=[,;()|]| saves| draws| computes| then|$)",
                         text):
        yield (m.group(1), *[p.strip() for p in m.group(2).split(" ▸ ")]), text[m.end():m.end() + 40]


@pytest.fixture
def window(open_window):
    return open_window(shown=False)


def _action(w, path):
    bar = {_plain(a.text()): a for a in w.menuBar().actions()}
    action = bar[path[0]]
    for name in path[1:]:
        entries = _entries(action.menu())
        assert name in entries, (path, sorted(entries))
        action = entries[name]
    return action


def test_every_menu_path_and_its_key_in_the_guide_is_the_windows(window):
    text = _guide()
    checked = 0
    for path, after in _paths(text):
        action = _action(window, path)
        key = re.match(rf"\s*[(,]\s*({KEY})(?: … ({KEY}))?", after)
        if key and key.group(2):       # 'View ▸ Studies, Ctrl+Alt+1 … Ctrl+Alt+6': its entries'
            shown = [a.shortcut().toString() for a in action.menu().actions() if not a.isSeparator()]
            first, last = (int(k[-1]) for k in key.groups())
            assert shown == [key.group(1)[:-1] + str(i) for i in range(first, last + 1)], (path, shown)
        elif key:
            keys = [s.toString() for s in action.shortcuts()]
            assert key.group(1) in keys, (path, key.group(1), keys)
        checked += 1
    assert checked >= 8


def test_the_guides_stepping_keys_are_the_backprop_menus(window):
    present = next(line for line in _guide().split("| ") if line.startswith("F5 to enter"))
    assert "F5" == _action(window, ("View", "Presentation Mode")).shortcut().toString(), present
    row = next(line for line in _guide().split("| ") if line.startswith("Right (next)"))
    names = {"next": "Step", "back": "Step Back", "the seed": "First Step",
             "the gradients": "Last Step", "play / pause": "Play"}
    backprop = _entries(_action(window, ("View", "Backprop")).menu())
    pairs = re.findall(r"(\w+) \(([^)]+)\)", row)
    assert len(pairs) == 5, row
    for key, what in pairs:
        assert backprop[names[what]].shortcut().toString() == key, (key, what)


def test_the_guides_way_to_open_a_lesson_is_the_menus(window):
    row = next(line for line in _guide().split("| ") if line.startswith("**Lessons** menu"))
    bar = {_plain(a.text()): a for a in window.menuBar().actions()}
    letter = re.search(r"menu \(Alt\+(\w)\)", row).group(1)
    assert "&" + letter in bar["Lessons"].text()
    parts = re.findall(r"(\w+) \(([A-Z])\)", row)
    assert len(parts) == 3, row
    subs = {_plain(a.text()).split(":")[0]: a for a in bar["Lessons"].menu().actions() if a.menu()}
    for name, letter in parts:
        assert subs[name].text().startswith("&" + letter), (name, subs[name].text())
    digits = re.search(r"lessons (\d)–(\d) have their digit as accelerator in (\w+)", row)
    assert digits, row
    first, last, where = int(digits.group(1)), int(digits.group(2)), digits.group(3)
    lessons = [a.text() for a in subs[where].menu().actions()]
    assert [t[:2] for t in lessons[first - 1:last]] == [f"&{d}" for d in range(first, last + 1)]
    # opened at the seed: the player's step 1
    assert "at step 1, the seed" in row
