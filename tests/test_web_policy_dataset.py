"""The web-policy evaluation set (GitHub's privacy statement, CC0) is consistent: each
answerable question's gold span is verbatim in the document, and there are unanswerable
questions to catch guessing."""

from __future__ import annotations

from pathlib import Path

from citeguard.evaluation.dataset import load_questions

DATASET = Path(__file__).resolve().parents[1] / "datasets" / "web-policy"


def test_each_gold_span_is_verbatim_in_its_document() -> None:
    questions = load_questions(DATASET / "questions.jsonl")
    assert sum(q.answerable for q in questions) >= 15
    assert sum(not q.answerable for q in questions) >= 5
    assert len({q.id for q in questions}) == len(questions)
    for question in questions:
        text = (DATASET / "docs" / str(question.doc)).read_text(encoding="utf-8")
        assert bool(question.gold_spans) == question.answerable, question.id
        for span in question.gold_spans:
            assert span.text in text, (question.id, span.text)
