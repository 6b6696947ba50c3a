"""On-disk index: location, round trip, atomic generations, compatibility errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from citeguard.documents import Chunk
from citeguard.errors import IncompatibleIndexError, IndexNotFoundError
from citeguard.index import store
from citeguard.index.bm25 import BM25Index, tokenize
from citeguard.index.dense import DenseIndex, HashingEmbedder
from citeguard.index.sentence_vectors import SentenceVectors
from citeguard.index.store import (
    DocumentRecord,
    IndexData,
    Manifest,
    read_index,
    read_manifest,
    resolve_index_dir,
    write_index,
)

EMBEDDER = HashingEmbedder(dimension=32)


def make_index(texts_by_doc: dict[str, list[str]]) -> IndexData:
    chunks: list[Chunk] = []
    records = []
    for doc, texts in texts_by_doc.items():
        offset = 0
        for i, text in enumerate(texts):
            chunks.append(
                Chunk(
                    chunk_id=f"{doc}#{i}",
                    doc=doc,
                    text=text,
                    pdf_pages=(i + 1, i + 1),
                    printed_pages=(str(i + 1), str(i + 1)),
                    char_start=offset,
                    char_end=offset + len(text),
                    metadata={"section": "1"},
                )
            )
            offset += len(text) + 2
        records.append(
            DocumentRecord(
                name=doc,
                path=f"/data/{doc}",
                content_hash=f"hash-{doc}",
                pages=len(texts),
                chunks=len(texts),
                printed_pages=tuple(str(i + 1) for i in range(len(texts))),
            )
        )
    texts = [c.text for c in chunks]
    return IndexData(
        manifest=Manifest(
            embedding_model=EMBEDDER.name,
            dimension=EMBEDDER.dimension,
            chunk_settings={"max_tokens": 600, "overlap_tokens": 120},
            documents=tuple(records),
        ),
        chunks=chunks,
        dense=DenseIndex(EMBEDDER.embed_documents(texts)),
        bm25=BM25Index.build(texts),
        sentence_vectors=SentenceVectors.build(texts, EMBEDDER.embed_documents, EMBEDDER.dimension),
    )


FIRST = {"lease.txt": ["Rent is due on the first day.", "The landlord may terminate."]}
SECOND = {"nda.txt": ["Confidential information shall not be disclosed."]}


def generations(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("gen-"))


def test_resolve_index_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEGUARD_INDEX", raising=False)
    monkeypatch.chdir(tmp_path)
    assert resolve_index_dir(None) == tmp_path / ".citeguard"
    monkeypatch.setenv("CITEGUARD_INDEX", str(tmp_path / "env-index"))
    assert resolve_index_dir(None) == tmp_path / "env-index"
    assert resolve_index_dir(str(tmp_path / "arg")) == tmp_path / "arg"


def test_round_trip(tmp_path: Path) -> None:
    data = make_index(FIRST | SECOND)
    generation = write_index(tmp_path, data)
    assert (tmp_path / "CURRENT").read_text().strip() == generation.name
    loaded = read_index(tmp_path, embedding_model=EMBEDDER.name, dimension=EMBEDDER.dimension)
    assert loaded.chunks == data.chunks
    assert loaded.manifest == data.manifest
    assert np.array_equal(loaded.dense.embeddings, data.dense.embeddings)
    assert loaded.dense.faiss_index.ntotal == 3
    q = tokenize("landlord terminate rent")
    assert np.array_equal(loaded.bm25.get_scores(q), data.bm25.get_scores(q))
    assert loaded.sentence_vectors is not None and data.sentence_vectors is not None
    # Written in float16 (half the bytes); equal to about three decimal places.
    assert loaded.sentence_vectors.vectors.dtype == np.float16
    np.testing.assert_allclose(
        loaded.sentence_vectors.vectors, data.sentence_vectors.vectors, atol=2e-3
    )
    assert np.array_equal(loaded.sentence_vectors.offsets, data.sentence_vectors.offsets)
    manifest = json.loads((generation / "manifest.json").read_text())
    assert manifest["documents"][0] == {
        "name": "lease.txt",
        "path": "/data/lease.txt",
        "content_hash": "hash-lease.txt",
        "pages": 2,
        "chunks": 2,
        "printed_pages": ["1", "2"],
        "reader_version": 1,
    }
    assert {"format_version", "embedding_model", "dimension", "chunk_settings"} <= set(manifest)


def test_a_new_write_replaces_the_old_generation(tmp_path: Path) -> None:
    write_index(tmp_path, make_index(FIRST))
    second = write_index(tmp_path, make_index(FIRST | SECOND))
    assert generations(tmp_path) == [second.name]
    assert [c.doc for c in read_index(tmp_path).chunks] == ["lease.txt", "lease.txt", "nda.txt"]


def test_crash_mid_write_keeps_the_previous_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write_index(tmp_path, make_index(FIRST))

    def explode(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store, "_write_bm25", explode)
    with pytest.raises(OSError, match="disk full"):
        write_index(tmp_path, make_index(FIRST | SECOND))
    assert (tmp_path / "CURRENT").read_text().strip() == first.name
    assert generations(tmp_path) == [first.name]
    assert [c.doc for c in read_index(tmp_path).chunks] == ["lease.txt", "lease.txt"]


def test_a_half_written_generation_left_by_a_killed_process_is_ignored(tmp_path: Path) -> None:
    first = write_index(tmp_path, make_index(FIRST))
    # A process killed after writing some files: a higher-numbered folder without manifest.
    half = tmp_path / "gen-000042"
    half.mkdir()
    (half / "chunks.jsonl").write_text('{"broken": ')
    assert [c.doc for c in read_index(tmp_path).chunks] == ["lease.txt", "lease.txt"]
    assert read_manifest(tmp_path).documents[0].name == "lease.txt"
    newer = write_index(tmp_path, make_index(SECOND))
    assert newer.name == "gen-000043"  # never reuses a folder a crashed writer touched
    assert generations(tmp_path) == ["gen-000043"]
    assert first.name not in generations(tmp_path)


def test_missing_index_error_names_the_folder_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="run `citeguard ingest PATH` first") as info:
        read_index(tmp_path / "nothing")
    assert str(tmp_path / "nothing") in str(info.value)


def test_other_embedding_model_is_incompatible(tmp_path: Path) -> None:
    write_index(tmp_path, make_index(FIRST))
    with pytest.raises(IncompatibleIndexError) as info:
        read_index(tmp_path, embedding_model="all-mpnet-base-v2")
    message = str(info.value)
    assert "index built with hashing-test, you asked for all-mpnet-base-v2" in message
    assert "--rebuild" in message and "--embedding-model hashing-test" in message
    with pytest.raises(IncompatibleIndexError, match="32 dimensions"):
        read_index(tmp_path, dimension=384)


def test_other_format_version_is_incompatible(tmp_path: Path) -> None:
    generation = write_index(tmp_path, make_index(FIRST))
    manifest = json.loads((generation / "manifest.json").read_text())
    manifest["format_version"] = 999
    (generation / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IncompatibleIndexError, match="format version 999"):
        read_index(tmp_path)


def test_empty_index_round_trip(tmp_path: Path) -> None:
    write_index(tmp_path, store.empty_index("hashing-test", 32, {}))
    loaded = read_index(tmp_path)
    assert loaded.chunks == [] and len(loaded.dense) == 0 and loaded.bm25.n_docs == 0


@pytest.mark.parametrize("name", [store.SENTENCE_VECTORS_FILE, store.SENTENCE_ROWS_FILE])
def test_damaged_sentence_vectors_are_reported_and_the_index_still_loads(
    tmp_path: Path, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    data = make_index(FIRST)
    generation = write_index(tmp_path, data)
    (generation / name).write_bytes(b"PK\x03\x04 truncated")
    loaded = read_index(tmp_path)
    assert loaded.chunks == data.chunks and loaded.sentence_vectors is None
    assert "ignoring the sentence vectors" in caplog.text and "--rebuild" in caplog.text


def test_sentence_vectors_missing_one_file_count_as_absent(tmp_path: Path) -> None:
    generation = write_index(tmp_path, make_index(FIRST))
    assert store.has_sentence_vectors(generation)
    (generation / store.SENTENCE_ROWS_FILE).unlink()
    assert not store.has_sentence_vectors(generation)
    assert read_index(tmp_path).sentence_vectors is None


def test_sentence_vectors_of_another_chunk_count_are_inconsistent(tmp_path: Path) -> None:
    data = make_index(FIRST)
    with pytest.raises(store.IndexStoreError, match="sentence vectors for 1"):
        IndexData(
            manifest=data.manifest,
            chunks=data.chunks,
            dense=data.dense,
            bm25=data.bm25,
            sentence_vectors=SentenceVectors.build(["One."], EMBEDDER.embed_documents, 32),
        )


def test_a_manifest_written_before_reader_versions_reads_as_version_one() -> None:
    record = store.DocumentRecord.from_json(
        {"name": "a.md", "path": "/d/a.md", "content_hash": "h", "pages": 1, "chunks": 1}
    )
    assert record.reader_version == 1
    assert store.DocumentRecord.from_json(record.to_json()) == record
