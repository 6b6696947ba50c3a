"""Readable reports: report.md for one run, and a comparison table with charts for ablations."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citeguard.evaluation.metrics import SUMMARY_METRICS

logger = logging.getLogger(__name__)

METRIC_LABELS: dict[str, tuple[str, str]] = {
    "hit@k": ("Span hit@k", "answerable with gold spans"),
    "page_hit@k": ("Page hit@k", "answerable with gold pages"),
    "context_recall": ("Context recall", "answerable with gold spans"),
    "answer_accuracy": ("Grounded answer accuracy", "all questions"),
    "answer_accuracy_quoted": ("Answer accuracy, a quote holding gold", "all questions"),
    "token_f1": ("Token F1 (reference answer)", "answerable with a reference"),
    "token_f1_gold_spans": ("Token F1 (gold span text)", "answerable with gold spans"),
    "citation_validity": ("Citation validity", "answered"),
    "evidence_support_rate": ("Evidence support rate", "answered"),
    "citation_recall": ("Citation recall (judge)", "answered"),
    "citation_precision": ("Citation precision (judge)", "answered"),
    "hallucination_rate": ("Hallucination rate", "answered"),
    "unsupported_hallucination_rate": ("Unsupported hallucination rate (judge)", "answered"),
    "unsupported_quotes_only_rate": (
        "Judge-unsupported, every rejected sentence a word-for-word quote of its source",
        "answered",
    ),
    "true_refusal_rate": ("True refusal rate", "unanswerable"),
    "false_refusal_rate": ("False refusal rate", "answerable"),
    "false_answer_rate": ("False answer rate", "unanswerable"),
    "regeneration_attempt_rate": ("Regeneration attempt rate", "all questions"),
    "regeneration_accepted_rate": ("Regeneration accepted rate", "all questions"),
}

# What the ablation table and chart show (the paper's Tables 6-10 columns).
COMPARISON_METRICS = (
    "hit@k",
    "context_recall",
    "answer_accuracy",
    "citation_validity",
    "evidence_support_rate",
    "hallucination_rate",
    "unsupported_hallucination_rate",
    "true_refusal_rate",
    "false_refusal_rate",
    "regeneration_attempt_rate",
)
CHART_METRICS = (
    "hit@k",
    "answer_accuracy",
    "citation_validity",
    "evidence_support_rate",
    "hallucination_rate",
    "false_refusal_rate",
)


def percent(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):.1f}%"


def seconds(value: Any) -> str:
    return "n/a" if value is None else f"{float(value):.2f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def _mark(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{float(value):.2f}"


def render_run_report(summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    settings = summary.get("settings", {})
    context = settings.get("context", {})
    lines = [
        f"# Evaluation of `{summary.get('dataset')}`",
        "",
        f"{summary['n_scored']} of {summary['n_selected']} questions scored "
        f"({summary['n_answerable']} answerable, {summary['n_unanswerable']} unanswerable; "
        f"{summary['n_answered']} answered; {summary['n_errors']} errors), "
        f"{summary.get('n_documents', '?')} documents. Definitions: docs/metrics.md.",
        "",
        "## Settings",
        "",
    ]
    shown = {
        "model": context.get("model"),
        "validation_level": context.get("validation_level"),
        "retrieval_mode": context.get("retrieval_mode"),
        "alpha": context.get("alpha"),
        "top_k / context_k": f"{context.get('top_k')} / {context.get('context_k')}",
        "rerank": context.get("rerank"),
        "max_regenerations": context.get("max_regenerations"),
        "embedding_model": context.get("embedding_model"),
        "chunk_settings": (settings.get("chunk_settings") or {}).get("fingerprint"),
        "documents indexed": settings.get("docs_suffix"),
        "judge": (
            f"threshold {settings.get('judge_threshold')}" if settings.get("judge") else "off"
        ),
        "settings_key": summary.get("settings_key"),
    }
    lines += _table(["setting", "value"], [[k, f"`{v}`"] for k, v in shown.items()])
    lines += ["", "## Metrics", ""]
    rows = [
        [METRIC_LABELS[name][0], f"`{name}`", percent(summary.get(name)), METRIC_LABELS[name][1]]
        for name in SUMMARY_METRICS
    ]
    lines += _table(["metric", "key", "value", "over"], rows)
    lines += ["", "## Cost (seconds per question)", ""]
    cost_rows = [["total", *_stats(summary.get("seconds_per_question", {}))]]
    for stage, stats in (summary.get("seconds_per_stage") or {}).items():
        cost_rows.append([stage, *_stats(stats)])
    lines += _table(["stage", "p50", "p95", "mean"], cost_rows)
    lines += _model_work_lines(summary.get("model_work"))
    judge = summary.get("judge") or {}
    if judge.get("enabled"):
        lines += [
            "",
            f"Independent judge: {judge.get('sentences_judged')} sentences in "
            f"{seconds(judge.get('seconds'))} s (not counted above).",
        ]
    causes = summary.get("answerable_refusal_causes")
    if causes:
        lines += ["", "## Where answerable questions were refused", ""]
        lines += _table(["cause", "questions"], [[cause, str(n)] for cause, n in causes.items()])
    lines += ["", "## Questions", ""]
    question_rows = []
    for record in records:
        scores = record.get("scores") or {}
        status = record.get("status") or "error"
        if record.get("refusal_reason"):
            status += f" ({record['refusal_reason']})"
        question_rows.append(
            [
                f"`{record['id']}`",
                "yes" if record.get("answerable") else "no",
                status,
                _mark(scores.get("correct")),
                _mark(scores.get("hit")),
                _mark(scores.get("citation_valid")),
                str(record.get("regenerations", "-")),
                seconds(record.get("seconds")),
            ]
        )
    lines += _table(
        ["id", "answerable", "outcome", "correct", "hit", "citations valid", "regen", "s"],
        question_rows,
    )
    return "\n".join(lines) + "\n"


def _model_work_lines(work: Mapping[str, Any] | None) -> list[str]:
    """The local model's tokens per question and speed (nothing when not recorded)."""
    if not work:
        return []

    def count(value: Any) -> str:
        return "-" if value is None else f"{value:.0f}"

    rows = [
        [label, *(count((work.get(key) or {}).get(s)) for s in ("p50", "p95", "mean"))]
        for label, key in (
            ("prompt tokens evaluated", "prompt_tokens_per_question"),
            ("prompt tokens from the KV cache", "reused_tokens_per_question"),
            ("tokens decoded", "decoded_tokens_per_question"),
        )
    ]
    return [
        "",
        f"Local model work per question ({work.get('n_questions')} questions), at "
        f"{count(work.get('prompt_tokens_per_s'))} prompt and "
        f"{count(work.get('decode_tokens_per_s'))} decoded tokens/s on this run's machine:",
        "",
        *_table(["tokens", "p50", "p95", "mean"], rows),
    ]


