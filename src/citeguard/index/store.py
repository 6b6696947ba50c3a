"""The on-disk index: generations, an atomic ``CURRENT`` pointer, and compatibility checks.

Layout (default folder ``.citeguard/`` in the working directory)::

    .citeguard/
      CURRENT                 one line: the name of the live generation, e.g. "gen-000007"
      gen-000007/
        manifest.json         format version, embedding model, dimension, chunk settings,
                              one record per document (written last)
        chunks.jsonl          one Chunk per line, in row order
        embeddings.npy        float32 (rows, dimension), L2-normalized
        dense.faiss           FAISS IndexFlatIP over the same rows
        bm25.npz, bm25_vocab.json   BM25 term counts and vocabulary
        sentence_vectors.npy, sentence_rows.npz   embeddings of each chunk's sentences
                              (optional: indexes written before them load without them)

Writing never touches the live generation: a new version goes into a fresh folder whose
number is above every existing one, every file is flushed to disk, then ``CURRENT`` is
replaced atomically (temp file + ``os.replace``) and older generations are deleted. A crash
at any point before the switch leaves ``CURRENT`` naming the previous, complete generation;
the half-written folder is never read and is removed by the next successful write.
Readers only follow ``CURRENT``. One writer at a time is assumed (the CLI is the writer).

Nothing is pickled: JSON, numpy ``.npy``/``.npz`` (loaded with ``allow_pickle=False``) and
FAISS's own format.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from citeguard import environment
from citeguard.atomic_files import exclusive_lock
from citeguard.documents import Chunk
from citeguard.errors import IncompatibleIndexError, IndexNotFoundError, IndexStoreError
from citeguard.index.bm25 import BM25Index
from citeguard.index.dense import DenseIndex
from citeguard.index.sentence_vectors import SentenceVectors

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
DEFAULT_INDEX_DIR = ".citeguard"
CURRENT_FILE = "CURRENT"
MANIFEST_FILE = "manifest.json"
CHUNKS_FILE = "chunks.jsonl"
EMBEDDINGS_FILE = "embeddings.npy"
FAISS_FILE = "dense.faiss"
BM25_FILE = "bm25.npz"
BM25_VOCAB_FILE = "bm25_vocab.json"
SENTENCE_VECTORS_FILE = "sentence_vectors.npy"
SENTENCE_ROWS_FILE = "sentence_rows.npz"
_GENERATION_RE = re.compile(r"^gen-(\d{6,})$")


def resolve_index_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The index folder: ``path`` if given, else ``$CITEGUARD_INDEX``, else ``./.citeguard``."""
    if path is not None and str(path) != "":
        return Path(path).expanduser()
    configured = environment.index_dir()
    if configured is not None:
        return configured
    return Path.cwd() / DEFAULT_INDEX_DIR


@dataclass(frozen=True)
class DocumentRecord:
    """What the manifest remembers about one indexed document."""

    name: str
    """The document's identity in the index (its file name)."""
    path: str
    content_hash: str
    pages: int
    chunks: int
    printed_pages: tuple[str, ...]
    """Printed page label of each PDF page, in order."""
    reader_version: int = 1
    """The version of the reader that made its text (``ingest.parsing.reader_version``;
    1 in indexes written before versions were recorded)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["printed_pages"] = list(self.printed_pages)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DocumentRecord:
        return cls(
            name=str(data["name"]),
            path=str(data["path"]),
            content_hash=str(data["content_hash"]),
            pages=int(data["pages"]),
            chunks=int(data["chunks"]),
            printed_pages=tuple(str(p) for p in data.get("printed_pages", [])),
            reader_version=int(data.get("reader_version", 1)),
        )


@dataclass(frozen=True)
class Manifest:
    """The index's description; ``documents`` are in row order (each document's chunks are
    contiguous rows)."""

    embedding_model: str
    dimension: int
    chunk_settings: dict[str, Any]
    documents: tuple[DocumentRecord, ...] = ()
    format_version: int = FORMAT_VERSION
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    @property
    def total_chunks(self) -> int:
        return sum(d.chunks for d in self.documents)

    def document(self, name: str) -> DocumentRecord | None:
        for record in self.documents:
            if record.name == name:
                return record
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "embedding_model": self.embedding_model,
            "dimension": self.dimension,
            "chunk_settings": self.chunk_settings,
            "created_at": self.created_at,
            "documents": [d.to_json() for d in self.documents],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            format_version=int(data["format_version"]),
            embedding_model=str(data["embedding_model"]),
            dimension=int(data["dimension"]),
            chunk_settings=dict(data.get("chunk_settings") or {}),
            created_at=str(data.get("created_at", "")),
            documents=tuple(DocumentRecord.from_json(d) for d in data.get("documents", [])),
        )


@dataclass
class IndexData:
    """A whole index in memory: row ``i`` of every part describes ``chunks[i]``."""

    manifest: Manifest
    chunks: list[Chunk]
    dense: DenseIndex
    bm25: BM25Index
    sentence_vectors: SentenceVectors | None = None
    """Embeddings of each chunk's sentences; None in indexes written before they were."""
    folder: Path | None = None
    """The generation folder it was read from (None: built in memory, not read)."""

    def __post_init__(self) -> None:
        n = len(self.chunks)
        if len(self.dense) != n or self.bm25.n_docs != n or self.manifest.total_chunks != n:
            raise IndexStoreError(
                f"inconsistent index: {n} chunks, {len(self.dense)} embeddings, "
                f"{self.bm25.n_docs} BM25 rows, manifest counts {self.manifest.total_chunks}"
            )
        if self.sentence_vectors is not None and self.sentence_vectors.rows != n:
            raise IndexStoreError(
                f"inconsistent index: {n} chunks, sentence vectors for {self.sentence_vectors.rows}"
            )
        if n and self.dense.dimension != self.manifest.dimension:
            raise IndexStoreError(
                f"inconsistent index: embeddings have dimension {self.dense.dimension}, "
                f"manifest says {self.manifest.dimension}"
            )


