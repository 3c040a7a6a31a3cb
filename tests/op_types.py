"""An engine op type as a word of its own in a text a reader is shown ('EuclideanNorm', '(Pow)',
"Mul's rule"): the words the app uses are the cards' (norm, pow, multiply) (issue 20 §1)."""
import re

from gradviz.engine.registry import op_types

OP_TYPE = re.compile(r"(?<![A-Za-z0-9_.])(" + "|".join(sorted(op_types(), key=len, reverse=True))
                     + r")(?![A-Za-z0-9_])")


def op_type_names(*texts):
    """The op types written in `texts`, each with the text it is in."""
    return {m.group(1): text for text in texts for m in OP_TYPE.finditer(text)}
