"""Passages: runs of whole sentences of at most a number of words.

What the evidence scorer and the support verifier read beside a question or a claim; the
same cut in training and in use, so the models see text of the size they learned on.
"""

from __future__ import annotations

import re
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


def overlapping_passages(text: str, max_words: int) -> list[Passage]:
    """Passages starting at every sentence: that sentence and those after it while they
    fit in ``max_words`` words (a longer sentence is a passage of its own), each kept
    unless it lies within the one before (the same end: near the end of a text every
    passage does, down to its last sentence alone).

    A clause that :func:`passages` cuts in two, its opening closing one passage and its end
    opening the next, is read whole in the one that starts where it starts. The shorter
    passages left out would be chosen for being short, not for answering: a heading
    alone ("ARTICLE VI TERM AND TERMINATION") reads as on topic as a clause.
    """
    sentences = split_sentences(text)
    counts = [len(sentence.text.split()) for sentence in sentences]
    out: list[Passage] = []
    for i, first in enumerate(sentences):
        last, words = i, counts[i]
        while last + 1 < len(sentences) and words + counts[last + 1] <= max_words:
            last += 1
            words += counts[last]
        end = sentences[last].end
        if not out or end != out[-1].end:
            out.append(Passage(text[first.start : end], first.start, end))
    return out


_MARK_RUN = re.compile(r"(([^\w\s]|_)\2\2)\2+")


def without_mark_runs(text: str) -> str:
    """``text`` with each run of more than three of the same mark ("-----", "______",
    "......") cut to three; shorter runs ("[***]", "...") stay as written.

    Ruled lines, form blanks and dot leaders of PDF text carry no words, yet a model's
    tokenizer reads each mark as a word piece of its own: a 32-dash underline took a sixth
    of the verifier's window, and an exact 44-word quote of a license grant read as
    unsupported with it.
    """
    return _MARK_RUN.sub(r"\1", text)


def reading_windows(passage: str, max_words: int) -> list[str]:
    """What a model with a window of ``max_words`` words reads of ``passage``: the passage
    itself and, for a sentence longer than the window, also overlapping windows of
    ``max_words`` words (each starting half a window after the last, the last ending with
    the passage).

    A model cuts what does not fit its window, so a clause in the second half of a long
    contract sentence was never read (an exact quote of one scored 0.05 as a claim). The
    passage itself stays one of the readings, so a passage scored by its best reading never
    scores lower than before.
    """
    words = list(re.finditer(r"\S+", passage))
    if len(words) <= max_words:
        return [passage]
    step = max(1, max_words // 2)
    starts = list(range(step, len(words) - max_words, step)) + [len(words) - max_words]
    return [passage] + [passage[words[i].start() : words[i + max_words - 1].end()] for i in starts]


_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HTML_COMMENT_AND_SPACE = re.compile(_HTML_COMMENT.pattern + r"\s*", re.DOTALL)


def blank_html_comments(text: str) -> str:
    """``text`` with each HTML comment ("<!-- markdownlint-disable GHD034 -->", which
    Markdown files read as text carry) turned into as many spaces: offsets into ``text``
    still hold, and what the comment stood between reads as one run of text. A comment is
    an instruction to a program, not words of the document."""
    return _HTML_COMMENT.sub(lambda match: " " * len(match.group()), text)


def without_html_comments(text: str) -> str:
    """``text`` without its HTML comments and the whitespace after each: a quote as a
    reader should see it, the document's words only."""
    return _HTML_COMMENT_AND_SPACE.sub("", text)
