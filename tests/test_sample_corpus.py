"""The bundled sample corpus is present, readable, and consistent with its question set."""

from __future__ import annotations

import json
import re
import unicodedata
from importlib import resources
from pathlib import Path

import pymupdf
import pytest

CORPUS = Path(str(resources.files("citeguard") / "sample_corpus"))
EXPECTED_PAGES = {"lease.pdf": 5, "tenant_guide.pdf": 5}


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(str.maketrans("\u2018\u2019\u201c\u201d\u2013\u2014", "''\"\"--"))
    return re.sub(r"\s+", "", text)


def load_questions() -> list[dict]:
    lines = (CORPUS / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize(("name", "pages"), EXPECTED_PAGES.items())
def test_pdfs_open_with_a_text_layer_on_every_page(name: str, pages: int) -> None:
    with pymupdf.open(CORPUS / "docs" / name) as doc:
        assert doc.page_count == pages
        for index in range(doc.page_count):
            assert len(doc[index].get_text().split()) >= 20, f"{name} page {index + 1}"


def test_printed_page_numbers_and_headers() -> None:
    with pymupdf.open(CORPUS / "docs" / "lease.pdf") as lease:
        for index in range(lease.page_count):
            lines = lease[index].get_text().splitlines()
            assert f"Page {index + 1} of 5" in lines
            assert "Residential Lease Agreement \u2014 14 Elm Street" in lines
    with pymupdf.open(CORPUS / "docs" / "tenant_guide.pdf") as guide:
        printed = ["i", "ii", "1", "2", "3"]
        for index in range(guide.page_count):
            assert guide[index].get_text().splitlines()[-1] == printed[index]
        assert [guide[i].get_label() for i in range(guide.page_count)] == printed


def test_question_set_shape() -> None:
    questions = load_questions()
    answerable = [q for q in questions if q["answerable"]]
    assert len(answerable) >= 8 and len(questions) - len(answerable) >= 4
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert set(q) == {
            "id",
            "question",
            "doc",
            "answerable",
            "gold_spans",
            "gold_pages",
            "reference_answer",
        }
        assert q["doc"] in EXPECTED_PAGES
        assert bool(q["gold_spans"]) == bool(q["gold_pages"]) == bool(q["reference_answer"])
        assert bool(q["gold_spans"]) == q["answerable"]


@pytest.mark.parametrize("question", load_questions(), ids=lambda q: q["id"])
def test_gold_spans_are_on_their_gold_pages(question: dict) -> None:
    with pymupdf.open(CORPUS / "docs" / question["doc"]) as doc:
        pages = [normalize(doc[i].get_text()) for i in range(doc.page_count)]
    for span in question["gold_spans"]:
        on = [i + 1 for i, text in enumerate(pages) if normalize(span["text"]) in text]
        assert on and set(on) <= set(question["gold_pages"]), (span["text"], on)


def test_generator_reproduces_the_bundled_corpus(tmp_path: Path) -> None:
    import importlib.util

    script = Path(__file__).resolve().parents[1] / "scripts" / "make_sample_corpus.py"
    spec = importlib.util.spec_from_file_location("make_sample_corpus", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    assert (tmp_path / "questions.jsonl").read_text() == (CORPUS / "questions.jsonl").read_text()
    for name in EXPECTED_PAGES:
        # Text, not bytes: bytes may differ between PyMuPDF versions.
        with (
            pymupdf.open(tmp_path / "docs" / name) as fresh,
            pymupdf.open(CORPUS / "docs" / name) as bundled,
        ):
            assert [p.get_text() for p in fresh] == [p.get_text() for p in bundled]
