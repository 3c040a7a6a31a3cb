"""The user's words (node names, titles, file names) shown as written in widgets that read
markup into their text: menus, buttons and check boxes take '&' for a keyboard mnemonic
and drop it ('a & b' showed 'a  b'); labels and tooltips in rich text drop what looks like a
tag (`html.escape` is the rule there)."""


def mnemonic_free(text):
    """`text` for a menu entry, button or check box: every '&' shown, none a mnemonic."""
    return str(text).replace("&", "&&")
