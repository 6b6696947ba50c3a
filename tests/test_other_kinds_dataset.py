"""The "other kinds" evaluation set (a privacy policy, house rules) is consistent and
reproducible: each gold span on its gold page, the generator writes the same texts."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pymupdf

from citeguard.evaluation.dataset import load_questions

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "datasets" / "other-kinds"


def _generator() -> object:
    script = ROOT / "scripts" / "make_other_kinds.py"
    spec = importlib.util.spec_from_file_location("make_other_kinds", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_questions_load_and_each_gold_span_is_on_its_gold_page() -> None:
    questions = load_questions(DATASET / "questions.jsonl")
    assert {q.doc for q in questions} == {"privacy_policy.pdf", "house_rules.pdf"}
    assert sum(q.answerable for q in questions) >= 15
    assert sum(not q.answerable for q in questions) >= 5
    module = _generator()
    for question in questions:
        with pymupdf.open(DATASET / "docs" / str(question.doc)) as doc:
            pages = [module.layout.normalize(doc[i].get_text()) for i in range(doc.page_count)]  # type: ignore[attr-defined]
        assert bool(question.gold_spans) == question.answerable
        for span in question.gold_spans:
            on = [
                i + 1 for i, text in enumerate(pages) if module.layout.normalize(span.text) in text
            ]  # type: ignore[attr-defined]
            assert on and set(on) <= set(question.gold_pages), (question.id, on)


def test_generator_reproduces_the_dataset(tmp_path: Path) -> None:
    _generator().main(tmp_path)  # type: ignore[attr-defined]
    assert (tmp_path / "questions.jsonl").read_text() == (DATASET / "questions.jsonl").read_text()
    for name in ("privacy_policy.pdf", "house_rules.pdf"):
        with (
            pymupdf.open(tmp_path / "docs" / name) as fresh,
            pymupdf.open(DATASET / "docs" / name) as shipped,
        ):
            assert [p.get_text() for p in fresh] == [p.get_text() for p in shipped]