def _stats(stats: Mapping[str, Any]) -> list[str]:
    return [seconds(stats.get("p50")), seconds(stats.get("p95")), seconds(stats.get("mean"))]


def write_run_report(
    path: Path, summary: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
) -> None:
    path.write_text(render_run_report(summary, records), encoding="utf-8")


# --------------------------------------------------------------------------- ablations


def comparison_table(variants: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """One row per variant, one column per main metric (the paper's ablation tables)."""
    header = ["variant", "n"] + [METRIC_LABELS[m][0] for m in COMPARISON_METRICS] + ["p50 s"]
    rows = [
        [
            label,
            str(summary.get("n_scored")),
            *(percent(summary.get(m)) for m in COMPARISON_METRICS),
            seconds((summary.get("seconds_per_question") or {}).get("p50")),
        ]
        for label, summary in variants
    ]
    return _table(header, rows)


def write_chart(path: Path, title: str, variants: Sequence[tuple[str, Mapping[str, Any]]]) -> bool:
    """A grouped bar chart of the main metrics per variant (PNG); False without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display here; must precede pyplot's import
        import matplotlib.pyplot as plt
    except ImportError:
        logger.warning("matplotlib is not installed (pip install 'citeguard-rag[eval]'): no chart")
        return False
    metrics = list(CHART_METRICS)
    width = 0.8 / max(len(variants), 1)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.6 * len(metrics)), 4.5))
    for i, (label, summary) in enumerate(variants):
        values = [100 * float(summary.get(m) or 0.0) for m in metrics]
        positions = [x + (i - (len(variants) - 1) / 2) * width for x in range(len(metrics))]
        ax.bar(positions, values, width=width, label=label)
    ax.set_xticks(range(len(metrics)))
    ax.set_xticklabels([METRIC_LABELS[m][0] for m in metrics], rotation=20, ha="right")
    ax.set_ylabel("%")
    ax.set_ylim(0, 105)
    ax.set_title(title)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def render_ablation_report(
    name: str,
    dataset: str,
    variants: Sequence[tuple[str, Mapping[str, Any]]],
    chart: str | None,
    notes: Sequence[str] = (),
) -> str:
    lines = [
        f"# Ablation `{name}` on `{dataset}`",
        "",
        "Each variant changes one setting of the base configuration; its results, summary and "
        "report are in the subfolder of the same name. Rates over the questions each metric "
        "applies to (docs/metrics.md); n = questions scored.",
        "",
    ]
    lines += comparison_table(variants)
    lines += [line for note in notes for line in ("", note)]
    if chart:
        lines += ["", f"![{name}]({chart})"]
    return "\n".join(lines) + "\n"
