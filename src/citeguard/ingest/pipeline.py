"""Ingest orchestration: files -> parsed documents -> chunks -> embeddings -> on-disk index.

Incremental by design. Documents are keyed by file name (``ParsedDocument.name``):

* a name not in the index is *added* (only its chunks are embedded);
* a name in the index whose file bytes have the same sha256 is *unchanged*: it is not
  parsed, chunked or embedded again, and when every file is unchanged no new generation is
  written at all;
* a name in the index with a different hash is *replaced* (also when the file now lives in
  another folder: the name is the identity, the recorded path is updated; an unchanged
  file found in another folder keeps its recorded path); so is one whose text an older
  reader made (``ingest.parsing.READER_VERSIONS``);
* two files with the same name in one ingest: the first is indexed, the second is skipped
  with a reason naming the first (rename one of them to index both).

Files that cannot be parsed (ParsingError, OSError) are listed in ``IngestSummary.skipped``
and everything else is indexed. The index's embedding model and chunk settings are fixed
when it is first built; ingesting with different ones needs ``rebuild=True``, which discards
the old index and builds one from the given paths only.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.documents import Chunk, ParsedDocument
from citeguard.errors import IncompatibleIndexError, IndexNotFoundError, ParsingError
from citeguard.index.bm25 import BM25Index
from citeguard.index.dense import DenseIndex
from citeguard.index.embedder import DEFAULT_EMBEDDING_MODEL, Embedder, get_embedder
from citeguard.index.sentence_vectors import SentenceVectors, embed_chunks, embed_sentences
from citeguard.index.store import (
    DocumentRecord,
    IndexData,
    Manifest,
    check_compatible,
    current_generation,
    has_sentence_vectors,
    read_index,
    read_manifest,
    resolve_index_dir,
    write_index,
    writer_lock,
)
from citeguard.ingest.chunking import ChunkSettings, chunk_document
from citeguard.ingest.limits import IngestLimits, parse_within_limits
from citeguard.ingest.parsing import discover_documents, reader_version

logger = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]
DEFAULT_LIMITS = IngestLimits()
OUTSIDE_ROOTS = "links outside the folders this server may read; not read"


@dataclass
class IngestSummary:
    """What one ingest did. ``added``/``replaced``/``unchanged`` count documents (their
    names are in the ``*_docs`` lists); ``pages`` and ``chunks`` count the documents
    (re)indexed now."""

    files_seen: int = 0
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    pages: int = 0
    chunks: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(file, reason) for every file that was not indexed."""
    total_chunks_in_index: int = 0
    seconds: float = 0.0
    index_dir: str = ""
    generation: str | None = None
    """The generation folder written, or None when nothing changed."""
    added_docs: list[str] = field(default_factory=list)
    replaced_docs: list[str] = field(default_factory=list)
    unchanged_docs: list[str] = field(default_factory=list)
    encodings: dict[str, str] = field(default_factory=dict)
    """Text files read in an encoding other than UTF-8: file name -> encoding."""
    sentence_vectors_added: bool = False
    """The index predated stored sentence vectors and this ingest computed them for every
    chunk it kept."""

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["skipped"] = [list(item) for item in self.skipped]
        return data


@dataclass
class _NewDocument:
    record: DocumentRecord
    chunks: list[Chunk]


def settings_to_dict(settings: ChunkSettings) -> dict[str, Any]:
    """Chunk settings as stored in the manifest: the fields plus the chunker's fingerprint,
    so that a new chunking algorithm also counts as a settings change."""
    data = dataclasses.asdict(settings)
    data["fingerprint"] = settings.fingerprint()
    return data


def settings_from_dict(data: dict[str, Any]) -> ChunkSettings:
    names = {f.name for f in dataclasses.fields(ChunkSettings)}
    return ChunkSettings(**{k: v for k, v in data.items() if k in names})


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _progress(items: Sequence[Path], enabled: bool) -> Iterable[Path]:
    if not enabled:
        return items
    from tqdm.auto import tqdm

    return tqdm(items, desc="files", unit="file")


def _record_for(document: ParsedDocument, n_chunks: int) -> DocumentRecord:
    return DocumentRecord(
        name=document.name,
        path=document.path,
        content_hash=document.content_hash,
        pages=len(document.pages),
        chunks=n_chunks,
        printed_pages=tuple(p.printed_page for p in document.pages),
        reader_version=reader_version(document.path),
    )


def _existing_manifest(index_dir: Path) -> Manifest | None:
    try:
        return read_manifest(index_dir)
    except IndexNotFoundError:
        return None


def chunk_settings_for(
    index_dir: PathLike | None,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    rebuild: bool = False,
) -> ChunkSettings | None:
    """Chunk settings from a user's partial choice (None when nothing was chosen).

    Fields not given come from the existing index (unless ``rebuild``), else from the
    defaults, with the overlap a fifth of the chunk size (the paper's 120 of 600).
    """
    if max_tokens is None and overlap_tokens is None:
        return None
    manifest = None if rebuild else _existing_manifest(resolve_index_dir(index_dir))
    if manifest is not None and manifest.chunk_settings:
        base = settings_from_dict(manifest.chunk_settings)
    else:
        base = ChunkSettings()
        if max_tokens is not None and overlap_tokens is None:
            overlap_tokens = max_tokens // 5
    return dataclasses.replace(
        base,
        max_tokens=base.max_tokens if max_tokens is None else max_tokens,
        overlap_tokens=base.overlap_tokens if overlap_tokens is None else overlap_tokens,
    )


