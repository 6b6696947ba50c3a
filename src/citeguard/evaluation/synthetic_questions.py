"""Questions the local model writes for passages of any documents: training data without labels.

The only labelled set here is CUAD (contracts), and a scorer trained on contracts alone does
not transfer to other kinds of documents. This module makes a labelled dataset in the
project's format (``docs/`` + ``questions.jsonl``, :mod:`citeguard.evaluation.dataset`) out
of any documents, in the style of InPars and GPL (synthetic-query training):

1. each document is parsed as ingest parses it (PDF, text, HTML, Word) and cut into the
   passages the scorer reads (:func:`citeguard.text.passages.passages`, the same cut as
   :mod:`citeguard.evaluation.train_pairs`, so a question's passage is exactly one of the
   training passages);
2. a seeded sample of each document's passages is shown, one at a time, to a question
   writer (the local model by default) that writes one question the passage answers;
3. a question is kept only if it passes a **round-trip check**: among all passages of its
   document, its own passage ranks in the top ``keep_rank`` by an independent similarity
   (the bundled embedder's cosine), and it does not copy a long run of the passage's words.
   Questions that are vague, about something else, or answerable anywhere are dropped;
4. each kept question is written with its passage as the gold span (character offsets into
   ``docs/<name>.txt``, the document's parsed text) and the passage's page.

``citeguard train DATASET`` then trains on it like on any labelled set: positives are the
question's passage, hard negatives the document's other passages that share the most words
with it. Every question is answerable; refusal is learned from the hard negatives of the
same document (and from CUAD's unanswerable questions when the two are trained in steps).
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from citeguard.documents import ParsedDocument
from citeguard.errors import CiteGuardError, ParsingError
from citeguard.evaluation.dataset import QUESTIONS_FILE
from citeguard.evaluation.train_pairs import PairSettings
from citeguard.ingest.parsing import discover_documents, parse_document
from citeguard.text.passages import Passage, passages

SETTINGS_FILE = "synthesis.json"


class SynthesisError(CiteGuardError):
    """Nothing could be synthesized, or the output folder cannot be written."""


@dataclass(frozen=True)
class SynthesisSettings:
    """How questions are drawn and filtered; written to ``synthesis.json`` with the dataset."""

    questions_per_document: int = 20
    """Passages shown to the writer per document (fewer when the document has fewer)."""
    passage_words: int = PairSettings.passage_words
    """Words per passage: the scorer's training cut, so a question's passage is one of the
    passages training cuts (change both together)."""
    min_passage_words: int = 25
    """Shorter passages (headings, signature lines) are not asked about."""
    keep_rank: int = 3
    """Round trip: the passage must rank this high among its document's passages."""
    max_copied_words: int = 8
    """A question that repeats this many consecutive words of its passage is dropped."""
    seed: int = 13
    everyday_examples: bool = False
    """Show the writer three worked examples of a reader's own words
    (:data:`EVERYDAY_EXAMPLES`) instead of one: shown one, the 1.5B model mostly asks in the
    document's register ("What is the purpose of ...?")."""


class QuestionWriter(Protocol):
    """Writes one question that a passage answers (empty text: no question)."""

    def __call__(self, passage: str, document_name: str) -> str: ...


Similarity = Callable[[Sequence[str]], Callable[[str], Sequence[float]]]
"""A document's passages -> (question -> one similarity per passage, higher is closer).

Split in two because every question of a document is compared with the same passages:
whatever the passages cost (the embedder reading them) is paid once per document."""


@dataclass
class SynthesisReport:
    """What a synthesis did, document by document; written with the dataset."""

    settings: SynthesisSettings
    documents: int = 0
    asked: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    """Why questions were dropped: "no question", "copies the passage", "round trip"."""
    skipped_files: list[tuple[str, str]] = field(default_factory=list)
    """(file, reason) for every file that was not read."""

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": asdict(self.settings),
            "documents": self.documents,
            "asked": self.asked,
            "kept": self.kept,
            "dropped": dict(sorted(self.dropped.items())),
            "skipped_files": [{"file": f, "reason": r} for f, r in self.skipped_files],
        }


QUESTION_GRAMMAR = r"""root ::= [A-Z] [^?\n\[\]<>]+ "?"
"""
"""One line that starts with a capital and ends at its first question mark."""

QUESTION_MAX_TOKENS = 48


EXAMPLE_PASSAGE = (
    "Employees who have completed one year of service are entitled to fifteen days of paid "
    "vacation per calendar year. Unused vacation days may be carried over to the following "
    "year, up to a maximum of five days."
)
EXAMPLE_QUESTION = "How many unused vacation days can I keep for next year?"
"""A worked example, shown as an earlier turn: the 1.5B model follows an example better than
an instruction (asked without it, most of its questions were about "the passage")."""


