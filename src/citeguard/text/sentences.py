"""Sentence splitting for answers and legal text, with offsets into the input.

Rules, in the order they are applied at each ``.``, ``!``, ``?`` or ellipsis:

* A full stop with no whitespace after it never ends a sentence ("3.2", "$1,250.50",
  "U.S.A", "e.g.,"), unless a citation marker follows directly ("rent.[1]").
* Citation markers written after the terminal punctuation belong to the sentence they
  close ("... rent. [1] Next" -> "... rent. [1]"); markers before it ("rent [1].") are
  inside the sentence anyway.
* Titles (Mr., Dr., Prof., ...) and e.g./i.e./cf./vs. never end a sentence; reference
  abbreviations (No., Sec., Art., p., ...) do not when a number or numeral follows
  ("No. 5"), so the answer "No. The tenant ..." still splits.
* Abbreviations that often end a sentence (Inc., Ltd., Co., Corp., etc., U.S., initials,
  months, U.S. state abbreviations) end one only when the next word is a typical sentence
  opener ("The", "This", "Either", ...).
* A sentence made only of an enumerator ("2.", "(a).", "iv.") continues.
* Otherwise the punctuation ends the sentence unless the next character is lower case.
* A blank line, or a line break before a bullet, always ends a sentence.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from citeguard.text.citations import match_marker_at


@dataclass(frozen=True)
class Sentence:
    """One sentence: ``source_text[start:end] == text``."""

    text: str
    start: int
    end: int


_TITLES = {
    "mr", "mrs", "ms", "messrs", "dr", "prof", "hon", "rev", "gen", "capt", "col", "lt",
    "sgt", "gov", "pres", "rep", "sen", "st", "e.g", "i.e", "vs", "v", "cf", "viz",
}  # fmt: skip
# Abbreviations that precede a number or numeral ("No. 5", "Sec. 3.2", "p. 7").
_REFERENCE_ABBREVIATIONS = {
    "no", "nos", "sec", "secs", "sect", "art", "arts", "para", "paras", "fig", "p", "pp",
    "ch", "cl", "vol", "sch", "ex", "exh", "reg", "rev", "par",
}  # fmt: skip
_SOFT_ABBREVIATIONS = {
    "inc", "ltd", "co", "corp", "llc", "llp", "plc", "lp", "bros", "intl", "mfg", "assn",
    "dept", "div", "est", "etc", "jr", "sr", "esq", "al", "approx", "ca", "min", "max",
    "hrs", "yrs", "mos", "ave", "blvd", "rd", "jan", "feb", "mar", "apr", "jun", "jul",
    "aug", "sep", "sept", "oct", "nov", "dec", "ala", "ariz", "ark", "cal", "calif",
    "colo", "conn", "del", "fla", "ga", "ill", "ind", "kan", "kans", "ky", "md", "mass",
    "mich", "minn", "miss", "mo", "mont", "neb", "nev", "okla", "ore", "pa", "penn",
    "tenn", "tex", "va", "vt", "wash", "wis", "wyo",
}  # fmt: skip
_SENTENCE_OPENERS = {
    "the", "this", "that", "these", "those", "it", "its", "he", "she", "they", "we", "i",
    "you", "such", "each", "any", "all", "no", "neither", "either", "if", "however",
    "accordingly", "therefore", "thus", "both", "a", "an", "there", "notwithstanding",
    "upon", "as", "our", "their", "his", "her", "in", "under", "yes", "for", "following",
}  # fmt: skip

_TERMINALS = ".!?…"
_CLOSERS = "\"'”’)»"
_ENUMERATOR = re.compile(r"^\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,6})\)?$")
_DOTTED_ABBREVIATION = re.compile(r"^(?:[a-z]\.)+[a-z]$")
_NUMERAL_NEXT = re.compile(r"(?:\d|[IVXLCDM]+\b|[A-Z]\b|#)")
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
BULLETS = "-*•‣●▪"
"""The characters that open an item of a bulleted list at the start of a line."""
_BULLET = f"[{re.escape(BULLETS)}]"
_BULLET_LINE = re.compile(rf"\n[ \t]*(?:{_BULLET}|\d{{1,2}}[.)])[ \t]+")
_LEADING_BULLET = re.compile(rf"(?:{_BULLET}[ \t]+)")
_WORD = re.compile(r"[A-Za-z]+")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _is_boundary(text: str, seg_start: int, stop: int, next_pos: int, had_marker: bool) -> bool:
    """Whether the terminal punctuation at ``stop`` ends the sentence that began at
    ``seg_start``; ``next_pos`` is where the following text starts."""
    if had_marker or next_pos >= len(text):
        return True
    next_char = text[next_pos]
    if next_char.islower():
        return False
    if text[stop] != ".":
        return True
    before = text[seg_start:stop]
    if _ENUMERATOR.match(before.strip()):
        return False
    last_token = before.split()[-1] if before.split() else ""
    token = last_token.lstrip("(\"'“‘").lower()
    if token in _TITLES:
        return False
    if token in _REFERENCE_ABBREVIATIONS and _NUMERAL_NEXT.match(text, next_pos):
        return False
    if (
        token in _SOFT_ABBREVIATIONS
        or _DOTTED_ABBREVIATION.match(token)
        or (len(token) == 1 and token.isalpha())
    ):
        word = _WORD.match(text, next_pos)
        return word is not None and word.group(0).lower() in _SENTENCE_OPENERS
    return True


def _sentence(text: str, start: int, end: int) -> Sentence | None:
    """Trim whitespace and a leading bullet; None for a segment with nothing in it."""
    while start < end and text[start].isspace():
        start += 1
    bullet = _LEADING_BULLET.match(text, start, end)
    if bullet:
        start = bullet.end()
    while end > start and text[end - 1].isspace():
        end -= 1
    piece = text[start:end]
    if not any(c.isalnum() or c in "[]【】^" for c in piece):
        return None
    return Sentence(piece, start, end)


def split_sentences(text: str) -> list[Sentence]:
    """Split ``text`` into sentences whose offsets point into ``text``."""
    sentences: list[Sentence] = []
    n = len(text)
    seg_start = 0
    i = 0

    def close(end: int, next_start: int) -> None:
        nonlocal seg_start
        sentence = _sentence(text, seg_start, end)
        if sentence is not None:
            sentences.append(sentence)
        seg_start = next_start

    while i < n:
        char = text[i]
        if char == "\n":
            hard_break = _BLANK_LINE.match(text, i) or _BULLET_LINE.match(text, i)
            if hard_break:
                # A bullet keeps its text (numbered items keep their number).
                close(i, _skip_space(text, i))
                i = max(seg_start, i + 1)
                continue
            i += 1
            continue
        if char not in _TERMINALS:
            i += 1
            continue
        stop = i
        j = i + 1
        while j < n and text[j] in _TERMINALS:
            j += 1
        while j < n and text[j] in _CLOSERS:
            j += 1
        end = j
        had_marker = False
        while True:
            marker = match_marker_at(text, _skip_space(text, end))
            if marker is None:
                break
            end = marker.end
            had_marker = True
        next_pos = _skip_space(text, end)
        if not had_marker and next_pos == end and end < n:
            # No space after the punctuation: "3.2", "U.S.A", "e.g.,".
            i = j
            continue
        if _is_boundary(text, seg_start, stop, next_pos, had_marker):
            close(end, next_pos)
            i = next_pos
        else:
            i = j
    if seg_start < n:
        close(n, n)
    return sentences


@functools.lru_cache(maxsize=512)
def sentence_texts(text: str) -> tuple[str, ...]:
    """The non-blank sentences of ``text``, in order: the units that trimming ranks, ingest
    embeds and the judge's focused evidence is cut from.

    Cached: one source is split by the index lookup, by trimming and again on a
    regeneration within the same question.
    """
    return tuple(s.text for s in split_sentences(text) if s.text.strip())
