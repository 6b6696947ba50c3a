"""Ablations: one setting varied over the values the paper compares, the rest held fixed.

Each variant is an ordinary evaluation run in its own subfolder of the output folder (so
it resumes like any run); the comparison table, chart and ablation.json go in the output
folder itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeguard.atomic_files import write_json_atomic
from citeguard.evaluation.harness import EvalConfig, EvalRun, run_evaluation
from citeguard.evaluation.report import render_ablation_report, write_chart
from citeguard.index.embedder import DEFAULT_EMBEDDING_MODEL, MPNET_EMBEDDING_MODEL
from citeguard.ingest.chunking import ChunkSettings


@dataclass(frozen=True)
class Variant:
    """One configuration of an ablation: a folder label and how it changes the base."""

    label: str
    context: dict[str, Any] = field(default_factory=dict)
    """Context fields to override."""
    chunk_tokens: int | None = None
    """Chunk size in tokens (overlap scaled to a fifth, as the paper's 600/120)."""

    def apply(self, base: EvalConfig) -> EvalConfig:
        config = dataclasses.replace(base, context=base.context.with_overrides(**self.context))
        if self.chunk_tokens is not None:
            config = dataclasses.replace(config, chunk_settings=chunk_settings(self.chunk_tokens))
        return config


def chunk_settings(max_tokens: int) -> ChunkSettings:
    """Chunk settings of a given size with the paper's overlap ratio (120 of 600 = 1/5)."""
    return ChunkSettings(max_tokens=max_tokens, overlap_tokens=max_tokens // 5)


_NO_LEARNED: dict[str, object] = {
    "scorer_rerank": False,
    "scorer_source_rescue": False,
    "scorer_sufficiency": False,
    "scorer_answer": False,
    "scorer_passages_overlap": False,
    "passage_first": False,
    "passage_relevance_with_scorer": False,
    "support_judge": "llm",
}

ABLATIONS: dict[str, list[Variant]] = {
    # "off" runs only in the harness, whose graph delivers the first candidate at that level
    # (citeguard.evaluation.unvalidated); the graph a user runs rejects it.
    "validation": [
        Variant(f"validation-{level}", {"validation_level": level})
        for level in ("off", "paper", "strict", "judge")
    ],
    "retrieval": [
        Variant(f"retrieval-{mode}", {"retrieval_mode": mode})
        for mode in ("lexical", "dense", "hybrid")
    ],
    "alpha": [Variant(f"alpha-{a:.2f}", {"alpha": a}) for a in (0.80, 0.65, 0.50, 0.35)],
    "chunk_size": [Variant(f"chunk-{n}", chunk_tokens=n) for n in (400, 600, 800)],
    "reranker": [
        Variant(f"rerank-{'on' if on else 'off'}", {"rerank": on}) for on in (False, True)
    ],
    "source_words": [
        Variant(f"source-words-{n or 'all'}", {"source_words": n}) for n in (0, 160, 120, 80)
    ],
    "opening": [
        Variant(f"opening-{'on' if on else 'off'}", {"opening_source": on}) for on in (False, True)
    ],
    "embedding": [
        Variant("embedding-minilm", {"embedding_model": DEFAULT_EMBEDDING_MODEL}),
        Variant("embedding-mpnet", {"embedding_model": MPNET_EMBEDDING_MODEL}),
    ],
    "regenerations": [Variant(f"regenerations-{n}", {"max_regenerations": n}) for n in (0, 1, 2)],
    # Meaningful at the judge level only: pass --validation-level judge.
    "judge_evidence": [
        Variant(f"judge-evidence-{n or 'all'}", {"judge_evidence_words": n}) for n in (0, 100)
    ],
    # The trained models one at a time, then together; every variant names all eight
    # settings, so the table does not depend on the defaults. The passage answer's
    # relevance check is the scorer's mean with the local model's, as by default;
    # passage_first needs that check, so "all" (with the verifier) runs without it.
    "learned": [
        Variant(f"learned-{name}", {**_NO_LEARNED, **on})
        for name, on in (
            ("none", {}),
            ("rerank", {"scorer_rerank": True}),
            ("sufficiency", {"scorer_sufficiency": True}),
            ("source-rescue", {"scorer_sufficiency": True, "scorer_source_rescue": True}),
            ("passage-answer", {"scorer_answer": True, "passage_relevance_with_scorer": True}),
            (
                "passage-overlap",
                {
                    "scorer_answer": True,
                    "scorer_passages_overlap": True,
                    "passage_relevance_with_scorer": True,
                },
            ),
            (
                "passage-first",
                {
                    "scorer_answer": True,
                    "passage_first": True,
                    "passage_relevance_with_scorer": True,
                },
            ),
            ("verifier", {"support_judge": "verifier"}),
            (
                "all",
                {
                    "scorer_rerank": True,
                    "scorer_source_rescue": True,
                    "scorer_sufficiency": True,
                    "scorer_answer": True,
                    "scorer_passages_overlap": True,
                    "passage_relevance_with_scorer": True,
                    "support_judge": "verifier",
                },
            ),
        )
    ],
}
"""Every ablation by name, with its variants in table order."""

ALIASES = {
    "chunk": "chunk_size",
    "chunks": "chunk_size",
    "chunk-size": "chunk_size",
    "rerank": "reranker",
    "embedding_model": "embedding",
    "embedding-model": "embedding",
    "max_regenerations": "regenerations",
    "max-regenerations": "regenerations",
    "regeneration": "regenerations",
    "mode": "retrieval",
    "opening-source": "opening",
    "source-words": "source_words",
    "trim": "source_words",
    "opening_source": "opening",
    "judge-evidence": "judge_evidence",
    "judge_evidence_words": "judge_evidence",
    "judge-evidence-words": "judge_evidence",
    "trained": "learned",
    "scorer": "learned",
    "verifier": "learned",
}


def resolve_ablation(name: str) -> str:
    key = ALIASES.get(name, name)
    if key not in ABLATIONS:
        raise ValueError(f"unknown ablation {name!r}; choose from {', '.join(ABLATIONS)}")
    return key


def run_ablation(
    name: str,
    dataset: str | Path,
    out_dir: str | Path,
    base: EvalConfig | None = None,
    run: Callable[..., EvalRun] = run_evaluation,
    notes: Sequence[str] = (),
    **run_options: Any,
) -> dict[str, Any]:
    """Run every variant of ablation ``name`` and write the comparison.

    Args:
        name: a key of :data:`ABLATIONS` (or an alias).
        dataset, out_dir: as for :func:`run_evaluation`; variant k goes to out_dir/label.
        base: the configuration the variants change (default: the paper's).
        run: the function running one variant (run_evaluation; replaceable in tests).
        notes: paragraphs added under the comparison table (how to read it).
        run_options: passed to every run (limit, cache_dir, injected components, ...).

    Returns:
        ablation.json's content: each variant's label, changes and summary.
    """
    key = resolve_ablation(name)
    base = base or EvalConfig()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, dict[str, Any]]] = []
    result: dict[str, Any] = {"ablation": key, "dataset": str(dataset), "variants": []}
    for variant in ABLATIONS[key]:
        evaluation = run(dataset, out / variant.label, variant.apply(base), **run_options)
        rows.append((variant.label, evaluation.summary))
        result["variants"].append(
            {
                "label": variant.label,
                "context": variant.context,
                "chunk_tokens": variant.chunk_tokens,
                "summary": evaluation.summary,
            }
        )
        # Written after every variant, so that a long ablation shows progress on disk.
        write_json_atomic(out / "ablation.json", result)
    chart = f"ablation_{key}.png"
    has_chart = write_chart(out / chart, f"{key} ablation on {Path(dataset).name}", rows)
    (out / "report.md").write_text(
        render_ablation_report(key, str(dataset), rows, chart if has_chart else None, notes),
        encoding="utf-8",
    )
    return result