def ingest_paths(
    paths: Sequence[PathLike],
    index_dir: PathLike | None = None,
    embedding_model: str | None = None,
    chunk_settings: ChunkSettings | None = None,
    progress: bool = False,
    rebuild: bool = False,
    embedder: Embedder | None = None,
    limits: IngestLimits = DEFAULT_LIMITS,
    allowed_roots: Sequence[Path] | None = None,
) -> IngestSummary:
    """Index the files and folders in ``paths`` into ``index_dir`` (see the module docstring).

    Args:
        paths: files and/or folders (searched recursively).
        index_dir: the index folder (``resolve_index_dir`` rules).
        embedding_model: embedding model name; None means the existing index's model, or
            ``all-MiniLM-L6-v2`` for a new index.
        chunk_settings: None means the existing index's settings, or the defaults.
        progress: show tqdm bars for files and for embedding.
        rebuild: discard the existing index (needed to change model or chunk settings).
        embedder: an already-built embedder (tests, reuse); its ``name`` is the model name.
        limits: per-file bounds (size, pages, parse time, chunks); a file over one is
            reported in ``skipped`` and the rest is indexed.
        allowed_roots: when given, a file found in a folder that resolves (through a
            symbolic link) outside every one of these folders is skipped unread.

    Raises:
        IncompatibleIndexError: the existing index uses another model, dimension, chunk
            settings or format version and ``rebuild`` is False.

    The whole read-modify-write holds the index's writer lock (across processes), so
    concurrent writers cannot lose each other's documents.
    """
    with writer_lock(index_dir):
        started = time.perf_counter()
        folder = resolve_index_dir(index_dir)
        summary = IngestSummary(index_dir=str(folder))
        manifest = None if rebuild else _existing_manifest(folder)

        model_name = embedder.name if embedder is not None else embedding_model
        if model_name is None:
            model_name = manifest.embedding_model if manifest else DEFAULT_EMBEDDING_MODEL
        if chunk_settings is None:
            if manifest is not None and manifest.chunk_settings:
                chunk_settings = settings_from_dict(manifest.chunk_settings)
            else:
                chunk_settings = ChunkSettings()
        settings = settings_to_dict(chunk_settings)
        if manifest is not None:
            check_compatible(manifest, model_name, embedder.dimension if embedder else None)
            if manifest.chunk_settings != settings:
                raise IncompatibleIndexError(
                    f"index built with chunk settings {manifest.chunk_settings}, you asked for "
                    f"{settings}; re-ingest with --rebuild or keep the index's settings"
                )

        files, discovery_skips = discover_documents([Path(p) for p in paths])
        summary.skipped.extend((str(p), reason) for p, reason in discovery_skips)
        if allowed_roots is not None:
            roots = [root.resolve() for root in allowed_roots]
            inside = {f: any(f.resolve().is_relative_to(r) for r in roots) for f in files}
            summary.skipped.extend((str(f), OUTSIDE_ROOTS) for f, ok in inside.items() if not ok)
            files = [f for f in files if inside[f]]
        summary.files_seen = len(files)

        new_docs: list[_NewDocument] = []
        seen_names: dict[str, Path] = {}
        for file in _progress(files, progress):
            name = file.name
            if name in seen_names:
                summary.skipped.append(
                    (
                        str(file),
                        f"another file named {name} ({seen_names[name]}) is in this ingest; "
                        "documents are identified by file name, rename one to index both",
                    )
                )
                continue
            seen_names[name] = file
            old = manifest.document(name) if manifest else None
            try:
                if (
                    old is not None
                    and old.reader_version == reader_version(file)
                    and file_sha256(file) == old.content_hash
                ):
                    summary.unchanged_docs.append(name)
                    continue
                document = parse_within_limits(file, limits)
            except ParsingError as exc:
                summary.skipped.append((str(file), exc.reason))
                continue
            except OSError as exc:
                summary.skipped.append((str(file), f"cannot read file: {exc.strerror or exc}"))
                continue
            if document.encoding not in (None, "utf-8"):
                summary.encodings[name] = document.encoding
            if embedder is None:
                embedder = get_embedder(model_name)
                if manifest is not None:
                    check_compatible(manifest, model_name, embedder.dimension)
            chunks = chunk_document(document, chunk_settings, embedder.count_tokens)
            if not chunks:
                summary.skipped.append((str(file), "no text to index"))
                continue
            if limits.max_chunks_per_file is not None and len(chunks) > limits.max_chunks_per_file:
                reason = (
                    f"{len(chunks):,} chunks, over the limit of {limits.max_chunks_per_file:,} "
                    "(--max-chunks-per-file)"
                )
                summary.skipped.append((str(file), reason))
                continue
            new_docs.append(_NewDocument(_record_for(document, len(chunks)), chunks))
            (summary.replaced_docs if old is not None else summary.added_docs).append(name)
            summary.pages += len(document.pages)
            summary.chunks += len(chunks)

        summary.added = len(summary.added_docs)
        summary.replaced = len(summary.replaced_docs)
        summary.unchanged = len(summary.unchanged_docs)
        existing = None
        if manifest is not None and (new_docs or _lacks_sentence_vectors(folder)):
            if embedder is None:
                embedder = get_embedder(model_name)
            existing = read_index(folder, embedding_model=model_name, dimension=embedder.dimension)
        if not new_docs and (existing is None or existing.sentence_vectors is not None):
            summary.total_chunks_in_index = manifest.total_chunks if manifest else 0
            summary.seconds = time.perf_counter() - started
            return summary
        # Set by the first new document, or above for an index without sentence vectors.
        assert embedder is not None
        if not new_docs and existing is not None:
            # Nothing changed, but the index predates stored sentence vectors: add them.
            combined = dataclasses.replace(
                existing,
                sentence_vectors=_sentence_vectors_for(embedder, existing.chunks, progress),
            )
        else:
            combined = _with_new_documents(
                existing, new_docs, embedder, model_name, settings, progress
            )
        summary.sentence_vectors_added = existing is not None and existing.sentence_vectors is None
        generation = write_index(folder, combined)
        summary.generation = generation.name
        summary.total_chunks_in_index = len(combined.chunks)
        summary.seconds = time.perf_counter() - started
        return summary