# --------------------------------------------------------------------------- reading
def current_generation(index_dir: Path) -> Path:
    """The live generation folder; IndexNotFoundError when there is none."""
    pointer = index_dir / CURRENT_FILE
    try:
        name = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise IndexNotFoundError(
            f"no index at {index_dir}; run `citeguard ingest PATH` first"
        ) from None
    if not _GENERATION_RE.match(name):
        raise IndexStoreError(f"corrupt index at {index_dir}: {CURRENT_FILE} holds {name!r}")
    generation = index_dir / name
    if not (generation / MANIFEST_FILE).is_file():
        raise IndexStoreError(
            f"corrupt index at {index_dir}: {CURRENT_FILE} names {name}, which is incomplete; "
            "re-ingest with --rebuild"
        )
    return generation


def read_manifest(index_dir: str | os.PathLike[str] | None = None) -> Manifest:
    """The live generation's manifest (cheap: reads one small file)."""
    folder = resolve_index_dir(index_dir)
    generation = current_generation(folder)
    return _read_manifest_file(generation / MANIFEST_FILE)


def _read_manifest_file(path: Path) -> Manifest:
    try:
        return Manifest.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (KeyError, ValueError, TypeError) as exc:
        raise IndexStoreError(f"corrupt manifest {path}: {exc}") from exc


def check_compatible(
    manifest: Manifest,
    embedding_model: str | None = None,
    dimension: int | None = None,
) -> None:
    """Raise IncompatibleIndexError unless the index matches the requested model settings."""
    if manifest.format_version != FORMAT_VERSION:
        raise IncompatibleIndexError(
            f"index has format version {manifest.format_version}, this CiteGuard reads version "
            f"{FORMAT_VERSION}; re-ingest with --rebuild"
        )
    if embedding_model is not None and embedding_model != manifest.embedding_model:
        raise IncompatibleIndexError(
            f"index built with {manifest.embedding_model}, you asked for {embedding_model}; "
            f"re-ingest with --rebuild or use --embedding-model {manifest.embedding_model}"
        )
    if dimension is not None and dimension != manifest.dimension:
        raise IncompatibleIndexError(
            f"index built with {manifest.embedding_model} ({manifest.dimension} dimensions), "
            f"your embedding model gives {dimension}; re-ingest with --rebuild or use "
            f"--embedding-model {manifest.embedding_model}"
        )


def read_index(
    index_dir: str | os.PathLike[str] | None = None,
    embedding_model: str | None = None,
    dimension: int | None = None,
) -> IndexData:
    """Load the live generation, checking it against the requested model (when given)."""
    folder = resolve_index_dir(index_dir)
    # A concurrent writer may delete the generation we just resolved; one retry follows
    # the new pointer.
    for attempt in range(2):
        generation = current_generation(folder)
        try:
            return _read_generation(generation, embedding_model, dimension)
        except FileNotFoundError:
            if attempt == 1:
                raise IndexStoreError(
                    f"corrupt index at {folder}: files of {generation.name} are missing; "
                    "re-ingest with --rebuild"
                ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def _read_generation(
    generation: Path, embedding_model: str | None, dimension: int | None
) -> IndexData:
    manifest = _read_manifest_file(generation / MANIFEST_FILE)
    check_compatible(manifest, embedding_model, dimension)
    chunks = []
    with open(generation / CHUNKS_FILE, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                chunks.append(Chunk.from_json(json.loads(line)))
    try:
        dense = DenseIndex.load(generation / FAISS_FILE, generation / EMBEDDINGS_FILE)
        bm25 = BM25Index.load(generation / BM25_FILE, generation / BM25_VOCAB_FILE)
    except (ValueError, RuntimeError, KeyError) as exc:
        raise IndexStoreError(f"corrupt index files in {generation}: {exc}") from exc
    return IndexData(
        manifest=manifest,
        chunks=chunks,
        dense=dense,
        bm25=bm25,
        sentence_vectors=_read_sentence_vectors(generation, len(chunks)),
        folder=generation,
    )


def has_sentence_vectors(generation: Path) -> bool:
    """Both sentence-vector files are there (an index written before them has neither)."""
    return (generation / SENTENCE_VECTORS_FILE).is_file() and (
        generation / SENTENCE_ROWS_FILE
    ).is_file()


def _read_sentence_vectors(generation: Path, rows: int) -> SentenceVectors | None:
    """The generation's sentence vectors, or None when it has none or they are unusable.

    They only spare embedding work at question time, so a damaged copy is reported and
    ignored rather than making the whole index unreadable.
    """
    if not has_sentence_vectors(generation):
        return None
    try:
        vectors = SentenceVectors.load(
            generation / SENTENCE_VECTORS_FILE, generation / SENTENCE_ROWS_FILE
        )
        if vectors.rows != rows:
            raise ValueError(f"they cover {vectors.rows} chunks, the index has {rows}")
    except (ValueError, OSError) as exc:
        logger.warning(
            "ignoring the sentence vectors of %s (%s): sources are embedded while answering "
            "until `citeguard ingest --rebuild` rewrites them",
            generation,
            exc,
        )
        return None
    return vectors


# --------------------------------------------------------------------------- writing
def _generation_numbers(index_dir: Path) -> list[int]:
    numbers = []
    if index_dir.is_dir():
        for entry in index_dir.iterdir():
            match = _GENERATION_RE.match(entry.name)
            if match:
                numbers.append(int(match.group(1)))
    return numbers


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    # Makes renames/creations in ``path`` durable; not possible on every platform.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_chunks(generation: Path, chunks: Sequence[Chunk]) -> None:
    with open(generation / CHUNKS_FILE, "w", encoding="utf-8") as fh:
        for chunk in chunks:
            fh.write(json.dumps(chunk.to_json(), ensure_ascii=False))
            fh.write("\n")


def _write_dense(generation: Path, dense: DenseIndex) -> None:
    dense.save(generation / FAISS_FILE, generation / EMBEDDINGS_FILE)


def _write_bm25(generation: Path, bm25: BM25Index) -> None:
    bm25.save(generation / BM25_FILE, generation / BM25_VOCAB_FILE)


def _write_manifest(generation: Path, manifest: Manifest) -> None:
    text = json.dumps(manifest.to_json(), indent=2, ensure_ascii=False)
    (generation / MANIFEST_FILE).write_text(text, encoding="utf-8")


def _switch_current(index_dir: Path, generation_name: str) -> None:
    tmp = index_dir / f"{CURRENT_FILE}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(generation_name + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, index_dir / CURRENT_FILE)
    _fsync_dir(index_dir)


def _remove_other_generations(index_dir: Path, keep: str) -> None:
    for entry in index_dir.iterdir():
        if entry.name != keep and _GENERATION_RE.match(entry.name) and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        elif entry.name.startswith(f"{CURRENT_FILE}.tmp-"):
            entry.unlink(missing_ok=True)


LOCK_FILE = ".writer.lock"


@contextlib.contextmanager
def writer_lock(index_dir: str | os.PathLike[str] | None) -> Iterator[Path]:
    """Hold the index's writer lock (across processes) for a read-modify-write.

    Two writers (a CLI ingest beside a server's indexer run, say) would otherwise both
    build on the same old generation, and the later one would drop the other's documents.
    Readers need no lock: they follow ``CURRENT``. Yields the index folder (created).
    """
    folder = resolve_index_dir(index_dir)
    with exclusive_lock(folder / LOCK_FILE):
        yield folder


def write_index(index_dir: str | os.PathLike[str] | None, data: IndexData) -> Path:
    """Write ``data`` as a new generation and make it live; returns the generation folder."""
    folder = resolve_index_dir(index_dir)
    folder.mkdir(parents=True, exist_ok=True)
    number = max(_generation_numbers(folder), default=0) + 1
    generation = folder / f"gen-{number:06d}"
    generation.mkdir()
    try:
        _write_chunks(generation, data.chunks)
        _write_dense(generation, data.dense)
        _write_bm25(generation, data.bm25)
        if data.sentence_vectors is not None:
            data.sentence_vectors.save(
                generation / SENTENCE_VECTORS_FILE, generation / SENTENCE_ROWS_FILE
            )
        # The manifest goes last: a generation without one is incomplete by definition.
        _write_manifest(generation, data.manifest)
        for path in generation.iterdir():
            _fsync_file(path)
        _fsync_dir(generation)
    except BaseException:
        shutil.rmtree(generation, ignore_errors=True)
        raise
    _switch_current(folder, generation.name)
    _remove_other_generations(folder, keep=generation.name)
    logger.info(
        "wrote index generation %s (%d chunks) to %s", generation.name, len(data.chunks), folder
    )
    return generation


def empty_index(embedding_model: str, dimension: int, chunk_settings: dict[str, Any]) -> IndexData:
    """An index with no documents (what removing the last document leaves)."""
    return IndexData(
        manifest=Manifest(
            embedding_model=embedding_model, dimension=dimension, chunk_settings=chunk_settings
        ),
        chunks=[],
        dense=DenseIndex(np.zeros((0, dimension), dtype=np.float32)),
        bm25=BM25Index.from_tokens([]),
        sentence_vectors=SentenceVectors.empty(dimension),
    )