PLAIN_SYSTEM = (
    "You write the questions people ask about documents they have to rely on. Write in plain "
    "everyday words, as a reader would ask, not in the document's own phrasing."
)
PLAIN_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ("employee-handbook.pdf", EXAMPLE_PASSAGE, EXAMPLE_QUESTION),
)
"""The default prompt: one worked example under :data:`PLAIN_SYSTEM`."""

EVERYDAY_SYSTEM = (
    "You write the short questions ordinary people type when they want to know something a "
    "document decides for them. Use their words: I, my, me, can I, do they, what happens "
    "if. Never use the document's terms or headings."
)
EVERYDAY_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    (
        "employee-handbook.pdf",
        EXAMPLE_PASSAGE,
        "Can I save my leftover vacation days for next year?",
    ),
    (
        "phone-plan-terms.pdf",
        "If you cancel your service before the end of the minimum term, an early termination "
        "fee of $150 applies, reduced by $10 for each full month of service you have completed.",
        "What do I pay if I quit my plan early?",
    ),
    (
        "gym-membership.pdf",
        "Members may bring one guest per visit. Guests must be 18 or older, sign a waiver at the "
        "front desk and pay the day-pass rate of $15.",
        "Can my friend come to the gym with me?",
    ),
)
"""(document, passage, question) worked examples in a reader's words, none of them about a
kind of document the evaluation sets hold."""


def _ask(passage: str, document_name: str) -> str:
    return (
        f"PASSAGE (from {Path(document_name).stem}):\n{passage}\n\n"
        "Write one question that a reader of this document might ask and that this passage "
        "answers. The reader has not seen the passage: ask about its subject, never about "
        '"the passage". Write only the question.'
    )


def question_messages(
    passage: str, document_name: str, everyday: bool = False
) -> list[dict[str, str]]:
    """The chat messages that ask the local model for one question about ``passage``: the
    worked examples as earlier turns (:data:`PLAIN_EXAMPLES`, or with ``everyday``
    :data:`EVERYDAY_EXAMPLES`) under their system text."""
    system, examples = (
        (EVERYDAY_SYSTEM, EVERYDAY_EXAMPLES) if everyday else (PLAIN_SYSTEM, PLAIN_EXAMPLES)
    )
    messages = [{"role": "system", "content": system}]
    for example_document, example_passage, example_question in examples:
        messages.append({"role": "user", "content": _ask(example_passage, example_document)})
        messages.append({"role": "assistant", "content": example_question})
    messages.append({"role": "user", "content": _ask(passage, document_name)})
    return messages


class LocalQuestionWriter:
    """The bundled local model as a :class:`QuestionWriter`, greedy under a one-line grammar."""

    def __init__(self, model_path: str | Path | None = None, everyday: bool = False) -> None:
        from citeguard.llm.local_llama import load_local_llama
        from citeguard.llm.model_work import WorkCounter

        self.everyday = everyday
        self.model = load_local_llama(model_path)
        self.work = WorkCounter()

    def __call__(self, passage: str, document_name: str) -> str:
        from citeguard.llm.decoding import DecodingRequest
        from citeguard.llm.local_llama import without_control_tokens

        request = DecodingRequest(
            messages=without_control_tokens(
                question_messages(passage, document_name, self.everyday)
            ),
            grammar_text=QUESTION_GRAMMAR,
            max_tokens=QUESTION_MAX_TOKENS,
            stop=None,
        )
        text, finish = self.model.generate(request, self.work)
        if finish.finish_reason == "length":
            return ""
        return " ".join(text.split())


def embedder_similarity() -> Similarity:
    """Cosine of the bundled embedder's vectors: the round trip's independent judge. A
    document's passages are embedded once, each question as it comes."""
    from citeguard.index.embedder import get_embedder

    embedder = get_embedder()

    def for_document(texts: Sequence[str]) -> Callable[[str], Sequence[float]]:
        vectors = np.asarray(embedder.embed_documents(list(texts)))

        def similarity(question: str) -> Sequence[float]:
            return [float(v) for v in vectors @ np.asarray(embedder.embed_query(question))]

        return similarity

    return for_document


_WORD = re.compile(r"\w+")

MENTIONS_THE_PASSAGE = re.compile(
    r"\b(?:th(?:e|is) (?:passage|text|excerpt|section above))\b", re.IGNORECASE
)
"""A question about "the passage" asks what no reader of the whole document would."""


def copies_passage(question: str, passage: str, max_copied_words: int) -> bool:
    """Whether ``question`` repeats ``max_copied_words`` consecutive words of ``passage``."""
    words = [w.lower() for w in _WORD.findall(question)]
    if len(words) < max_copied_words:
        return False
    text = " ".join(w.lower() for w in _WORD.findall(passage))
    return any(
        " ".join(words[i : i + max_copied_words]) in text
        for i in range(len(words) - max_copied_words + 1)
    )


