"""Run a labelled dataset through the answer graph and measure it.

One run: pick the dataset's document files, ingest them into a cached index (incremental:
nothing is re-embedded when nothing changed), then send every question through the same
compiled graph the CLI and server use (``citeguard.graph.answer_graph.compile_graph``; the only
difference is ``allow_unvalidated=True``, so that the validation-off ablation can run).
Each finished question is appended to ``results.jsonl`` at once and flushed to disk, so a
crash loses nothing; a re-run with the same settings skips the ids already there. At the
end ``summary.json`` (metrics, see docs/metrics.md) and ``report.md`` are written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeguard.atomic_files import write_json_atomic
from citeguard.graph.context import Context
from citeguard.errors import CiteGuardError, IndexStoreError, ModelUnavailableError
from citeguard.evaluation.dataset import Question, dataset_docs_dir, load_questions
from citeguard.evaluation.metrics import (
    JUDGE_THRESHOLD,
    JudgeFn,
    judge_citations,
    rescore,
    score_result,
    summarize,
)
from citeguard.ingest.chunking import ChunkSettings
from citeguard.llm.local import GGUF_ENV_VAR, model_runtime
from citeguard.llm.model_work import MODEL_WORK
from citeguard.index.embedder import DEFAULT_EMBEDDING_MODEL, Embedder
from citeguard.graph.resources import Resources, default_resources
from citeguard.graph.state import State

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.md"
SETTINGS_FILE = "settings.json"
DEFAULT_CACHE_DIR = Path(".citeguard-eval")
DOC_SUFFIXES = (".pdf", ".txt", ".md")

# Every key of the graph's full state: asked for explicitly, because invoke() otherwise
# returns only the output schema (no retrieved chunks, evidence or timings).
STATE_KEYS = sorted(State.__required_keys__ | State.__optional_keys__)


class EvaluationError(CiteGuardError):
    """An evaluation cannot start or continue (the message says why and what to do)."""


@dataclass(frozen=True)
class EvalConfig:
    """Everything that decides a run's results (and so whether old results can be reused).

    Attributes:
        context: the graph's settings (``index_dir`` is filled in by the harness).
        chunk_settings: chunking of the documents; None: the defaults (600/120), or the
            settings of an existing index given with ``index_dir``.
        docs_suffix: which document files to index (".pdf", ".txt", ".md"); None: the PDF
            when a document has a PDF twin, else its text file.
        judge: run the independent judge (citation recall/precision, unsupported
            hallucination); False records those metrics as null.
        judge_threshold: P(supported) at or above which the judge counts a claim supported.
    """

    context: Context = field(default_factory=Context)
    chunk_settings: ChunkSettings | None = None
    docs_suffix: str | None = None
    judge: bool = True
    judge_threshold: float = JUDGE_THRESHOLD


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


# --------------------------------------------------------------------------- documents


def select_document_files(docs_dir: Path, suffix: str | None = None) -> list[Path]:
    """One file per document stem: the preferred suffix when the stem has one, else the
    first of .pdf, .txt, .md (so a PDF is indexed instead of its text twin by default)."""
    if suffix is not None and not suffix.startswith("."):
        suffix = "." + suffix
    order = ((suffix,) if suffix else ()) + DOC_SUFFIXES
    by_stem: dict[str, dict[str, Path]] = {}
    for path in sorted(docs_dir.rglob("*")):
        if path.is_file() and path.suffix.lower() in order:
            by_stem.setdefault(str(path.with_suffix("")), {})[path.suffix.lower()] = path
    chosen = []
    for variants in by_stem.values():
        best = next(s for s in order if s in variants)
        chosen.append(variants[best])
    if not chosen:
        raise EvaluationError(f"{docs_dir}: no documents ({', '.join(DOC_SUFFIXES)})")
    return chosen


def _short_hash(data: Any, length: int = 12) -> str:
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def index_cache_dir(
    dataset: Path,
    embedding_model: str,
    chunk_settings: ChunkSettings,
    docs_suffix: str | None,
    cache_dir: Path = DEFAULT_CACHE_DIR,
) -> Path:
    """The cached index of one (dataset, embedding model, chunk settings, document files)."""
    key = {
        "dataset": str(dataset.resolve()),
        "embedding_model": embedding_model,
        "chunks": chunk_settings.fingerprint(),
        "docs": docs_suffix or "auto",
    }
    return cache_dir / "indexes" / f"{dataset.resolve().name}-{_short_hash(key)}"


def prepare_index(
    dataset: Path,
    config: EvalConfig,
    index_dir: Path | None = None,
    cache_dir: Path = DEFAULT_CACHE_DIR,
    embedder: Embedder | None = None,
    progress: bool = True,
) -> tuple[Path, dict[str, Any]]:
    """Ingest the dataset's documents (incrementally) and describe the index.

    Returns:
        The index folder and its description (embedding model, chunk settings, documents)
        as it goes into the run's settings.
    """
    from citeguard.index.store import read_manifest
    from citeguard.ingest.pipeline import ingest_paths

    files = select_document_files(dataset_docs_dir(dataset), config.docs_suffix)
    model = embedder.name if embedder is not None else config.context.embedding_model
    if index_dir is None:
        index_dir = index_cache_dir(
            dataset,
            model or DEFAULT_EMBEDDING_MODEL,
            config.chunk_settings or ChunkSettings(),
            config.docs_suffix,
            cache_dir,
        )
    summary = ingest_paths(
        files,
        index_dir,
        embedding_model=model,
        chunk_settings=config.chunk_settings,
        progress=progress,
        embedder=embedder,
    )
    if summary.skipped:
        for path, reason in summary.skipped:
            logger.warning("not indexed: %s (%s)", path, reason)
    manifest = read_manifest(index_dir)
    description = {
        "embedding_model": manifest.embedding_model,
        "chunk_settings": manifest.chunk_settings,
        "documents": sorted(d.name for d in manifest.documents),
    }
    logger.info(
        "index %s: %d documents (%d added, %d replaced, %d unchanged)",
        index_dir,
        len(description["documents"]),
        summary.added,
        summary.replaced,
        summary.unchanged,
    )
    return index_dir, description


# --------------------------------------------------------------------------- results file


def run_settings(
    config: EvalConfig, index: dict[str, Any], runtime: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The settings that decide results; their hash marks every results line.

    ``runtime`` is the local model's file and kernels (:func:`citeguard.llm.local.model_runtime`)
    when the run uses it: the AMX path loads a Q8_0 copy, whose near ties can fall the other
    way, so its results are not the plain path's.
    """
    context = dataclasses.asdict(config.context)
    context.pop("index_dir", None)  # where the index lives does not change results
    context["embedding_model"] = index["embedding_model"]
    settings: dict[str, Any] = {
        "context": context,
        "chunk_settings": index["chunk_settings"],
        "documents": index["documents"],
        "docs_suffix": config.docs_suffix or "auto",
        "judge": config.judge,
        "judge_threshold": config.judge_threshold if config.judge else None,
    }
    # "local" means the bundled GGUF unless $CITEGUARD_GGUF names another: a run with
    # another file must not resume (or reuse) the bundled model's results.
    gguf = os.environ.get(GGUF_ENV_VAR)
    if gguf and config.context.model == "local":
        settings["gguf"] = str(Path(gguf).resolve())
    if runtime is not None:
        settings["local_model"] = runtime
    return settings


