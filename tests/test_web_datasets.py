"""The evaluation sets of GitHub's site policies (CC0), its privacy statement
(``datasets/web-policy``) and its terms of service (``datasets/web-terms``), are
consistent: each answerable question's gold span is verbatim in the document, and there are
unanswerable questions to catch guessing."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeguard.evaluation.dataset import load_questions

DATASETS = Path(__file__).resolve().parents[1] / "datasets"


@pytest.mark.parametrize("name", ["web-policy", "web-terms"])
def test_each_gold_span_is_verbatim_in_its_document(name: str) -> None:
    dataset = DATASETS / name
    questions = load_questions(dataset / "questions.jsonl")
    assert sum(q.answerable for q in questions) >= 15
    assert sum(not q.answerable for q in questions) >= 5
    assert len({q.id for q in questions}) == len(questions)
    for question in questions:
        text = (dataset / "docs" / str(question.doc)).read_text(encoding="utf-8")
        assert bool(question.gold_spans) == question.answerable, question.id
        for span in question.gold_spans:
            assert span.text in text, (question.id, span.text)