def passage_rank(question: str, target: int, similarity: Callable[[str], Sequence[float]]) -> int:
    """1-based rank of passage ``target`` among a document's passages, which ``similarity``
    (one document's, from a :data:`Similarity`) scores against ``question``."""
    scores = list(similarity(question))
    return 1 + sum(1 for i, s in enumerate(scores) if i != target and s > scores[target])


def passages_to_ask(
    document_passages: Sequence[Passage], settings: SynthesisSettings, rng: random.Random
) -> list[int]:
    """Indexes of the passages asked about: a seeded sample of the long enough ones, in order."""
    eligible = [
        i
        for i, p in enumerate(document_passages)
        if len(p.text.split()) >= settings.min_passage_words
    ]
    chosen = rng.sample(eligible, min(settings.questions_per_document, len(eligible)))
    return sorted(chosen)


def dataset_name(document: ParsedDocument, taken: set[str]) -> str:
    """``docs/`` file name of a document: its stem + ".txt", numbered if already taken."""
    stem = Path(document.name).stem or "document"
    name, n = f"{stem}.txt", 2
    while name in taken:
        name, n = f"{stem}-{n}.txt", n + 1
    taken.add(name)
    return name


def synthesize_document(
    document: ParsedDocument,
    name: str,
    writer: QuestionWriter,
    similarity: Similarity,
    settings: SynthesisSettings,
    report: SynthesisReport,
    rng: random.Random,
) -> list[dict[str, Any]]:
    """The kept questions of one document, as ``questions.jsonl`` lines."""
    cut = passages(document.text, settings.passage_words)
    similarity_to_passages = similarity([p.text for p in cut])
    lines = []
    for index in passages_to_ask(cut, settings, rng):
        passage = cut[index]
        report.asked += 1
        question = writer(passage.text, document.name).strip()
        if not question.endswith("?") or len(question.split()) < 3:
            report.drop("no question")
            continue
        if MENTIONS_THE_PASSAGE.search(question):
            report.drop("mentions the passage")
            continue
        if copies_passage(question, passage.text, settings.max_copied_words):
            report.drop("copies the passage")
            continue
        rank = passage_rank(question, index, similarity_to_passages)
        if rank > settings.keep_rank:
            report.drop("round trip")
            continue
        report.kept += 1
        lines.append(
            {
                "id": f"{Path(name).stem}-p{index}",
                "doc": name,
                "question": question,
                "answerable": True,
                "gold_spans": [{"text": passage.text, "start": passage.start, "end": passage.end}],
                "gold_pages": [document.page_at(passage.start).pdf_page],
                "reference_answer": "",
                "source": "synthetic",
                "passage_rank": rank,
            }
        )
    return lines


def synthesize(
    paths: Sequence[str | Path],
    out: str | Path,
    writer: QuestionWriter,
    similarity: Similarity,
    settings: SynthesisSettings | None = None,
    on_document: Callable[[str, int, int, SynthesisReport], None] | None = None,
) -> SynthesisReport:
    """Write a synthetic dataset for the documents under ``paths`` into the folder ``out``.

    Files that cannot be read are named in the report and skipped; the rest are used.
    ``out`` must not exist or be empty; the dataset is written into ``out.partial`` and
    renamed when complete, so an interrupted run leaves no half-written dataset.
    ``on_document(name, done, total, report)`` reports progress after each document.

    Raises:
        SynthesisError: ``out`` holds files, or no question was kept.
    """
    settings = settings or SynthesisSettings()
    target = Path(out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise SynthesisError(f"{target}: exists and is not an empty folder")
    files, skipped = discover_documents(paths)
    report = SynthesisReport(settings, skipped_files=[(str(p), r) for p, r in skipped])
    partial = target.with_name(target.name + ".partial")
    if partial.exists():
        shutil.rmtree(partial)
    (partial / "docs").mkdir(parents=True)
    rng = random.Random(settings.seed)
    taken: set[str] = set()
    lines: list[dict[str, Any]] = []
    for done, path in enumerate(files, start=1):
        try:
            document = parse_document(path)
        except ParsingError as exc:
            report.skipped_files.append((str(path), exc.reason))
            continue
        name = dataset_name(document, taken)
        (partial / "docs" / name).write_text(document.text, encoding="utf-8")
        report.documents += 1
        lines.extend(synthesize_document(document, name, writer, similarity, settings, report, rng))
        if on_document is not None:
            on_document(document.name, done, len(files), report)
    if not lines:
        shutil.rmtree(partial)
        raise SynthesisError(
            f"no question was kept from {report.documents} document(s) "
            f"({report.asked} asked; dropped: {report.dropped or 'none'})"
        )
    (partial / QUESTIONS_FILE).write_text(_jsonl(lines), encoding="utf-8")
    (partial / SETTINGS_FILE).write_text(json.dumps(report.to_json(), indent=2) + "\n")
    if target.exists():
        target.rmdir()
    partial.rename(target)
    return report


def _jsonl(lines: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