def read_results(
    path: Path, settings_key: str, fresh: bool = False, difference: str = ""
) -> dict[str, dict[str, Any]]:
    """Finished records by question id, from an earlier (maybe interrupted) run.

    A last line cut off by a crash is dropped (that question is simply run again).
    Errored records are not finished. Records of other settings are an error, unless
    ``fresh`` (then the file is started again).
    """
    if not path.exists():
        return {}
    if fresh:
        path.unlink()
        return {}
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    done: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines):
                logger.warning("%s: dropping the unfinished last line %d", path, number)
                path.write_text("".join(lines[: number - 1]), encoding="utf-8")
                break
            raise EvaluationError(f"{path} line {number}: not valid JSON ({exc.msg})") from exc
        if record.get("settings_key") != settings_key:
            raise EvaluationError(
                f"{path} holds results of other settings (line {number}{difference}); "
                "use another --out folder, or --fresh to discard them"
            )
        if not record.get("error"):
            done[str(record["id"])] = record
    return done


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def _difference(out: Path, settings: dict[str, Any]) -> str:
    """ ", differs in: a (old -> new), ..." against the folder's settings.json, if any."""
    try:
        old = json.loads((out / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return ""
    old.pop("settings_key", None)
    before, after = _flatten(old), _flatten(settings)
    changed = [
        f"{key} ({before.get(key)!r} -> {after.get(key)!r})"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]
    return f", differs in: {', '.join(changed)}" if changed else ""


def append_result(path: Path, record: dict[str, Any]) -> None:
    """Append one record and force it to disk, so that a crash right after loses nothing."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


# --------------------------------------------------------------------------- running


def _resources_for(
    index_dir: Path,
    resources: Resources | None,
    embedder: Embedder | None,
    chat_model: Any | None,
    validator_judge: JudgeFn | None,
) -> Resources:
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
    from citeguard.llm.local import support_probability

    return support_probability


def _indexed_documents(resources: Resources, context: Context) -> set[str] | None:
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
    work_before = MODEL_WORK.snapshot()
    started = time.perf_counter()
    state = graph.invoke(inputs, context=context, output_keys=STATE_KEYS)
    seconds = time.perf_counter() - started
    work = MODEL_WORK.snapshot().minus(work_before)
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
        "retrieved": state.get("retrieved", []),
        "evidence": evidence,
        "timings": dict(state.get("timings") or {}),
        "seconds": seconds,
        # None when no local-model call was made (another chat model, or cached drafts).
        "model_work": work.to_json() if work.calls else None,
        "judge": judgement.to_json() if judgement is not None else None,
        "judge_seconds": judge_seconds,
        "scores": scores,
        "error": None,
    }


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
    settings_key = _short_hash(settings)
    results_path = out / RESULTS_FILE
    done = read_results(
        results_path, settings_key, fresh=fresh, difference=_difference(out, settings)
    )
    write_json_atomic(out / SETTINGS_FILE, {"settings_key": settings_key, **settings})

    context = dataclasses.replace(config.context, index_dir=str(index_path))
    res = _resources_for(index_path, resources, embedder, chat_model, validator_judge)
    judge_fn = (judge or _default_judge()) if config.judge else None

    from citeguard.graph.answer_graph import compile_graph

    graph = compile_graph(res, allow_unvalidated=True)
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

    errors = _errors_of(results_path, {q.id for q in questions} - set(done))
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


def _errors_of(path: Path, ids: set[str]) -> list[dict[str, Any]]:
    """The latest error record of each unfinished selected id (for counting)."""
    if not ids or not path.exists():
        return []
    latest: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if str(record.get("id")) in ids:
                latest[str(record["id"])] = record
    return list(latest.values())


def build_summary(
    records: Sequence[dict[str, Any]],
    settings: dict[str, Any],
    settings_key: str,
    dataset: Path,
    n_selected: int,
    config: EvalConfig,
) -> dict[str, Any]:
    summary = summarize(records)
    summary["n_selected"] = n_selected
    summary["k"] = config.context.top_k
    summary["context_k"] = config.context.context_k
    summary["dataset"] = str(dataset)
    summary["settings_key"] = settings_key
    summary["settings"] = {k: v for k, v in settings.items() if k != "documents"}
    summary["n_documents"] = len(settings.get("documents", []))
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
