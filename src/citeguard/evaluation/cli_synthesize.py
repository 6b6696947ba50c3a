"""``citeguard synthesize PATH... --out DATASET``: questions the local model writes for your
documents, kept when they pass a round-trip check, written as a dataset that ``citeguard
train`` reads (:mod:`citeguard.evaluation.synthetic_questions`).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from citeguard.evaluation.synthetic_questions import SynthesisSettings

OPTIONS = (
    ("questions_per_document", int, "passages of each document the model writes a question for"),
    ("passage_words", int, "words per passage (the scorer's training cut)"),
    ("min_passage_words", int, "shorter passages are not asked about"),
    ("keep_rank", int, "keep a question only if its passage ranks this high in its document"),
    ("max_copied_words", int, "drop a question that repeats this many words of its passage"),
    ("seed", int, "seed for the passages drawn"),
)
"""Options: field of SynthesisSettings, type, help."""


def add_synthesize_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``synthesize`` sub-command to the main CLI's subparsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "synthesize",
        help="write training questions for your own documents with the local model",
        description="Parse the documents under PATH (files or folders; PDF, text, HTML, "
        "Word), show a seeded sample of each one's passages to the local model, and keep "
        "each question it writes whose passage ranks near the top of its document by the "
        "embedder (a round trip). Writes DATASET/docs/*.txt, DATASET/questions.jsonl (every "
        "question answerable, its passage the gold span) and DATASET/synthesis.json. Train "
        "on it with `citeguard train DATASET --init-from MODEL`. About 2 s per question on "
        "2 cores.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="documents or folders of them")
    p.add_argument(
        "--out", required=True, metavar="DATASET", help="a new (or empty) folder to write"
    )
    p.add_argument(
        "--everyday-examples",
        action="store_true",
        help="show the model three worked examples of questions in a reader's own words "
        '("What do I pay if I quit my plan early?") instead of one; shown one, it mostly '
        "asks in the document's own terms",
    )
    defaults = SynthesisSettings()
    for field, kind, text in OPTIONS:
        p.add_argument(
            "--" + field.replace("_", "-"),
            type=kind,
            default=None,
            metavar="N",
            help=f"{text} (default: {getattr(defaults, field)})",
        )
    return p


def run_synthesize(args: argparse.Namespace) -> int:
    """Synthesize, naming every skipped file; exit 0, 1 (nothing kept) or 3 (files skipped)."""
    from citeguard.errors import ModelUnavailableError
    from citeguard.evaluation.synthetic_questions import (
        LocalQuestionWriter,
        SynthesisError,
        SynthesisReport,
        embedder_similarity,
        synthesize,
    )

    chosen = {f: getattr(args, f) for f, *_ in OPTIONS if getattr(args, f) is not None}
    bad = [f"--{f.replace('_', '-')}" for f, value in chosen.items() if f != "seed" and value < 1]
    if bad:
        print(f"error: {', '.join(bad)} must be at least 1", file=sys.stderr)
        return 2
    settings = dataclasses.replace(
        SynthesisSettings(), everyday_examples=args.everyday_examples, **chosen
    )
    try:
        writer = LocalQuestionWriter(everyday=settings.everyday_examples)
        similarity = embedder_similarity()
    except ModelUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

    def on_document(name: str, done: int, total: int, so_far: SynthesisReport) -> None:
        print(
            f"synthesize: {done}/{total} documents ({name}); {so_far.kept} of "
            f"{so_far.asked} questions kept so far",
            file=sys.stderr,
            flush=True,
        )

    try:
        report = synthesize(args.paths, args.out, writer, similarity, settings, on_document)
    except SynthesisError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for file, reason in report.skipped_files:
        print(f"skipped {file}: {reason}", file=sys.stderr)
    print(
        f"{report.kept} of {report.asked} questions kept from {report.documents} document(s) "
        f"(dropped: {report.dropped or 'none'}); written to {args.out}"
    )
    return 3 if report.skipped_files else 0
