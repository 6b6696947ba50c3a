"""The standardized refusal and its detection.

The refusal is one constant (the paper's sentence, verbatim). Models reproduce it with
small differences: case, spacing, curly quotes, a missing full stop, surrounding quotes,
or a citation marker after it, or the document named by another word ("The agreement
does not contain sufficient information to answer this question [3]."). :func:`is_refusal`
compares normalized text so that those still count, while any other wording (an apology, an
extra clause, a refusal of only part of the question) does not.
"""

from __future__ import annotations

import re
import unicodedata

from citeguard.text.citations import strip_citations

REFUSAL = "The document does not contain sufficient information to answer this question."

_CURLY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "\u00a0": " "})


def normalize_refusal_text(text: str) -> str:
    """Lower-case letters and digits separated by single spaces, markers removed."""
    text = unicodedata.normalize("NFKC", text).translate(_CURLY)
    text = strip_citations(text)
    text = re.sub(r"[^\w\s]", " ", text.lower())
    return " ".join(text.split())


_NORMALIZED_REFUSAL = normalize_refusal_text(REFUSAL)

# The refusal with its subject in other words: "the agreement", "the provided sources",
# "the contract". The grammar admits the exact refusal without a marker, so a model that
# words the subject differently is forced down the answer path and adds a marker; that
# sentence still says nothing but "cannot answer", and validating it as an answer only
# costs a regeneration that ends in the refusal anyway.
_REFUSAL_WITH_OTHER_SUBJECT = re.compile(
    r"the(?: \w+){1,3} (?:does|do) not contain (?:sufficient|enough) information "
    r"to answer (?:this|the) question"
)


def is_refusal(text: str) -> bool:
    """True when ``text`` is the standardized refusal, up to case, spacing and punctuation.

    A citation marker after the refusal ("... this question. [1]") is tolerated, and so is
    another subject of up to three words ("The agreement does not contain ..."); a refusal
    with extra words ("Sorry, the document ...") is not, since the graph must deliver
    either a validated answer or exactly the refusal. The graph always delivers the
    standardized sentence, never the model's variant.
    """
    normalized = normalize_refusal_text(text)
    return normalized == _NORMALIZED_REFUSAL or bool(
        _REFUSAL_WITH_OTHER_SUBJECT.fullmatch(normalized)
    )
