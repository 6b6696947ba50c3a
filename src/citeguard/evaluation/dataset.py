"""Labelled question sets: a folder with ``docs/`` and ``questions.jsonl``.

Each line of questions.jsonl is one object: id, question, doc (optional scope), answerable
(bool), gold_spans ([{text, start?, end?}], offsets into the document's text file),
gold_pages (optional, 1-based PDF pages), reference_answer (optional).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeguard.errors import CiteGuardError

QUESTIONS_FILE = "questions.jsonl"
"""The questions of a dataset folder, one JSON object per line."""


class DatasetError(CiteGuardError):
    """A dataset folder or one of its lines is malformed; the message names the line."""


@dataclass(frozen=True)
class GoldSpan:
    text: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answerable: bool
    doc: str | None = None
    gold_spans: tuple[GoldSpan, ...] = ()
    gold_pages: tuple[int, ...] = ()
    reference_answer: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def scope(self, indexed_docs: set[str] | None = None) -> list[str] | None:
        """The document scope as indexed names: the .txt name maps to an indexed .pdf twin."""
        if not self.doc:
            return None
        if indexed_docs is None or self.doc in indexed_docs:
            return [self.doc]
        stem = Path(self.doc).stem
        twins = [d for d in indexed_docs if Path(d).stem == stem]
        return twins or [self.doc]


def _parse_line(raw: dict[str, Any], where: str) -> Question:
    def need(key: str, kind: type | tuple[type, ...]) -> Any:
        if key not in raw:
            raise DatasetError(f"{where}: missing field {key!r}")
        if not isinstance(raw[key], kind):
            raise DatasetError(f"{where}: field {key!r} has the wrong type")
        return raw[key]

    spans = []
    for i, span in enumerate(raw.get("gold_spans") or []):
        if not isinstance(span, dict) or not isinstance(span.get("text"), str):
            raise DatasetError(f"{where}: gold_spans[{i}] needs a text")
        spans.append(GoldSpan(span["text"], span.get("start"), span.get("end")))
    pages = raw.get("gold_pages") or []
    if not all(isinstance(p, int) and p >= 1 for p in pages):
        raise DatasetError(f"{where}: gold_pages must be 1-based integers")
    known = {"id", "question", "doc", "answerable", "gold_spans", "gold_pages", "reference_answer"}
    reference = raw.get("reference_answer") or ""
    if isinstance(reference, list):
        reference = "; ".join(str(r) for r in reference)
    return Question(
        id=str(need("id", (str, int))),
        question=need("question", str),
        answerable=bool(need("answerable", bool)),
        doc=raw.get("doc") or None,
        gold_spans=tuple(spans),
        gold_pages=tuple(pages),
        reference_answer=str(reference),
        extra={k: v for k, v in raw.items() if k not in known},
    )


def load_questions(path: str | Path, unique_ids: bool = True) -> list[Question]:
    """Read questions.jsonl (or a dataset folder holding it); errors name file and line.

    ``unique_ids``: a repeated id is an error (evaluation results are keyed by id);
    training, which keys nothing by id, reads datasets whose ids repeat (cuad-train
    shortens long ids) with it off.
    """
    path = Path(path)
    if path.is_dir():
        path = path / QUESTIONS_FILE
    if not path.exists():
        raise DatasetError(f"{path}: no questions.jsonl")
    questions: list[Question] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{where}: not valid JSON ({exc.msg})") from exc
        if not isinstance(raw, dict):
            raise DatasetError(f"{where}: expected a JSON object")
        question = _parse_line(raw, where)
        if unique_ids and question.id in seen:
            raise DatasetError(f"{where}: duplicate id {question.id!r}")
        seen.add(question.id)
        questions.append(question)
    return questions


def dataset_docs_dir(dataset: str | Path) -> Path:
    docs = Path(dataset) / "docs"
    if not docs.is_dir():
        raise DatasetError(f"{dataset}: no docs/ folder")
    return docs
