"""Passages: runs of whole sentences of at most a number of words.

What the evidence scorer and the support verifier read beside a question or a claim; the
same cut in training and in use, so the models see text of the size they learned on.
"""

from __future__ import annotations

from dataclasses import dataclass

from citeguard.text.sentences import split_sentences


@dataclass(frozen=True)
class Passage:
    """A run of whole sentences of one text: ``text == source[start:end]``."""

    text: str
    start: int
    end: int


def passages(text: str, max_words: int) -> list[Passage]:
    """Consecutive sentences grouped into passages of at most ``max_words`` words (a longer
    sentence is a passage of its own)."""
    out: list[Passage] = []
    start = end = words = 0
    for sentence in split_sentences(text):
        n = len(sentence.text.split())
        if words and words + n > max_words:
            out.append(Passage(text[start:end], start, end))
            words = 0
        if not words:
            start = sentence.start
        end = sentence.end
        words += n
    if words:
        out.append(Passage(text[start:end], start, end))
    return out
