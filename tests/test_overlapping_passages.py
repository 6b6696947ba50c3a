"""The passage a passage answer quotes is chosen among passages starting at every sentence.

Side-by-side passages cut a clause in two when it opens near the end of one passage: each
half is read with unrelated sentences. ``overlapping_passages`` starts a passage at every
sentence, so one of them holds the clause whole; ``best_passages(overlapping=True)``
returns that passage's span while its score stays the best side-by-side passage's, the
one the scorer's thresholds were fitted on. That side-by-side passage is the second
candidate: when the first quote fails validation, the graph quotes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from citeguard.documents import SearchHit
from citeguard.evaluation.dataset import GoldSpan, Question
from citeguard.evaluation.question_thresholds import score_question
from citeguard.evaluation.quote_thresholds import judge_passage_answers
from citeguard.generate.passage_answer import (
    passage_answer_of_sources,
    passage_answers_of_sources,
)
from citeguard.generate.prompts import REFUSAL
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.graph.passage_scores import AnswerScores, answering_passage
from citeguard.learned.evidence import (
    OVERLAPPING_ANSWER_PASSAGES,
    answer_passages,
    best_passages,
)
from citeguard.text.passages import overlapping_passages, passages
from graph_fakes import fake_resources, make_chunk

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


def test_the_side_by_side_passage_is_the_second_quote_when_it_differs() -> None:
    text = text_of(FILLER, FILLER, FILLER, FILLER, RENT, LATE, FILLER)
    question = "When is rent late?"
    drafted = passage_answers_of_sources(BothSentencesScorer(), question, [text], 0.2)
    # The whole clause first, then the side-by-side passage the score was read from.
    assert [quote.text for _, quote in drafted] == [
        f"{RENT[:-1]} [1]. {LATE[:-1]} [1].",
        f"{RENT[:-1]} [1].",
    ]
    assert [source for source, _ in drafted] == [1, 1]
    # Side by side alone there is one passage to quote; nothing over the threshold, none.
    assert len(passage_answers_of_sources(BothSentencesScorer(), question, [text], 0.2, False)) == 1
    assert passage_answers_of_sources(BothSentencesScorer(), question, [text], 0.5) == []
    first = passage_answer_of_sources(BothSentencesScorer(), question, [text], 0.2)
    assert first is not None and first[1].text == drafted[0][1].text


def run_graph(relevance: Callable[[str, str], float], **context: object) -> tuple[dict, list[str]]:
    """The graph over one chunk whose rent clause side-by-side passages cut in two, the
    model refusing; returns the result and the quotes the relevance check read."""
    text = text_of(FILLER, FILLER, FILLER, FILLER, RENT, LATE, FILLER)
    resources = fake_resources([REFUSAL, REFUSAL], chunks=[make_chunk("lease.pdf", text, page=2)])
    resources._evidence_scorer = BothSentencesScorer()
    read: list[str] = []

    def recording(question: str, quote: str) -> float:
        read.append(quote)
        return relevance(question, quote)

    resources._relevance = recording
    settings = {
        "scorer_rerank": False,
        "scorer_source_rescue": False,
        "scorer_sufficiency": True,  # the scorer's 0.4 lets the question through
        "scorer_answer": True,
        "passage_relevance_with_scorer": False,
        **context,
    }
    result = compile_graph(resources).invoke(
        {"question": "When is rent late?"}, context=Context(**settings)
    )
    return result, read


def test_when_the_whole_clauses_quote_fails_the_graph_quotes_the_scored_passage() -> None:
    def doubts_the_whole_clause(question: str, quote: str) -> float:
        return 0.1 if LATE[:-1] in quote else 0.9

    result, read = run_graph(doubts_the_whole_clause)
    assert result["status"] == "answered"
    assert RENT[:-1] in result["answer"] and LATE[:-1] not in result["answer"]
    assert len(read) == 2 and LATE[:-1] in read[0] and LATE[:-1] not in read[1]
    # Side by side alone, the scored passage is the only quote, read once.
    alone, read = run_graph(doubts_the_whole_clause, scorer_passages_overlap=False)
    assert alone["status"] == "answered" and len(read) == 1


def test_the_second_quote_is_drafted_once_and_only_after_the_first_fails() -> None:
    refused, read = run_graph(lambda question, quote: 0.1)
    assert (refused["status"], refused["refusal_reason"]) == ("refused", "validation_failed")
    assert len(read) == 2  # the whole clause's quote, then the scored passage's; no third
    answered, read = run_graph(lambda question, quote: 0.9)
    assert answered["status"] == "answered" and LATE[:-1] in answered["answer"]
    assert len(read) == 1


def test_calibration_judges_both_quotes_and_keeps_the_higher_reading() -> None:
    """Calibration follows the graph: a question passes at a threshold when one of the
    quotes the graph would try passes it."""
    text = text_of(FILLER, FILLER, FILLER, FILLER, RENT, LATE, FILLER)
    asked = [
        Question(id="late", question="When is rent late?", answerable=True,
                 gold_spans=(GoldSpan(text=RENT),), doc="lease.txt"),
    ]  # fmt: skip
    scorer = BothSentencesScorer()
    rows = [score_question(q, [text], scorer) for q in asked]
    read: list[str] = []

    def judge(question: str, quote: str) -> float:
        read.append(quote)
        return 0.1 if LATE[:-1] in quote else 0.9

    [judged] = judge_passage_answers(asked, rows, lambda q: [text], scorer, judge, 0.2)
    assert len(read) == 2
    assert (judged.relevance, judged.quote) == (0.9, RENT)


class CountingScorer(BothSentencesScorer):
    """BothSentencesScorer that records every text it reads."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.read.extend(text for _, text in pairs)
        return super().scores(pairs)


def test_only_the_best_source_is_read_a_second_way_and_its_choice_is_the_same() -> None:
    quoted = text_of(FILLER, FILLER, FILLER, FILLER, RENT, LATE, FILLER)
    other = " ".join(["The committee met in spring to review the library's budget."] * 7)
    hits = [
        SearchHit(make_chunk("lease.pdf", text, page=n + 1), 1.0, 1.0, 1.0)
        for n, text in enumerate([other, quoted])
    ]
    scorer = CountingScorer()
    scores = AnswerScores(scorer, "When is rent late?", overlapping=True)
    scores.score(hits)
    read_side_by_side = len(scorer.read)
    scores.choose_quoted_passage(hits)
    # The second reading is of the best source alone: none of the other chunk's sentences.
    second = scorer.read[read_side_by_side:]
    assert second and not any("committee" in text for text in second)
    [whole] = best_passages(BothSentencesScorer(), "When is rent late?", [quoted], overlapping=True)
    evidence = [scores.annotated({"chunk_id": hit.chunk.chunk_id}) for hit in hits]
    passage = answering_passage(evidence, 0.2)
    assert passage is not None and passage["source"] == 2
    assert (passage["start"], passage["end"]) == (whole.start, whole.end)
    assert passage["fallback"] == {"start": whole.scored_start, "end": whole.scored_end}
    assert evidence[0].get("scored_passage") is None  # the other source: side by side only
    # Off, or asked again: nothing more is read.
    scores.choose_quoted_passage(hits)
    assert len(scorer.read) == read_side_by_side + len(second)
    plain = AnswerScores(scorer, "When is rent late?", overlapping=False)
    plain.score(hits)
    before = len(scorer.read)
    plain.choose_quoted_passage(hits)
    assert len(scorer.read) == before
