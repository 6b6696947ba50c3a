"""The standardized refusal and its detection.

The refusal is one constant (the paper's sentence, verbatim). Models reproduce it with
small differences: case, spacing, curly quotes, a missing full stop, surrounding quotes,
or a citation marker after it. :func:`is_refusal` compares normalized text so that those
still count, while any other wording (an apology, an extra clause) does not.
"""

from __future__ import annotations

import re
import unicodedata

from citeguard.validation.citations import strip_citations

REFUSAL = "The document does not contain sufficient information to answer this question."

_CURLY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "\u00a0": " "})


def normalize_refusal_text(text: str) -> str:
    """Lower-case letters and digits separated by single spaces, markers removed."""
    text = unicodedata.normalize("NFKC", text).translate(_CURLY)
    text = strip_citations(text)
    text = re.sub(r"[^\w\s]", " ", text.lower())
    return " ".join(text.split())


_NORMALIZED_REFUSAL = normalize_refusal_text(REFUSAL)


def is_refusal(text: str) -> bool:
    """True when ``text`` is the standardized refusal, up to case, spacing and punctuation.

    A citation marker after the refusal ("... this question. [1]") is tolerated; a refusal
    with extra words ("Sorry, the document ...") is not, since the graph must deliver
    either a validated answer or exactly the refusal.
    """
    return normalize_refusal_text(text) == _NORMALIZED_REFUSAL
