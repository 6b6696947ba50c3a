"""Citation markers in generated answers: the one place they are parsed.

The generator sees its sources as numbered blocks ``[1]`` .. ``[k]`` and must cite with the
same markers, one number per bracket (``[1][3]`` for two sources). Everything else that a
model writes when it tries to cite is recognised and flagged, never silently accepted:

=====================  ==========================  ===============================
written                kind                        why
=====================  ==========================  ===============================
``[2]`` (k >= 2)       ``citation``, valid         the required form
``[0]``, ``[k+1]``     ``citation``, invalid       names no source
``[1-3]``, ``[1–3]``   ``malformed``               ranges hide which source holds what
``[1, 2]``, ``[1,2]``  ``malformed``               one number per bracket
``[^1]``, ``^1``, ¹    ``malformed``               footnote styles
``[Source 1]``         ``malformed``               labelled markers
``【1†source】``         ``malformed``               full-width (chat UI) markers
``[date]``, ``[n]``,   ``placeholder``             template blanks the model failed
``[name]``, ``[●]``,                               to fill ("expires on [n].")
``[___]``, ``[ ]``
``[Landlord]``,        (not returned)              bracketed words that are part of
``[sic]``, ``[***]``                               the document's own text
=====================  ==========================  ===============================

Parenthesised numbers such as ``(1)`` are deliberately *not* markers: legal text uses them
for enumerations and for numbers spelled twice ("thirty (30) days"), so treating them as
citations would break far more sentences than it would catch. ``[***]`` is the redaction
mark of SEC filings (text that really is in the document), so it is not a placeholder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

MarkerKind = Literal["citation", "malformed", "placeholder"]

_SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUPERSCRIPT_TO_ASCII = str.maketrans(_SUPERSCRIPT_DIGITS, "0123456789")

# The single regular expression for everything bracket- or footnote-like in an answer.
# Alternatives are tried in order, so the specific forms come before the catch-all
# ``other`` bracket, whose content is classified in Python (placeholder or document text).
MARKER_PATTERN = re.compile(
    r"""
      \[\s*(?P<number>\d{1,4})\s*\]                                  # [3]
    | \[\s*(?P<range>\d{1,4}\s*(?:-|–|—|to)\s*\d{1,4})\s*\]          # [1-3]
    | \[\s*(?P<list>\d{1,4}(?:\s*(?:,|;|&|\band\b)\s*\d{1,4})+)\s*\] # [1, 2] [1,2] [1 and 2]
    | \[\s*\^\s*(?P<bracket_caret>[^\[\]\n]{1,12}?)\s*\]              # [^1]
    | \[\s*(?P<labelled>(?:sources?|src|docs?|documents?|refs?|references?|chunks?
                        |passages?|evidence|citations?)\s*\#?\s*:?\s*\d{1,4}
                        (?:\s*(?:,|;|&|-|–|\band\b)\s*\d{1,4})*)\s*\]  # [Source 1]
    | 【(?P<fullwidth>[^【】\n]{0,40})】                                # 【1†source】
    | (?<![\w^])\^(?P<caret>\d{1,4})                                 # ^1
    | (?P<superscript>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)                                 # ¹
    | \[(?P<other>[^\[\]\n]{0,60})\]                                 # [date], [Landlord]
    """,
    re.VERBOSE | re.IGNORECASE,
)

# Bracket contents that are template blanks. Matched against the lower-cased, trimmed
# content of a bracket; anything else in brackets is taken to be document text.
_PLACEHOLDER_WORDS = (
    r"n|x+|n+|#|\?+|"
    r"date|dates|effective date|day|month|year|time|"
    r"name|names|party|party name|company|company name|landlord name|tenant name|"
    r"number|no\.?|amount|sum|price|fee|value|percentage|percent|rate|"
    r"address|city|state|county|country|place|location|"
    r"tbd|tba|blank|placeholder|to be determined|to be agreed|"
    r"(?:insert|enter|fill in|specify)\b.*"
)
_PLACEHOLDER_CONTENT = re.compile(
    rf"^(?:\s*|[\s_.·•●○◦▪■□…\-–—]+|(?:{_PLACEHOLDER_WORDS}))$", re.IGNORECASE
)
# A superscript digit after these is an exponent ("500 m²"), not a footnote.
_UNIT_BEFORE_SUPERSCRIPT = re.compile(r"(?:\d|\b(?:m|cm|mm|km|ft|in|yd|mi|sq))\s?$", re.IGNORECASE)


@dataclass(frozen=True)
class CitationMarker:
    """One marker (or marker-like token) found in a piece of text."""

    text: str
    """Exactly as written, e.g. "[1, 2]"."""
    start: int
    """Offset of the marker in the parsed text."""
    end: int
    kind: MarkerKind
    sources: tuple[int, ...]
    """Source numbers the marker names (also for malformed forms, for feedback)."""
    valid: bool
    """True only for a single-number marker [n] with 1 <= n <= k."""
    problem: str | None = None
    """Why the marker is not valid, in words (None when valid)."""


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", text.translate(_SUPERSCRIPT_TO_ASCII)))


def _expand_range(text: str) -> tuple[int, ...]:
    numbers = _numbers(text)
    if len(numbers) == 2 and 0 <= numbers[1] - numbers[0] <= 50:
        return tuple(range(numbers[0], numbers[1] + 1))
    return numbers


def is_placeholder_text(content: str) -> bool:
    """True when bracket content (without the brackets) is a template blank."""
    return bool(_PLACEHOLDER_CONTENT.match(content.strip()))


def _classify(match: re.Match[str], text: str, k: int) -> CitationMarker | None:
    """Turn one regex match into a marker, or None for document text in brackets."""
    start, end, written = match.start(), match.end(), match.group(0)

    def malformed(sources: tuple[int, ...], problem: str) -> CitationMarker:
        return CitationMarker(written, start, end, "malformed", sources, False, problem)

    group = match.lastgroup
    value = match.group(group) if group else ""
    if group == "number":
        number = int(value)
        if 1 <= number <= k:
            return CitationMarker(written, start, end, "citation", (number,), True)
        problem = f"source {number} does not exist (sources are [1]..[{k}])"
        if k < 1:
            problem = f"source {number} does not exist (no sources were given)"
        return CitationMarker(written, start, end, "citation", (number,), False, problem)
    if group == "range":
        return malformed(_expand_range(value), "a range; cite each source as its own [n]")
    if group == "list":
        return malformed(_numbers(value), "several numbers in one bracket; write [1][2]")
    if group in ("bracket_caret", "caret"):
        return malformed(_numbers(value), "footnote style; cite as [n]")
    if group == "labelled":
        return malformed(_numbers(value), "labelled marker; cite as [n]")
    if group == "fullwidth":
        return malformed(_numbers(value), "non-standard brackets; cite as [n]")
    if group == "superscript":
        if _UNIT_BEFORE_SUPERSCRIPT.search(text[max(0, start - 4) : start]):
            return None
        return malformed(_numbers(value), "superscript footnote; cite as [n]")
    # A bracket with other content: a template blank, or the document's own words.
    if is_placeholder_text(value):
        return CitationMarker(written, start, end, "placeholder", (), False, "unfilled placeholder")
    return None


def parse_citations(sentence: str, k: int) -> list[CitationMarker]:
    """Find every citation marker, malformed marker and placeholder in ``sentence``.

    Args:
        sentence: Answer text (any length; usually one sentence).
        k: Number of sources the generator was given; valid markers are [1]..[k].

    Returns:
        Markers in order of appearance. Bracketed document text ("[Landlord]", "[sic]",
        "[***]") is not returned.
    """
    markers = []
    for match in MARKER_PATTERN.finditer(sentence):
        marker = _classify(match, sentence, k)
        if marker is not None:
            markers.append(marker)
    return markers


def match_marker_at(text: str, pos: int) -> CitationMarker | None:
    """The citation or malformed marker starting exactly at ``pos``, else None.

    Used by the sentence splitter to attach markers written after a full stop to the
    sentence they close. Placeholders and document brackets are not attached.
    """
    match = MARKER_PATTERN.match(text, pos)
    if match is None:
        return None
    # k only decides validity, which does not matter here.
    marker = _classify(match, text, k=10**6)
    if marker is None or marker.kind == "placeholder":
        return None
    return marker


def strip_citations(text: str) -> str:
    """Remove citation and malformed markers (not placeholders or document brackets).

    Whitespace left before punctuation is tidied ("rent [1]." -> "rent.").
    """
    pieces: list[str] = []
    last = 0
    for marker in parse_citations(text, k=0):
        if marker.kind == "placeholder":
            continue
        pieces.append(text[last : marker.start])
        last = marker.end
    pieces.append(text[last:])
    stripped = "".join(pieces)
    stripped = re.sub(r"[ \t]+([.,;:!?])", r"\1", stripped)
    stripped = re.sub(r"[ \t]{2,}", " ", stripped)
    return stripped.strip()
