"""Alt+letter reaches one item: within each menu (and the menu bar) no two entries share the
letter after '&'. Two entries with one letter make Qt only highlight the first (Alt+F, N
stopped on New with Export Animation… also '&n'), so the key a teacher types does nothing."""
from PySide6.QtWidgets import QMenu


def mnemonic(text):
    i = text.replace("&&", "").find("&")
    return text.replace("&&", "")[i + 1].lower() if 0 <= i < len(text) - 1 else None


def clashes(actions):
    seen, found = {}, []
    for action in actions:
        if action.isSeparator() or not action.isVisible():
            continue
        letter = mnemonic(action.text())
        if letter is None:
            continue
        if letter in seen:
            found.append((seen[letter], action.text(), letter))
        seen[letter] = action.text()
    return found


def menus(menu):
    yield menu
    for action in menu.actions():
        if isinstance(action.menu(), QMenu):
            yield from menus(action.menu())


def test_no_two_entries_of_a_menu_share_their_alt_letter(open_window):
    w = open_window()
    bar = w.menuBar()
    found = [("menu bar",) + c for c in clashes(bar.actions())]
    for top in bar.actions():
        for menu in menus(top.menu()):
            menu.aboutToShow.emit()  # menus filled on show (recent files, samples) fill now
            found += [(menu.title(),) + c for c in clashes(menu.actions())]
    assert found == [], "\n".join(map(str, found))
