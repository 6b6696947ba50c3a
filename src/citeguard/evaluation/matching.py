"""Matching gold evidence against retrieved or cited text.

Gold spans carry offsets into a document's *text file*, while chunks carry offsets into the
text CiteGuard parsed (from the PDF, say), so spans are matched on normalized text: case
folded, and every character that is not a letter or digit removed. A span "overlaps" a
chunk when at least ``min_share`` of its normalized characters form one common run with the
chunk (half by default): a clause cut by a chunk boundary still counts when most of it is in.
A short span (under ``SHORT_SPAN_CHARS`` normalized characters, such as a party name or a
date) must appear whole: half of "NTL" is "nt", which nearly any text contains.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")

SHORT_SPAN_CHARS = 20
"""Spans with fewer normalized characters than this only match when found whole (the same
length below which :func:`covered_fraction` ignores partial runs)."""


def normalize_for_matching(text: str) -> str:
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


def covered_share(span: str, text: str) -> float:
    """Share of the span's normalized characters found as one contiguous run in ``text``
    (0 or 1 for a short span, which only counts when found whole)."""
    s, t = normalize_for_matching(span), normalize_for_matching(text)
    if not s or not t:
        return 0.0
    if s in t:
        return 1.0
    if len(s) < SHORT_SPAN_CHARS:
        return 0.0
    match = SequenceMatcher(None, s, t, autojunk=False).find_longest_match(0, len(s), 0, len(t))
    return match.size / len(s)


def span_overlaps(span: str, text: str, min_share: float = 0.5) -> bool:
    return covered_share(span, text) >= min_share


def covered_fraction(span: str, texts: Sequence[str], min_run: int = SHORT_SPAN_CHARS) -> float:
    """Share of the span's normalized characters found in any of ``texts``.

    Unlike :func:`covered_share` (one contiguous run in one text), this is the union over
    all texts of every common run of at least ``min_run`` normalized characters (or the
    whole span when it is shorter), so a span split across two adjacent chunks counts in
    full. Runs shorter than ``min_run`` are ignored: short runs of letters match by chance.
    """
    s = normalize_for_matching(span)
    if not s:
        return 0.0
    covered = bytearray(len(s))
    shortest = min(min_run, len(s))
    for text in texts:
        t = normalize_for_matching(text)
        if not t:
            continue
        if s in t:
            return 1.0
        matcher = SequenceMatcher(None, s, t, autojunk=False)
        for start, _, size in matcher.get_matching_blocks():
            if size >= shortest:
                covered[start : start + size] = b"\x01" * size
    return sum(covered) / len(s)
