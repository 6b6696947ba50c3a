"""What decides an evaluation run's results, and the key that marks them.

Every results line carries ``settings_key``, a hash of :func:`run_settings`: a run resumes
(or reuses) only results made with the same settings, the same documents and the same
local model file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citeguard import environment
from citeguard.errors import CiteGuardError
from citeguard.evaluation.citation_judge import JUDGE_THRESHOLD
from citeguard.graph.context import Context
from citeguard.ingest.chunking import ChunkSettings
from citeguard.learned.shipped import trained_model_identity


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


def short_hash(data: Any, length: int = 12) -> str:
    """A short, stable hash of JSON-like data (cache folder names, settings keys)."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def run_settings(
    config: EvalConfig, index: dict[str, Any], runtime: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The settings that decide results; their hash marks every results line.

    ``runtime`` is the local model's file and kernels
    (:func:`citeguard.llm.local_llama.model_runtime`) when the run uses it: the AMX path
    loads a Q8_0 copy, whose near ties can fall the other way, so its results are not the
    plain path's.
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
    gguf = environment.gguf_file()
    if gguf and config.context.model == "local":
        settings["gguf"] = str(Path(gguf).resolve())
    if runtime is not None:
        settings["local_model"] = runtime
    # The trained scorer and verifier decide refusals and passage answers: results made
    # with other weights or thresholds (CITEGUARD_LEARNED_WEIGHTS, a recalibration) are
    # other results.
    settings["trained_models"] = {
        kind: trained_model_identity(kind) for kind in ("scorer", "verifier")
    }
    return settings


def settings_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """ ", differs in: a (old -> new), ..." over the flattened settings; "" when equal."""
    before, after = _flatten(old), _flatten(new)
    changed = [
        f"{key} ({before.get(key)!r} -> {after.get(key)!r})"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]
    return f", differs in: {', '.join(changed)}" if changed else ""


def _flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        return {prefix: data}
    flat: dict[str, Any] = {}
    for key, value in data.items():
        flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat
