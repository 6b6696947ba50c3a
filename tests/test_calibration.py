"""Question-level calibration of the evidence scorer (``citeguard calibrate``).

The thresholds the graph reads are fitted on the best passage of each question's sources;
these tests check the fitting rule, the per-question labels, and the command end to end on
a tiny generated dataset (real ingest, real MiniLM embedder, a real trained scorer).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from citeguard.documents import Chunk, SearchHit
from citeguard.evaluation.calibrate_scorer import (
    calibrate_scorer,
    question_sources,
    reworded_scores,
)
from citeguard.evaluation.dataset import GoldSpan, Question, load_questions
from citeguard.evaluation.question_thresholds import (
    CalibrationSettings,
    QuestionScore,
    fit_question_thresholds,
    passage_holds_gold,
    score_question,
    share_threshold,
)
from citeguard.evaluation.quote_thresholds import (
    JudgedQuote,
    fit_passage_answer_threshold,
    fit_passage_first_threshold,
    fit_weak_passage_relevance,
    judge_passage_answers,
)
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.learned.cross_encoder import CrossEncoder
from citeguard.learned.evidence import best_passage_score
from citeguard.serve import cli
from test_training import make_dataset


class KeywordScorer:
    """P(answers) = 0.9 when the passage says "governed", else 0.2."""

    threshold = 0.5
    recall_threshold = 0.1
    passage_answer_threshold = 0.5
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return np.array([0.9 if "governed" in passage else 0.2 for _, passage in pairs])


def row(score: float, answers: bool, answerable: bool = True, gold: bool = True) -> QuestionScore:
    return QuestionScore("q", "c.txt", answerable, score, answers, gold and answerable)


def test_answer_threshold_is_the_lowest_score_with_the_precision_and_few_false_answers() -> None:
    rows = [
        row(0.95, True),
        row(0.9, True),
        row(0.8, False, answerable=False),
        row(0.7, True),
        row(0.6, True),
        row(0.3, False, answerable=False),
        row(0.2, False),
    ]
    lenient = CalibrationSettings(max_false_answer_share=0.5, min_precision=0.8)
    fitted = fit_question_thresholds(rows, lenient)
    # Above 0.6: 4 right of 5 (0.8); above 0.3: 4 of 6 (0.67). One unanswerable of two
    # over 0.6 is allowed.
    assert fitted["threshold"] == 0.6
    assert fitted["over_threshold"]["unanswerable"] == 0.5
    assert fitted["over_threshold"]["best_passage_answers"] == 0.8
    strict = fit_question_thresholds(rows, CalibrationSettings(min_precision=1.0))
    assert strict["threshold"] == 0.9
    # No unanswerable question may reach it: just above the unanswerable 0.8.
    no_false = fit_question_thresholds(
        rows, CalibrationSettings(max_false_answer_share=0.0, min_precision=0.5)
    )
    assert 0.8 < no_false["threshold"] < 0.9
    assert no_false["over_threshold"]["unanswerable"] == 0.0


def test_share_threshold_lets_at_most_the_share_through() -> None:
    scores = [i / 100 for i in range(100)]
    threshold = share_threshold(scores, 0.025)
    assert sum(s >= threshold for s in scores) == 2
    assert 0.97 < threshold <= 0.98
    assert share_threshold(scores, 1.0) == 0.0
    assert share_threshold([], 0.1) == 0.0
    assert share_threshold([0.5, 0.5, 0.5], 0.4) > 0.5


def test_floor_keeps_the_share_of_answerable_questions_with_gold_in_view() -> None:
    # The answer in view for every answerable question, the best passage right from 0.5 up.
    rows = [row(score / 20, score >= 10) for score in range(1, 21)] + [
        row(0.01, False, answerable=False)
    ]
    fitted = fit_question_thresholds(rows, CalibrationSettings(floor_keep=0.9, min_precision=0.9))
    kept = [r for r in rows if r.sources_hold_gold and r.best_score >= fitted["recall_threshold"]]
    assert len(kept) == 18  # 90% of the 20
    assert fitted["under_floor"]["unanswerable"] == 1.0
    assert fitted["recall_threshold"] == 0.15 < fitted["threshold"] == 0.45


def test_floor_also_keeps_the_questions_asked_in_other_words() -> None:
    # In the dataset's wording every answerable question scores 0.5 or more; asked in other
    # words the same questions score lower, and the floor must keep those too.
    rows = [row(0.5 + score / 40, True) for score in range(20)]
    reworded = [
        dataclasses.replace(row(0.05 + score / 100, True), wording="description")
        for score in range(20)
    ]
    settings = CalibrationSettings(floor_keep=0.9, min_precision=0.5)
    alone = fit_question_thresholds(rows, settings)
    pooled = fit_question_thresholds(rows, settings, reworded)
    assert alone["recall_threshold"] >= 0.5
    assert pooled["recall_threshold"] < 0.25
    kept = [r for r in rows + reworded if r.best_score >= pooled["recall_threshold"]]
    assert len(kept) == 36  # 90% of the 40
    assert pooled["floor_questions"] == 40
    # Each wording's own floor, before the pooled one is capped at the answer threshold.
    assert alone["floor_by_wording"] == {"dataset": 0.55}
    assert pooled["floor_by_wording"] == {"dataset": 0.55, "description": 0.07}
    assert alone["under_floor"]["answerable_in_other_wordings"] is None
    assert pooled["under_floor"]["answerable_in_other_wordings"] == 0.2
    # The answer threshold is fitted on the dataset's wording alone.
    assert pooled["threshold"] == alone["threshold"]


def test_other_wordings_are_each_searched_for_answerable_questions_only() -> None:
    clause = "This Agreement shall be governed by the laws of the State of Texas."
    answerable = Question(
        id="a", question="Which law governs?", answerable=True,
        gold_spans=(GoldSpan(text=clause),), doc="c.txt", extra={"category": "Governing Law"},
    )  # fmt: skip
    absent = Question(
        id="b", question="Is there a cap?", answerable=False, doc="c.txt",
        extra={"category": "Cap On Liability"},
    )  # fmt: skip
    categories = {"Governing Law": {"cuad_description": "Which state's law governs?"}}
    searched: list[str] = []

    def sources_of(question: Question, asked: str) -> list[str]:
        searched.append(asked)
        return ["Notices in writing. " + clause if "law" in asked.lower() else "Nothing here."]

    scored = reworded_scores([answerable, absent], categories, sources_of, KeywordScorer())
    assert searched == [
        "Which state's law governs?",
        "What does the contract say about governing law?",
        "Is there anything in this document on governing law?",
    ]
    assert [r.id for r in scored] == ["a", "a", "a"]
    assert [r.wording for r in scored] == ["description", "template-0", "template-1"]
    assert all(r.best_score == 0.9 and r.sources_hold_gold for r in scored)


def test_question_is_labelled_by_its_best_passage() -> None:
    clause = "This Agreement shall be governed by the laws of the State of Texas."
    sources = ["Payments are due within thirty days. " * 3, "Notices in writing. " + clause]
    asked = Question(
        id="a", question="Which law governs?", answerable=True,
        gold_spans=(GoldSpan(text=clause),), doc="c.txt",
    )  # fmt: skip
    scored = score_question(asked, sources, KeywordScorer())
    assert scored.best_score == 0.9 and scored.best_passage_answers and scored.sources_hold_gold
    wrong_view = score_question(asked, sources[:1], KeywordScorer())
    assert not wrong_view.best_passage_answers and not wrong_view.sources_hold_gold
    absent = Question(id="b", question="Which law governs?", answerable=False, doc="c.txt")
    assert not score_question(absent, sources, KeywordScorer()).best_passage_answers
    assert score_question(asked, [], KeywordScorer()).best_score == 0.0


def quote(
    score: float, relevance: float, answerable: bool = True, right: bool = True
) -> JudgedQuote:
    return JudgedQuote("q", answerable, score, right and answerable, relevance, "quoted")


def test_passage_answer_threshold_spends_the_budget_on_what_the_check_keeps() -> None:
    judged = [
        quote(0.9, 0.9),
        quote(0.8, 0.2, answerable=False),  # over the answer threshold, refused by the check
        quote(0.7, 0.9),
        quote(0.6, 0.3, answerable=False),  # refused by the check
        quote(0.5, 0.8, answerable=False),  # kept: the first false answer
        quote(0.4, 0.9),
        quote(0.3, 0.9, answerable=False),  # kept: one false answer too many
        quote(0.2, 0.9),
    ]
    settings = CalibrationSettings(max_false_answer_share=0.1, min_precision=0.6)
    # Ten unanswerable questions: the budget is one false answer.
    assert fit_passage_answer_threshold(judged, 10, 0.85, settings, 0.5) == 0.4
    # With no false answer allowed, the scan stops above the first one the check keeps.
    none = CalibrationSettings(max_false_answer_share=0.0, min_precision=0.6)
    assert fit_passage_answer_threshold(judged, 10, 0.85, none, 0.5) == 0.6
    # A judge that keeps everything lets no lower threshold through than the answer
    # threshold's own false answer (0.8) allows.
    trusting = [JudgedQuote(q.id, q.answerable, q.best_score, q.best_passage_answers, 1.0, "")
                for q in judged]  # fmt: skip
    assert fit_passage_answer_threshold(trusting, 10, 0.85, none, 0.5) == 0.85
    # The precision guard: wrong passages of answerable questions count against it.
    wrong = [quote(0.8, 0.9), quote(0.75, 0.9), quote(0.7, 0.9, right=False)]
    wrong.append(quote(0.6, 0.9, right=False))
    strict = CalibrationSettings(max_false_answer_share=1.0, min_precision=0.6)
    assert fit_passage_answer_threshold(wrong, 10, 0.85, strict, 0.5) == 0.7
    assert fit_passage_answer_threshold([], 10, 0.85, settings, 0.5) == 0.85


def test_passage_first_threshold_is_the_lowest_score_whose_kept_quotes_are_right_enough() -> None:
    judged = [
        quote(0.95, 0.9),
        quote(0.9, 0.9),
        quote(0.85, 0.2, answerable=False),  # refused by the check: not counted
        quote(0.8, 0.9),
        quote(0.75, 0.9, answerable=False),  # kept: a false answer, 3 of 4 right
        quote(0.7, 0.9),
        quote(0.65, 0.9),
        quote(0.6, 0.9, right=False),  # 5 of 7 right
        quote(0.5, 0.9),
    ]
    # 3 of 4 (0.75) reach 0.75, 5 of 6 (0.83) reach 0.65; never under 7 of 9 from 0.5.
    settings = CalibrationSettings(passage_first_precision=0.8)
    assert fit_passage_first_threshold(judged, 0.3, settings, 0.5) == 0.65
    strict = CalibrationSettings(passage_first_precision=0.95)
    assert fit_passage_first_threshold(judged, 0.3, strict, 0.5) == 0.8
    # Never under the passage answer threshold, from which the quote is drafted at all.
    assert fit_passage_first_threshold(judged, 0.9, settings, 0.5) == 0.9
    # No score reaches the precision: nothing is quoted first.
    wrong = [quote(0.9, 0.9, right=False), quote(0.8, 0.9, answerable=False)]
    assert fit_passage_first_threshold(wrong, 0.3, settings, 0.5) == 1.0
    assert fit_passage_first_threshold([], 0.3, settings, 0.5) == 1.0


def test_weaker_passages_answer_from_the_lowest_relevance_that_keeps_the_budget() -> None:
    judged = [
        quote(0.9, 0.6),
        quote(0.8, 0.6, answerable=False),  # the strong passages' one false answer
        quote(0.5, 0.97),  # weak passages (under 0.7) from here
        quote(0.45, 0.92),
        quote(0.4, 0.86, answerable=False),  # a second false answer: over the budget
        quote(0.35, 0.83),
        quote(0.3, 0.75),
    ]
    settings = CalibrationSettings(max_false_answer_share=0.1, min_precision=0.6)
    # Ten unanswerable questions: one false answer allowed, spent by the strong passages.
    # The scan down from 0.95 stops at 0.85, which would let the second one through.
    assert fit_weak_passage_relevance(judged, 10, 0.7, settings, 0.5) == 0.9
    # With room for two, it goes on to where the next false answer would come (none
    # does): every minimum down to the run's threshold passes.
    roomy = CalibrationSettings(max_false_answer_share=0.2, min_precision=0.6)
    assert fit_weak_passage_relevance(judged, 10, 0.7, roomy, 0.5) == 0.5
    # No weak passage may answer when even the strictest check lets a false one through.
    sure_and_wrong = [quote(0.9, 0.6), quote(0.8, 0.6, answerable=False)]
    sure_and_wrong.append(quote(0.5, 0.99, answerable=False))
    assert fit_weak_passage_relevance(sure_and_wrong, 10, 0.7, settings, 0.5) is None


def test_judged_passage_answers_are_the_graphs_quotes_of_questions_over_the_floor() -> None:
    clause = "This Agreement shall be governed by the laws of the State of Texas."
    sources = ["Payments are due within thirty days. " * 3, "Notices in writing. " + clause]
    asked = [
        Question(id="a", question="Which law governs?", answerable=True,
                 gold_spans=(GoldSpan(text=clause),), doc="c.txt"),
        Question(id="b", question="Which court?", answerable=False, doc="c.txt"),
    ]  # fmt: skip
    rows = [score_question(q, sources, KeywordScorer()) for q in asked]
    judged_pairs: list[tuple[str, str]] = []

    def judge(question: str, text: str) -> float:
        judged_pairs.append((question, text))
        return 0.8

    judged = judge_passage_answers(asked, rows, lambda q: sources, KeywordScorer(), judge, 0.5)
    assert [q.id for q in judged] == ["a", "b"]
    assert judged[0].quote == clause and "[" not in judged[0].quote
    assert judged[0].best_passage_answers and not judged[1].best_passage_answers
    assert judged[0].relevance == 0.8
    assert judged_pairs[0] == ("Which law governs?", clause)
    # Under the floor: not drafted, not judged.
    assert judge_passage_answers(asked, rows, lambda q: sources, KeywordScorer(), judge, 0.95) == []


def test_a_clause_longer_than_the_passage_still_counts() -> None:
    clause = " ".join(f"The licensee shall pay fee number {n}." for n in range(40))
    assert passage_holds_gold(clause[:200], [clause])
    assert not passage_holds_gold("Nothing of the kind is said here at all.", [clause])


@pytest.mark.integration
def test_calibrate_command_writes_thresholds_the_model_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = make_dataset(tmp_path / "data")
    trained = tmp_path / "scorer"
    assert cli.main(
        ["train", str(dataset), "--out", str(trained), "--max-train-pairs", "16",
         "--batch-size", "8", "--max-length", "64", "--validation-share", "0.5"]
    ) == 0  # fmt: skip
    before = CrossEncoder(trained / "model")
    out = tmp_path / "calibration"
    code = cli.main(
        ["calibrate", str(dataset), "--model", str(trained / "model"), "--out", str(out),
         "--validation-share", "0.5", "--min-precision", "0.5",
         "--max-false-answer-share", "0.5", "--no-judge-quotes", "--floor-wordings"]
    )  # fmt: skip
    assert code == 0
    result = json.loads((out / "calibration.json").read_text())
    assert result["documents"] == 3  # half of the six contracts
    assert len(result["rows"]) == 6  # two questions each
    assert sum(r["answerable"] for r in result["rows"]) == 4
    after = CrossEncoder(trained / "model")
    assert after.threshold == result["threshold"]
    assert after.recall_threshold == result["recall_threshold"] <= after.threshold
    assert after.description["pair_threshold"] == before.threshold
    assert after.description["question_calibration"]["questions"] == 6
    assert after.description["question_calibration"]["command"].startswith("citeguard calibrate")
    assert "written to" in capsys.readouterr().out
    assert (out / "index").is_dir()
    assert "passage_answer_threshold" not in result  # --no-judge-quotes
    # The floor also kept the answerable questions asked in the dataset's other wordings.
    reworded = result["other_wording_rows"]
    assert reworded and {r["id"] for r in reworded} <= {
        r["id"] for r in result["rows"] if r["answerable"]
    }
    assert result["floor_questions"] == sum(r["sources_hold_gold"] for r in result["rows"]) + sum(
        r["sources_hold_gold"] for r in reworded
    )
    assert after.passage_answer_threshold == after.threshold

    # With the quote judge (the CLI's default passes the local model's), the passage
    # answer threshold is fitted on the judged quotes and written beside the others.
    judged = calibrate_scorer(
        dataset, trained / "model", tmp_path / "judged", after,
        CalibrationSettings(min_precision=0.5, max_false_answer_share=0.5),
        PairSettings(validation_share=0.5), quote_judge=lambda question, text: 0.9,
    )  # fmt: skip
    written = CrossEncoder(trained / "model")
    assert written.passage_answer_threshold == judged["passage_answer_threshold"]
    assert written.passage_answer_threshold <= written.threshold
    fitted = judged["weak_passage_relevance_threshold"]
    assert written.weak_passage_relevance_threshold == fitted
    assert fitted is None or 0.5 <= fitted <= 0.95
    assert after.weak_passage_relevance_threshold is None  # --no-judge-quotes fitted none
    first = judged["passage_first_threshold"]
    assert written.passage_first_threshold == first >= written.passage_answer_threshold
    assert after.passage_first_threshold is None  # nor a passage-first threshold
    details = json.loads((tmp_path / "judged" / "calibration.json").read_text())
    assert len(details["judged_quotes"]) == judged["passage_answers"]["judged"]
    # By default the floor is fitted on the dataset's wording alone.
    assert details["other_wording_rows"] == [] and list(judged["floor_by_wording"]) == ["dataset"]

    # With the relevance averaged with the scorer's, as a graph with
    # passage_relevance_with_scorer asks it, each quote is judged by that mean.
    calibrate_scorer(
        dataset, trained / "model", tmp_path / "averaged", written,
        CalibrationSettings(min_precision=0.5, max_false_answer_share=0.5,
                            passage_relevance_with_scorer=True),
        PairSettings(validation_share=0.5), quote_judge=lambda question, text: 0.9,
    )  # fmt: skip
    averaged = json.loads((tmp_path / "averaged" / "calibration.json").read_text())
    asked = {q.id: q.question for q in load_questions(dataset)}
    assert averaged["judged_quotes"] and averaged["settings"]["passage_relevance_with_scorer"]
    for quote in averaged["judged_quotes"]:
        scored = best_passage_score(written, asked[quote["id"]], quote["quote"])
        assert quote["relevance"] == pytest.approx((0.9 + scored) / 2)


def test_calibrate_reports_a_missing_model(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data")
    code = cli.main(["calibrate", str(dataset), "--model", str(tmp_path / "none"), "--out", "x"])
    assert code == 1


class FakeSearcher:
    """Eight hits in retrieval order; the answering one (it says "governed") is seventh."""

    def __init__(self) -> None:
        texts = [f"Section {i}. The supplier ships goods monthly." for i in range(8)]
        texts[6] = "Section 6. This Agreement is governed by the laws of Ohio."
        self.hits = [
            SearchHit(
                chunk=Chunk(f"c{i}", "doc.pdf", text, (i + 1, i + 1), (str(i + 1),) * 2, 0, 1),
                score=1.0 - i / 10,
                dense_score=0.5,
                lexical_score=1.0,
                rank=i,
            )
            for i, text in enumerate(texts)
        ]

    def search(self, question: str, k: int, **_: object) -> list[SearchHit]:
        return self.hits[:k]

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        return self.hits[0]


def test_calibration_asks_with_the_scorers_rerank_when_the_graph_would() -> None:
    searcher = FakeSearcher()
    question = "Which law governs the agreement?"
    plain = question_sources(searcher, question, ["doc.pdf"])  # type: ignore[arg-type]
    reranked = question_sources(searcher, question, ["doc.pdf"], KeywordScorer())  # type: ignore[arg-type]
    assert [h.chunk.chunk_id for h in plain] == ["c0", "c1", "c2", "c3"]
    # Retrieval's first stays first; the scorer's choice comes next.
    assert [h.chunk.chunk_id for h in reranked[:2]] == ["c0", "c6"]
    assert len(reranked) == len(plain)


def test_calibration_reranks_the_pool_of_the_graphs_top_k() -> None:
    """With a pool of 6 hits the answering seventh is out of the scorer's reach; with 8
    (or more) it is reranked first after retrieval's first, as the retrieve node would
    with that pool."""
    searcher = FakeSearcher()
    question = "Which law governs the agreement?"
    small = question_sources(searcher, question, ["doc.pdf"], KeywordScorer(), rerank_pool=6)  # type: ignore[arg-type]
    large = question_sources(searcher, question, ["doc.pdf"], KeywordScorer(), rerank_pool=8)  # type: ignore[arg-type]
    assert "c6" not in [h.chunk.chunk_id for h in small]
    assert large[1].chunk.chunk_id == "c6"
