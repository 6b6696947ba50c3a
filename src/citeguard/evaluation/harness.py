"""Run a labelled dataset through the answer graph and measure it.

One run: pick the dataset's document files and ingest them into a cached index
(``run_index``), then send every question through the answer graph the CLI and server
use (``citeguard.graph.answer_graph.compile_graph``), built with the ablation's acceptance
(``unvalidated``: the production acceptance at every level but "off", which the graph a
user runs rejects). Each finished question is appended to ``results.jsonl`` at once
(``results_file``), so a crash loses nothing; a re-run with the same settings
(``run_config``) skips the ids already there. At the end ``summary.json`` (metrics, see
docs/metrics.md) and ``report.md`` are written.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeguard.atomic_files import write_json_atomic
from citeguard.errors import IndexStoreError, ModelUnavailableError
from citeguard.evaluation.citation_judge import JUDGE_THRESHOLD, JudgeFn, judge_citations
from citeguard.evaluation.dataset import Question, load_questions
from citeguard.evaluation.metrics import rescore, score_result, summarize
from citeguard.evaluation.refusal_causes import answerable_refusal_causes
from citeguard.evaluation.results_file import (
    REPORT_FILE,
    RESULTS_FILE,
    SETTINGS_FILE,
    SUMMARY_FILE,
    append_result,
    difference_from_folder,
    errors_of,
    read_results,
)
from citeguard.evaluation.run_config import (
    EvalConfig,
    EvaluationError,
    run_settings,
    short_hash,
)
from citeguard.evaluation.run_index import (
    DEFAULT_CACHE_DIR,
    prepare_index,
    select_document_files,
)
from citeguard.evaluation.unvalidated import ACCEPT_FIRST_WHEN_OFF
from citeguard.graph.context import Context
from citeguard.graph.draft_trail import invoke_with_trail
from citeguard.graph.resources import Resources, default_resources
from citeguard.graph.state import STATE_KEYS
from citeguard.index.embedder import Embedder
from citeguard.llm.local_llama import model_runtime

__all__ = [
    "DEFAULT_CACHE_DIR",
    "EvalConfig",
    "EvalRun",
    "EvaluationError",
    "build_summary",
    "evaluate_question",
    "prepare_index",
    "read_results",
    "run_evaluation",
    "run_settings",
    "select_document_files",
]

logger = logging.getLogger(__name__)


@dataclass
class EvalRun:
    """What :func:`run_evaluation` did."""

    out_dir: Path
    summary: dict[str, Any]
    records: list[dict[str, Any]]
    computed: int
    """Questions run now (the rest were reused from an earlier run)."""
    reused: int
    index_dir: Path


def _resources_for(
    index_dir: Path,
    resources: Resources | None,
    embedder: Embedder | None,
    chat_model: Any | None,
    validator_judge: JudgeFn | None,
) -> Resources:
    """The run's resources: the injected ones, the process's real ones (one model load per
    process, across ablation variants), or new ones around injected components."""
    if resources is not None:
        return resources
    if embedder is None and chat_model is None and validator_judge is None:
        return default_resources()
    from citeguard.index.search import load_index

    return Resources(
        chat_model=chat_model,
        searcher=load_index(index_dir, embedder=embedder) if embedder is not None else None,
        embed=embedder.embed_documents if embedder is not None else None,
        judge=validator_judge,
    )


def _default_judge() -> JudgeFn:
    """The independent judge: the local model's P(supported) (loaded on first use)."""
    import functools

    from citeguard.llm.judge import local_judge

    judge = functools.cache(local_judge)
    return lambda claim, evidence: judge().support_probability(claim, evidence)


def _indexed_documents(resources: Resources, context: Context) -> set[str] | None:
    """The index's document names, for scoping questions (None when the searcher has none)."""
    names = getattr(resources.searcher(context), "documents", None)
    return set(names) if names is not None else None


