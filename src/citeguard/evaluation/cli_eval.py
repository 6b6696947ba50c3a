"""``citeguard eval DATASET --out DIR``: the evaluation command.

Wired into the main CLI (:mod:`citeguard.serve.cli`) with :func:`add_eval_parser` and
:func:`run_eval`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from citeguard.evaluation.ablations import ABLATIONS, ALIASES, chunk_settings, run_ablation
from citeguard.evaluation.citation_judge import JUDGE_THRESHOLD
from citeguard.evaluation.harness import DEFAULT_CACHE_DIR, EvalConfig, run_evaluation
from citeguard.evaluation.report import percent
from citeguard.graph.context import (
    Context,
    ContextOption,
    add_context_options,
    context_overrides,
)

EXIT_OK = 0
EXIT_ERROR = 1

EVAL_OPTIONS = (
    ContextOption("model"),
    ContextOption("validation_level"),
    ContextOption("generation_strategy", flag="--strategy"),
    ContextOption("retrieval_mode", flag="--mode"),
    ContextOption("alpha"),
    ContextOption("top_k"),
    ContextOption("context_k"),
    ContextOption("max_regenerations"),
    ContextOption("rerank"),
    ContextOption("source_words", metavar="N"),
    ContextOption("judge_evidence_words", metavar="N"),
    ContextOption("relevance_check"),
    ContextOption("challenge_refusals"),
    ContextOption("opening_source"),
    ContextOption("scorer_rerank"),
    ContextOption("scorer_rerank_pool", metavar="N"),
    ContextOption("scorer_source_rescue"),
    ContextOption("scorer_sufficiency"),
    ContextOption("scorer_answer"),
    ContextOption("scorer_passages_overlap"),
    ContextOption("passage_first"),
    ContextOption("passage_relevance_reads_quote"),
    ContextOption("passage_relevance_with_scorer"),
    ContextOption("support_judge"),
    ContextOption("embedding_model"),
)
"""The settings ``citeguard eval`` offers, as options generated from their Context fields."""

HEADLINE = (
    "hit@k",
    "answer_accuracy",
    "answer_accuracy_quoted",
    "citation_validity",
    "evidence_support_rate",
    "hallucination_rate",
    "true_refusal_rate",
    "false_refusal_rate",
)


def add_eval_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``eval`` sub-command to the main CLI's subparsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="measure answers on a labelled dataset (the paper's metrics)",
        description="Run every question of a labelled dataset (docs/ + questions.jsonl) through "
        "the answer graph and write DIR/results.jsonl (one line per question, appended as it "
        "finishes; a re-run resumes), DIR/summary.json and DIR/report.md. Metric definitions: "
        "docs/metrics.md.",
    )
    configure_eval_parser(p)
    return p


def configure_eval_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "dataset", type=Path, metavar="DATASET", help="folder with docs/ and questions.jsonl"
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--limit", type=int, default=None, metavar="N", help="only the first N questions"
    )
    ablations = sorted(set(ABLATIONS) | set(ALIASES))
    p.add_argument(
        "--ablate",
        metavar="NAME",
        default=None,
        help=f"run the variants of one ablation ({', '.join(ABLATIONS)}), each in DIR/<variant>, "
        "and write a comparison table with charts to DIR/report.md",
        choices=ablations,
    )
    s = p.add_argument_group("settings (default: the paper's configuration)")
    add_context_options(s, EVAL_OPTIONS)
    s.add_argument(
        "--chunk-tokens",
        type=int,
        default=None,
        help="chunk size in tokens (600; overlap a fifth of it)",
    )
    i = p.add_argument_group("index and judge")
    i.add_argument(
        "--index-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"index to use and update (default: a cached index per dataset, embedding model "
        f"and chunk settings under {DEFAULT_CACHE_DIR}/)",
    )
    i.add_argument(
        "--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, help="root of the cached indexes"
    )
    i.add_argument(
        "--docs-suffix",
        default=None,
        choices=[".pdf", ".txt", ".md", "pdf", "txt", "md"],
        help="which document files to index (default: the PDF when there is one, else the text)",
    )
    i.add_argument(
        "--no-judge",
        action="store_true",
        help="skip the independent judge (citation recall/precision and unsupported "
        "hallucination are recorded as null)",
    )
    i.add_argument(
        "--judge-threshold",
        type=float,
        default=JUDGE_THRESHOLD,
        help=f"judge P(supported) counted as supported ({JUDGE_THRESHOLD})",
    )
    i.add_argument(
        "--no-generation-cache",
        action="store_true",
        help="do not reuse identical model calls across runs and variants (the cache is an "
        "SQLite file in the cache dir; decoding is deterministic, so reuse changes no result)",
    )
    i.add_argument("--fresh", action="store_true", help="discard earlier results in DIR")
    i.add_argument("--no-progress", action="store_true", help="no progress bars")


def config_from_args(args: argparse.Namespace) -> EvalConfig:
    context = Context().with_overrides(**context_overrides(args, EVAL_OPTIONS))
    suffix = args.docs_suffix
    if suffix and not suffix.startswith("."):
        suffix = "." + suffix
    return EvalConfig(
        context=context,
        chunk_settings=chunk_settings(args.chunk_tokens) if args.chunk_tokens else None,
        docs_suffix=suffix,
        judge=not args.no_judge,
        judge_threshold=args.judge_threshold,
    )


GENERATION_CACHE_NOTE = (
    "Seconds: these variants ran with the generation cache, so a model output that an "
    "earlier variant already produced (same prompt, greedy decoding) was reused, and a "
    "later variant's p50 leaves that model time out. Compare speed with "
    "`--no-generation-cache`."
)


def run_eval(args: argparse.Namespace) -> int:
    """Run ``citeguard eval`` from parsed arguments; prints the headline numbers."""
    if args.no_generation_cache:
        return _run_eval(args)
    from citeguard.llm.generation_cache import generation_cache

    with generation_cache(Path(args.cache_dir) / "generations.sqlite"):
        return _run_eval(args)


def _run_eval(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    options: dict[str, Any] = {
        "limit": args.limit,
        "index_dir": args.index_dir,
        "cache_dir": args.cache_dir,
        "fresh": args.fresh,
        "progress": not args.no_progress,
    }
    if args.ablate:
        if args.index_dir is not None and args.ablate in (
            "chunk_size",
            "chunk",
            "chunks",
            "embedding",
        ):
            print("citeguard: error: --index-dir cannot be shared by variants that need their own "
                  "index (chunk size, embedding model)", file=sys.stderr)  # fmt: skip
            return EXIT_ERROR
        notes = [] if args.no_generation_cache else [GENERATION_CACHE_NOTE]
        result = run_ablation(args.ablate, args.dataset, args.out, config, notes=notes, **options)
        for variant in result["variants"]:
            print(_headline(variant["label"], variant["summary"]))
        print(f"report: {args.out / 'report.md'}")
        return EXIT_OK
    run = run_evaluation(args.dataset, args.out, config, **options)
    print(_headline("summary", run.summary))
    print(
        f"{run.computed} questions run, {run.reused} reused; "
        f"{run.summary['n_errors']} errors; report: {args.out / 'report.md'}"
    )
    return EXIT_OK


def _headline(label: str, summary: dict[str, Any]) -> str:
    parts = [f"{name}={percent(summary.get(name))}" for name in HEADLINE]
    p50 = (summary.get("seconds_per_question") or {}).get("p50")
    parts.append(f"p50={p50:.1f}s" if p50 is not None else "p50=n/a")
    return f"{label}: " + " ".join(parts)
