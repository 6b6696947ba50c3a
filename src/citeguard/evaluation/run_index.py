"""The index an evaluation run searches: the dataset's documents, ingested once and cached.

A dataset's index lives in a cache folder named after everything that shapes it (dataset,
embedding model, chunk settings, which document files), so runs and ablation variants with
the same settings share it, and ingestion is incremental: nothing is re-embedded when
nothing changed.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from citeguard.evaluation.dataset import dataset_docs_dir
from citeguard.evaluation.run_config import EvalConfig, EvaluationError, short_hash
from citeguard.index.embedder import DEFAULT_EMBEDDING_MODEL, Embedder
from citeguard.ingest.chunking import ChunkSettings

logger = logging.getLogger(__name__)

DEFAULT_CACHE_DIR = Path(".citeguard-eval")
DOC_SUFFIXES = (".pdf", ".txt", ".md")


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
    return cache_dir / "indexes" / f"{dataset.resolve().name}-{short_hash(key)}"


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
