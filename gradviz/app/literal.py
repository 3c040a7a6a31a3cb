"""The user's words (node names, titles, file names) shown as written in widgets that read
markup into their text: menus, buttons and check boxes take '&' for a keyboard mnemonic
and drop it ('a & b' showed 'a  b'); labels and tooltips in rich text drop what looks like a
tag (`html.escape` is the rule there); a wrapped label breaks a line at spaces, never
inside a quotient ('dout/' then 'dx' on the next line read as two things)."""
import re

WORD_JOINER = "\u2060"            # invisible; no line break on either side of it
# a '/' between two characters, not both digits (a step's counter 3/14 is no quotient)
_QUOTIENT_SLASH = re.compile(r"(?<=[^\s/\d])/(?=[^\s/])|(?<=\d)/(?=[^\s/\d])")


def mnemonic_free(text):
    """`text` for a menu entry, button or check box: every '&' shown, none a mnemonic."""
    return str(text).replace("&", "&&")


def kept_whole(text):
    """`text` for a word-wrapped label: a '/' between two characters (dloss/dout, ∂y/∂x;
    not a count, 3/14) joined to the one after it by an invisible WORD_JOINER, so the line breaks at a
    space instead (Qt's wrap may break after any '/')."""
    return _QUOTIENT_SLASH.sub("/" + WORD_JOINER, str(text))