def _with_new_documents(
    existing: IndexData | None,
    new_docs: Sequence[_NewDocument],
    embedder: Embedder,
    model_name: str,
    settings: dict[str, Any],
    progress: bool,
) -> IndexData:
    """``existing`` (None for a new index) without the documents named in ``new_docs``,
    followed by ``new_docs`` embedded now."""
    new_chunks = [c for d in new_docs for c in d.chunks]
    logger.info("embedding %d chunks from %d documents", len(new_chunks), len(new_docs))
    vectors, sentence_vectors = embed_chunks(
        embedder, [c.text for c in new_chunks], show_progress=progress
    )
    new_part = IndexData(
        manifest=Manifest(
            embedding_model=model_name,
            dimension=embedder.dimension,
            chunk_settings=settings,
            documents=tuple(d.record for d in new_docs),
        ),
        chunks=new_chunks,
        dense=DenseIndex(vectors),
        bm25=BM25Index.build(c.text for c in new_chunks),
        sentence_vectors=sentence_vectors,
    )
    if existing is None:
        return new_part
    kept = _without_documents(existing, {d.record.name for d in new_docs})
    if kept.sentence_vectors is None:
        # An index written before sentence vectors existed: this write adds them.
        kept = dataclasses.replace(
            kept, sentence_vectors=_sentence_vectors_for(embedder, kept.chunks, progress)
        )
    return _concatenate(kept, new_part)


def _lacks_sentence_vectors(folder: Path) -> bool:
    """The live generation predates stored sentence vectors (the next ingest adds them)."""
    return not has_sentence_vectors(current_generation(folder))


def _sentence_vectors_for(
    embedder: Embedder, chunks: Sequence[Chunk], progress: bool = False
) -> SentenceVectors:
    """Embeddings of every chunk's sentences, for trimming sources at question time."""
    if chunks:
        logger.info("embedding the sentences of %d chunks", len(chunks))
    return embed_sentences(embedder, [c.text for c in chunks], show_progress=progress)


def _without_documents(data: IndexData, names: set[str]) -> IndexData:
    """``data`` minus the named documents (rows of the others, in their order)."""
    rows = np.array([i for i, c in enumerate(data.chunks) if c.doc not in names], dtype=np.int64)
    manifest = dataclasses.replace(
        data.manifest, documents=tuple(d for d in data.manifest.documents if d.name not in names)
    )
    sentences = data.sentence_vectors
    return IndexData(
        manifest=manifest,
        chunks=[data.chunks[i] for i in rows],
        dense=DenseIndex(data.dense.embeddings[rows].reshape(-1, data.dense.dimension)),
        bm25=data.bm25.select_rows(rows),
        sentence_vectors=sentences.select_rows(rows) if sentences is not None else None,
    )


def _concatenate(first: IndexData, second: IndexData) -> IndexData:
    manifest = dataclasses.replace(
        second.manifest, documents=first.manifest.documents + second.manifest.documents
    )
    sentences = None
    if first.sentence_vectors is not None and second.sentence_vectors is not None:
        sentences = SentenceVectors.concatenate([first.sentence_vectors, second.sentence_vectors])
    return IndexData(
        manifest=manifest,
        chunks=first.chunks + second.chunks,
        dense=DenseIndex(np.vstack([first.dense.embeddings, second.dense.embeddings])),
        bm25=BM25Index.concatenate([first.bm25, second.bm25]),
        sentence_vectors=sentences,
    )


def remove_documents(names: Sequence[str], index_dir: PathLike | None = None) -> list[str]:
    """Remove documents by name (a path is reduced to its file name); returns those removed.

    Names not in the index are ignored; nothing is written when nothing is removed.
    """
    folder = resolve_index_dir(index_dir)
    read_manifest(folder)  # a clear error, before any lock file is created, if there is no index
    with writer_lock(folder):
        return _remove_documents_locked(names, folder)


def _remove_documents_locked(names: Sequence[str], folder: Path) -> list[str]:
    data = read_index(folder)
    indexed = {d.name for d in data.manifest.documents}
    wanted = {Path(n).name for n in names} | set(names)
    removed = [d.name for d in data.manifest.documents if d.name in wanted]
    if not removed:
        return []
    write_index(folder, _without_documents(data, set(removed) & indexed))
    return removed