def evaluate_question(
    graph: Any,
    question: Question,
    context: Context,
    resources: Resources,
    indexed_docs: set[str] | None,
    judge: JudgeFn | None,
    judge_threshold: float = JUDGE_THRESHOLD,
) -> dict[str, Any]:
    """Run one question through the graph and score it: the full results line."""
    scope = question.scope(indexed_docs)
    inputs: dict[str, Any] = {"question": question.question}
    if scope:
        inputs["docs"] = scope
    work_before = resources.model_work.snapshot()
    started = time.perf_counter()
    # Every key of the state, not only the output schema: retrieved chunks, evidence, timings.
    state, drafts = invoke_with_trail(graph, inputs, context=context, output_keys=STATE_KEYS)
    seconds = time.perf_counter() - started
    work = resources.model_work.snapshot().minus(work_before)
    evidence = list(state.get("evidence") or [])
    judgement = None
    judge_seconds = 0.0
    if judge is not None and state.get("status") == "answered":
        judge_started = time.perf_counter()
        judgement = judge_citations(
            str(state.get("answer", "")), [str(e["text"]) for e in evidence], judge, judge_threshold
        )
        judge_seconds = time.perf_counter() - judge_started
    scores = score_result(question, state, embed=resources.embed(context), judgement=judgement)
    return {
        "id": question.id,
        "question": question.question,
        "answerable": question.answerable,
        "docs": scope,
        "answer": state.get("answer"),
        "status": state.get("status"),
        "refusal_reason": state.get("refusal_reason"),
        "citations": state.get("citations", []),
        "validation": state.get("validation", {}),
        "last_validation": state.get("last_validation", {}),
        "sufficiency": state.get("sufficiency", {}),
        "attempts": state.get("attempts", 0),
        "regenerations": state.get("regenerations", 0),
        "drafts": drafts,
        "retrieved": state.get("retrieved", []),
        "evidence": evidence,
        "timings": dict(state.get("timings") or {}),
        "seconds": seconds,
        # None when no local-model call was made (another chat model, or cached drafts).
        "model_work": work.to_json() if work.calls else None,
        "judge": judgement.to_json() if judgement is not None else None,
        "judge_seconds": judge_seconds,
        "scores": scores,
        # A model that failed is not an answer to score: recorded as an error, so that
        # the next run of the same output folder asks the question again.
        "error": _model_failure(state),
    }


def _model_failure(state: dict[str, Any]) -> str | None:
    """The chat model's error when the run was refused because the model failed."""
    if state.get("refusal_reason") != "model_failed":
        return None
    return str((state.get("last_validation") or {}).get("model_error") or "the model failed")


