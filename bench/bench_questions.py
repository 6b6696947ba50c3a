"""What a scorer bench reads: a dataset's questions, or the held-out sample ``citeguard
calibrate`` fits on, the index of the dataset's documents, and the scorer to measure."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeguard.evaluation.dataset import Question
    from citeguard.index.search import HybridSearcher
    from citeguard.learned.shipped import PairModel


def add_question_arguments(parser: argparse.ArgumentParser) -> None:
    """``DATASET``, ``--index DIR``, ``--validation-split`` and ``--model DIR``."""
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--index", type=Path, required=True, help="index of the dataset's docs")
    parser.add_argument(
        "--validation-split",
        action="store_true",
        help="only the training split's held-out questions (the sample calibrate uses)",
    )
    parser.add_argument(
        "--model", type=Path, help="a trained scorer's folder (default: the shipped one)"
    )
    parser.add_argument(
        "--party-name",
        choices=("as-asked", "added"),
        help="only the questions of documents whose parties the dataset names (its "
        "'Parties' questions' gold, those questions left out), as asked or with the "
        "shortest party name added ('For Acme, is there a cap on liability?')",
    )


def question_bench_parser(doc: str, out: Path) -> argparse.ArgumentParser:
    """The parser of a bench over a dataset's questions: the first paragraph of its
    docstring ``doc`` as description, :func:`add_question_arguments` and ``--out``
    (default ``out``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    add_question_arguments(parser)
    parser.add_argument("--out", type=Path, default=out)
    return parser


def bench_questions(args: argparse.Namespace) -> list[Question]:
    """With ``--validation-split`` the seeded sample of the training split's held-out
    documents that ``citeguard calibrate`` uses; else every question of the dataset."""
    from citeguard.evaluation.calibrate_scorer import validation_questions
    from citeguard.evaluation.dataset import load_questions
    from citeguard.evaluation.question_thresholds import CalibrationSettings
    from citeguard.evaluation.train_pairs import PairSettings, named_question

    if args.validation_split:
        questions = validation_questions(args.dataset, PairSettings(), CalibrationSettings())
    else:
        questions = load_questions(args.dataset / "questions.jsonl", unique_ids=False)
    if getattr(args, "party_name", None) is None:
        return questions
    names = party_names(args.dataset)
    named = [
        (q, names[q.doc])
        for q in questions
        if q.doc is not None and q.doc in names and q.extra.get("category") != PARTIES
    ]
    if args.party_name == "as-asked":
        return [q for q, _ in named]
    return [
        dataclasses.replace(q, question=named_question(q.question, name, PARTY_NAME_WORDING))
        for q, name in named
    ]


PARTY_NAME_WORDING = "For {name}, {question_lower}"
"""How ``--party-name added`` asks a question; not among training's ``NAMED_TEMPLATES``."""

PARTIES = "Parties"
"""The CUAD category whose gold spans name a contract's parties."""


def party_names(dataset: Path) -> dict[str, str]:
    """Each document's shortest party name of at least 3 characters that opens on a capital
    ("Vertex" of "Vertex Energy Operating, LLC"; of two as short, the first alphabetically),
    from the gold spans of its :data:`PARTIES` questions (read as written: a training set
    may repeat an id)."""
    names: dict[str, str] = {}
    for record in dataset_records(dataset):
        if record.get("category") != PARTIES:
            continue
        spans = {s["text"].strip() for s in record.get("gold_spans", [])}
        # Shortest first, ties alphabetically: a set's order changes from run to run.
        candidates = sorted(
            (t for t in spans if len(t) >= 3 and t[0].isupper()), key=lambda t: (len(t), t)
        )
        if candidates:
            names[record["doc"]] = candidates[0]
    return names


def load_scorer(folder: Path | None) -> PairModel:
    """The scorer saved in ``folder``, or the shipped one for None; when it cannot load, the
    bench stops with status 1 and says why."""
    from citeguard.errors import ModelUnavailableError
    from citeguard.learned.shipped import load_pair_model, shipped_model

    try:
        scorer = load_pair_model(folder) if folder else shipped_model("scorer")
    except ModelUnavailableError as exc:
        raise SystemExit(f"error: {exc}") from exc
    if scorer is None:
        raise SystemExit("no trained scorer could be loaded")
    return scorer


def chosen_scorer(args: argparse.Namespace) -> PairModel:
    """The ``--model`` folder's scorer, else the shipped one (:func:`load_scorer`)."""
    return load_scorer(args.model)


def scorer_and_index(args: argparse.Namespace) -> tuple[PairModel, HybridSearcher, set[str]]:
    """The bench's scorer (:func:`chosen_scorer`), the ``--index`` it searches, and the
    documents that index holds (to scope each question to its own)."""
    from citeguard.index.search import load_index

    searcher = load_index(args.index)
    return chosen_scorer(args), searcher, set(searcher.documents)


def source_texts(searcher: HybridSearcher, question: Question, indexed: set[str]) -> list[str]:
    """The texts of the sources the graph's defaults give ``question`` in its own document
    (``calibrate_scorer.question_sources``), the documents ``indexed`` naming its scope."""
    from citeguard.evaluation.calibrate_scorer import question_sources

    return [
        h.chunk.text for h in question_sources(searcher, question.question, question.scope(indexed))
    ]


def local_model_first_lines(
    instructions: str,
    questions: list[str],
    worked_examples: Sequence[tuple[str, str]] = (),
    max_tokens: int = 48,
) -> dict[str, str]:
    """The first line of the local model's reply to each distinct question (greedy, at most
    ``max_tokens``), told ``instructions`` and shown ``worked_examples`` (question, reply)
    as earlier turns; it sees no document."""
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

    from citeguard.llm.providers import local_chat_model

    model = local_chat_model(max_tokens=max_tokens)
    shown: list[BaseMessage] = [SystemMessage(instructions)]
    for asked, replied in worked_examples:
        shown += [HumanMessage(asked), AIMessage(replied)]
    written: dict[str, str] = {}
    for question in dict.fromkeys(questions):
        reply = model.invoke([*shown, HumanMessage(question)])
        written[question] = str(reply.content).strip().split("\n")[0]
    return written


def dataset_records(dataset: Path) -> list[dict[str, Any]]:
    """The question records of ``dataset``'s questions.jsonl, as written (every field)."""
    text = (dataset / "questions.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write_dataset_subset(dataset: Path, folder: Path, records: Sequence[dict[str, Any]]) -> Path:
    """``folder`` as a dataset of ``records`` (questions of ``dataset``): docs/ links to the
    original files of the documents they ask about, questions.jsonl holds them."""
    (folder / "docs").mkdir(parents=True, exist_ok=True)
    for doc in sorted({record["doc"] for record in records}):
        link = folder / "docs" / doc
        if not link.exists():
            link.symlink_to((dataset / "docs" / doc).resolve())
    (folder / "questions.jsonl").write_text(
        "".join(json.dumps(record) + "\n" for record in records), encoding="utf-8"
    )
    return folder


def run_dataset_pairs(
    argv: list[str], description: str, out: Path
) -> tuple[list[tuple[Path, Path]], Path]:
    """The (RUN, DATASET) folder pairs and the ``--out`` file of a bench that reads finished
    ``citeguard eval`` runs: ``RUN DATASET [RUN DATASET ...] [--out FILE]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("pairs", nargs="+", help="RUN DATASET, repeated")
    parser.add_argument("--out", type=Path, default=out)
    args = parser.parse_args(argv)
    if len(args.pairs) % 2:
        parser.error("give each RUN folder with its DATASET folder")
    runs, datasets = args.pairs[::2], args.pairs[1::2]
    pairs = [(Path(run), Path(dataset)) for run, dataset in zip(runs, datasets, strict=True)]
    return pairs, args.out


def trail_run(run: Path, dataset: Path) -> tuple[dict[str, Question], list[dict[str, Any]]]:
    """A finished ``citeguard eval`` run's results lines and its dataset's questions by id,
    for a bench that reads the runs' draft trails; exits when the run kept none (a run of an
    earlier version)."""
    from citeguard.evaluation.dataset import load_questions

    questions = {q.id: q for q in load_questions(dataset / "questions.jsonl", unique_ids=False)}
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    if records and "drafts" not in records[0]:
        raise SystemExit(f"{run}: no draft trails; run it again with this version's citeguard eval")
    return questions, records


def quote_label(record: dict[str, Any], question: Question, draft: dict[str, Any]) -> str:
    """What a draft of ``record`` cites: ``unanswerable`` (the document does not answer the
    question), ``right`` (a cited source holds a gold span) or ``wrong_passage``."""
    from citeguard.evaluation.metrics import span_hit, span_texts

    if not question.answerable:
        return "unanswerable"
    evidence = record.get("evidence") or []
    cited = [str(evidence[n - 1]["text"]) for n in draft["cited"] if 0 < n <= len(evidence)]
    return "right" if span_hit(span_texts(question.gold_spans), cited) else "wrong_passage"


def failed_only_relevance(draft: dict[str, Any]) -> bool:
    """Whether every sentence of the draft passed and only the relevance check failed it."""
    from citeguard.graph.draft_trail import draft_label

    return draft_label(draft) == "relevance" and not draft["reasons"]


def write_runs(argv: list[str], description: str, out: Path, script: str, per_run: Any) -> int:
    """The ``main`` of a bench that reads finished runs: ``per_run(RUN, DATASET)`` for each
    pair of ``RUN DATASET [RUN DATASET ...] [--out FILE]``, written to the ``--out`` file."""
    from bench_output import write_result

    pairs, out = run_dataset_pairs(argv, description, out)
    write_result(
        out,
        {
            "command": f"python bench/{script} " + " ".join(argv),
            "runs": [per_run(run, dataset) for run, dataset in pairs],
        },
    )
    return 0
