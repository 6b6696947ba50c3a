"""The passage a passage answer quotes is chosen among passages starting at every sentence.

Side-by-side passages cut a clause in two when it opens near the end of one passage: each
half is read with unrelated sentences. ``overlapping_passages`` starts a passage at every
sentence, so one of them holds the clause whole; ``best_passages(overlapping=True)``
returns that passage's span while its score stays the best side-by-side passage's, the
one the scorer's thresholds were fitted on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.graph.context import Context
from citeguard.learned.evidence import (
    OVERLAPPING_ANSWER_PASSAGES,
    answer_passages,
    best_passages,
)
from citeguard.text.passages import overlapping_passages, passages

FILLER = "The parties met on a Tuesday to review the schedule of the project in detail."
"""A 16-word sentence that answers nothing."""
RENT = "The monthly rent is $1,450.00 and is payable in advance."
LATE = "Rent that is received after the fifth day of the month is late."


def text_of(*sentences: str) -> str:
    return " ".join(sentences)


class BothSentencesScorer:
    """P(answers) is high only for a text holding both ``RENT`` and ``LATE``, middling for
    one of them, low otherwise (a fake scorer: the real one rates a whole clause above
    either half)."""

    threshold = recall_threshold = passage_answer_threshold = 0.2
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        def score(text: str) -> float:
            held = (RENT[:-1] in text) + (LATE[:-1] in text)
            return {0: 0.05, 1: 0.4, 2: 0.9}[held]

        return np.array([score(p) for _, p in pairs])


def test_a_passage_starts_at_every_sentence_unless_the_one_before_holds_it() -> None:
    # 15, 15, 10, 13, 15, 15 words: at 40 words a passage from the fourth sentence ends
    # where the third's does, and the last sentence alone where the fifth's does.
    text = text_of(FILLER, FILLER, RENT, LATE, FILLER, FILLER)
    overlapping = overlapping_passages(text, 40)
    assert [p.text for p in overlapping] == [
        text_of(FILLER, FILLER, RENT),
        text_of(FILLER, RENT, LATE),
        text_of(RENT, LATE, FILLER),
        text_of(FILLER, FILLER),
    ]
    assert all(text[p.start : p.end] == p.text for p in overlapping)


def test_an_answer_is_quoted_from_side_by_side_and_overlapping_passages_each_once() -> None:
    text = text_of(FILLER, FILLER, RENT, LATE, FILLER, FILLER)
    side_by_side = [(p.start, p.end) for p in passages(text, 40)]
    spans = [(p.start, p.end) for p in answer_passages(text, 40)]
    assert set(side_by_side) <= set(spans)
    assert {(p.start, p.end) for p in overlapping_passages(text, 40)} <= set(spans)
    assert spans == sorted(set(spans))


def test_a_sentence_longer_than_the_limit_is_a_passage_of_its_own() -> None:
    long_sentence = "The " + " ".join(["word"] * 50) + "."
    text = text_of(RENT, long_sentence, LATE)
    spans = [p.text for p in overlapping_passages(text, 40)]
    assert spans == [RENT, long_sentence, LATE]
    assert overlapping_passages("", 40) == []


def test_a_clause_cut_in_two_side_by_side_is_found_whole_with_the_same_score() -> None:
    # 15 + 15 + 10 words fill the first 45-word passage up to RENT; LATE opens the next.
    text = text_of(FILLER, FILLER, RENT, LATE, FILLER)
    [apart] = best_passages(BothSentencesScorer(), "When is rent late?", [text], 45)
    [whole] = best_passages(
        BothSentencesScorer(), "When is rent late?", [text], 45, overlapping=True
    )
    assert RENT in text[apart.start : apart.end]
    assert LATE not in text[apart.start : apart.end]
    assert RENT in text[whole.start : whole.end]
    assert LATE in text[whole.start : whole.end]
    assert whole.score == apart.score == 0.4


def test_the_passage_answer_quotes_from_the_whole_clause() -> None:
    text = text_of(FILLER, FILLER, FILLER, FILLER, RENT, LATE, FILLER)
    apart = passage_answer_of_sources(
        BothSentencesScorer(), "When is rent late?", [text], 0.2, overlapping=False
    )
    whole = passage_answer_of_sources(
        BothSentencesScorer(), "When is rent late?", [text], 0.2, overlapping=True
    )
    assert apart is not None and whole is not None
    assert LATE not in apart[1].text
    assert RENT[:-1] in whole[1].text and LATE[:-1] in whole[1].text
    assert FILLER[:20] not in whole[1].text


def test_the_graph_and_calibration_choose_overlapping_passages_by_default() -> None:
    assert OVERLAPPING_ANSWER_PASSAGES is True
    assert Context().scorer_passages_overlap is OVERLAPPING_ANSWER_PASSAGES