def run_evaluation(
    dataset: str | Path,
    out_dir: str | Path,
    config: EvalConfig | None = None,
    *,
    limit: int | None = None,
    index_dir: str | Path | None = None,
    cache_dir: str | Path = DEFAULT_CACHE_DIR,
    fresh: bool = False,
    progress: bool = True,
    resources: Resources | None = None,
    embedder: Embedder | None = None,
    chat_model: Any | None = None,
    judge: JudgeFn | None = None,
    validator_judge: JudgeFn | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> EvalRun:
    """Evaluate the answer graph on a labelled dataset; writes results, summary and report.

    Args:
        dataset: folder with ``docs/`` and ``questions.jsonl``.
        out_dir: where results.jsonl, summary.json, settings.json and report.md go.
        config: the run's settings (defaults: the paper's configuration, judge on).
        limit: only the first N questions.
        index_dir: use (and update) this index instead of the cached one.
        cache_dir: root of the cached indexes (default ./.citeguard-eval).
        fresh: discard earlier results in ``out_dir`` instead of resuming.
        progress: show progress bars.
        resources, embedder, chat_model, validator_judge: injected components (tests);
            by default the real models are loaded once per process.
        judge: the independent judge (default: the local model's ``support_probability``).
        on_record: called with every new record after it is written (progress hooks).
    """
    config = config or EvalConfig()
    dataset, out = Path(dataset), Path(out_dir)
    questions = load_questions(dataset)
    if limit is not None:
        questions = questions[: max(limit, 0)]
    out.mkdir(parents=True, exist_ok=True)

    index_path, index_info = prepare_index(
        dataset,
        config,
        Path(index_dir) if index_dir is not None else None,
        Path(cache_dir),
        embedder,
        progress,
    )
    uses_local_model = config.context.model == "local" and (
        (resources is None and chat_model is None) or (config.judge and judge is None)
    )
    settings = run_settings(config, index_info, model_runtime() if uses_local_model else None)
    settings_key = short_hash(settings)
    results_path = out / RESULTS_FILE
    done = read_results(
        results_path, settings_key, fresh=fresh, difference=difference_from_folder(out, settings)
    )
    write_json_atomic(out / SETTINGS_FILE, {"settings_key": settings_key, **settings})

    context = dataclasses.replace(config.context, index_dir=str(index_path))
    res = _resources_for(index_path, resources, embedder, chat_model, validator_judge)
    judge_fn = (judge or _default_judge()) if config.judge else None

    from citeguard.graph.answer_graph import compile_graph

    graph = compile_graph(res, acceptance=ACCEPT_FIRST_WHEN_OFF)
    todo = [q for q in questions if q.id not in done]
    indexed = _indexed_documents(res, context) if todo else None
    bar = _progress_bar(len(questions), len(questions) - len(todo), progress)
    try:
        for question in todo:
            try:
                record = evaluate_question(
                    graph, question, context, res, indexed, judge_fn, config.judge_threshold
                )
            except (ModelUnavailableError, IndexStoreError):
                raise  # nothing later could succeed: stop with the message
            except Exception as exc:  # one bad question must not end a long run
                logger.warning("question %s failed: %s", question.id, exc, exc_info=True)
                record = {
                    "id": question.id,
                    "question": question.question,
                    "answerable": question.answerable,
                    "error": f"{type(exc).__name__}: {exc}",
                }
            record["settings_key"] = settings_key
            append_result(results_path, record)
            if not record.get("error"):
                done[question.id] = record
            if on_record is not None:
                on_record(record)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(
                    answered=sum(r.get("status") == "answered" for r in done.values()),
                    refused=sum(r.get("status") == "refused" for r in done.values()),
                )
    finally:
        if bar is not None:
            bar.close()

    errors = errors_of(results_path, {q.id for q in questions} - set(done))
    # Label-dependent scores are recomputed from the stored states, so a finished run
    # re-summarized after a metric fix needs no model call.
    records = [rescore(done[q.id], q) for q in questions if q.id in done] + errors
    summary = build_summary(records, settings, settings_key, dataset, len(questions), config)
    write_json_atomic(out / SUMMARY_FILE, summary)
    from citeguard.evaluation.report import write_run_report

    write_run_report(out / REPORT_FILE, summary, records)
    return EvalRun(
        out_dir=out,
        summary=summary,
        records=records,
        computed=len(todo),
        reused=len(questions) - len(todo),
        index_dir=index_path,
    )


def build_summary(
    records: Sequence[dict[str, Any]],
    settings: dict[str, Any],
    settings_key: str,
    dataset: Path,
    n_selected: int,
    config: EvalConfig,
) -> dict[str, Any]:
    """The run's summary.json: the metrics over ``records`` plus what the run was."""
    summary = summarize(records)
    summary["n_selected"] = n_selected
    summary["k"] = config.context.top_k
    summary["context_k"] = config.context.context_k
    summary["dataset"] = str(dataset)
    summary["settings_key"] = settings_key
    summary["settings"] = {k: v for k, v in settings.items() if k != "documents"}
    summary["n_documents"] = len(settings.get("documents", []))
    summary["answerable_refusal_causes"] = answerable_refusal_causes(records)
    summary["judge"] = {
        "enabled": config.judge,
        "threshold": config.judge_threshold if config.judge else None,
        "sentences_judged": sum(len((r.get("judge") or {}).get("sentences", [])) for r in records),
        "seconds": sum(float(r.get("judge_seconds") or 0.0) for r in records),
    }
    return summary


def _progress_bar(total: int, initial: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc="questions", unit="q")
