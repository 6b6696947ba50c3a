"""The evaluation sets written for this project (a privacy policy and house rules; an
employee handbook and a warranty and returns policy) are consistent and reproducible: each
gold span on its gold page, each generator writes the same texts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from citeguard.evaluation.dataset import load_questions

ROOT = Path(__file__).resolve().parents[1]

WRITTEN_SETS = [
    ("other-kinds", "make_other_kinds.py", {"privacy_policy.pdf", "house_rules.pdf"}),
    (
        "handbook-warranty",
        "make_handbook_warranty.py",
        {"employee_handbook.pdf", "warranty_returns.pdf"},
    ),
]


def _generator(script_name: str) -> Any:
    script = ROOT / "scripts" / script_name
    spec = importlib.util.spec_from_file_location(script.stem, script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("name", "script", "docs"), WRITTEN_SETS)
def test_questions_load_and_each_gold_span_is_on_its_gold_page(
    name: str, script: str, docs: set[str]
) -> None:
    dataset = ROOT / "datasets" / name
    questions = load_questions(dataset / "questions.jsonl")
    assert {q.doc for q in questions} == docs
    assert sum(q.answerable for q in questions) >= 15
    assert sum(not q.answerable for q in questions) >= 5
    normalize = _generator(script).layout.normalize
    for question in questions:
        with pymupdf.open(dataset / "docs" / str(question.doc)) as doc:
            pages = [normalize(doc[i].get_text()) for i in range(doc.page_count)]
        assert bool(question.gold_spans) == question.answerable
        for span in question.gold_spans:
            on = [i + 1 for i, text in enumerate(pages) if normalize(span.text) in text]
            assert on and set(on) <= set(question.gold_pages), (question.id, on)


@pytest.mark.parametrize(("name", "script", "docs"), WRITTEN_SETS)
def test_generator_reproduces_the_dataset(
    name: str, script: str, docs: set[str], tmp_path: Path
) -> None:
    dataset = ROOT / "datasets" / name
    _generator(script).main(tmp_path)
    assert (tmp_path / "questions.jsonl").read_text() == (dataset / "questions.jsonl").read_text()
    for doc_name in sorted(docs):
        with (
            pymupdf.open(tmp_path / "docs" / doc_name) as fresh,
            pymupdf.open(dataset / "docs" / doc_name) as shipped,
        ):
            assert [p.get_text() for p in fresh] == [p.get_text() for p in shipped]
