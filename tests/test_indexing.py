"""Ingest orchestration: incremental add / replace / unchanged / remove, errors, crash safety."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from citeguard.errors import IncompatibleIndexError, IndexNotFoundError
from citeguard.index import store
from citeguard.index.dense import HashingEmbedder
from citeguard.index.search import UnknownDocumentError, load_index
from citeguard.ingest.chunking import ChunkSettings
from citeguard.ingest.pipeline import IngestSummary, ingest_paths, remove_documents
from citeguard.text.sentences import sentence_texts

SETTINGS = ChunkSettings(max_tokens=40, overlap_tokens=8, min_chunk_tokens=3)

LEASE = """The tenant shall pay rent of 1,200 dollars on the first day of each month.
Late payment incurs a fee of fifty dollars after a grace period of five days.

The landlord may terminate this lease with thirty days written notice to the tenant.
The tenant may terminate with sixty days notice if relocated for employment.

The tenant may not sublet the premises or assign this lease without written consent.
Pets are allowed only with the landlord's prior approval and an additional deposit.
"""
NDA = """Confidential information shall not be disclosed to any third party.
The receiving party shall protect it with at least reasonable care.

This agreement is governed by the laws of the State of Delaware.
Obligations survive for three years after termination of this agreement.
"""
POLICY = """Employees accrue vacation days each month of continuous service.
Unused vacation days may be carried over into the next calendar year up to ten days.
"""


class RecordingEmbedder(HashingEmbedder):
    """A hashing embedder that remembers every text it embedded."""

    def __init__(self, name: str = "hashing-test", dimension: int = 64) -> None:
        super().__init__(dimension=dimension, name=name)
        self.calls: list[list[str]] = []

    @property
    def embedded(self) -> list[str]:
        return [text for call in self.calls for text in call]

    def embed_documents(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        self.calls.append(list(texts))
        return super().embed_documents(texts, show_progress)


def assert_sentence_vectors_match_chunks(index: Path) -> None:
    """Every chunk's stored sentence vectors are its sentences' embeddings, in row order."""
    data = store.read_index(index)
    assert data.sentence_vectors is not None
    assert data.sentence_vectors.rows == len(data.chunks)
    fresh = HashingEmbedder()
    for row, chunk in enumerate(data.chunks):
        expected = fresh.embed_documents(sentence_texts(chunk.text))
        # Stored in float16: equal to about three decimal places.
        np.testing.assert_allclose(data.sentence_vectors.for_row(row), expected, atol=2e-3)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "lease.txt").write_text(LEASE)
    (folder / "nda.txt").write_text(NDA)
    return folder


def ingest(
    paths: Sequence[Path],
    index: Path,
    embedder: HashingEmbedder,
    rebuild: bool = False,
    progress: bool = False,
) -> IngestSummary:
    return ingest_paths(
        paths, index, chunk_settings=SETTINGS, embedder=embedder, rebuild=rebuild, progress=progress
    )


def generations(index: Path) -> list[str]:
    return sorted(p.name for p in index.iterdir() if p.name.startswith("gen-"))


def test_first_ingest_indexes_every_file(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    embedder = RecordingEmbedder()
    summary = ingest([corpus], index, embedder)
    assert summary.files_seen == 2
    assert sorted(summary.added_docs) == ["lease.txt", "nda.txt"]
    assert summary.replaced_docs == [] and summary.unchanged_docs == [] and summary.skipped == []
    assert (summary.added, summary.replaced, summary.unchanged) == (2, 0, 0)
    assert summary.to_json()["added_docs"] == summary.added_docs
    assert summary.pages == 2
    assert summary.chunks == summary.total_chunks_in_index > 2
    # One call for the chunks, one for their sentences (for trimming at question time).
    assert len(embedder.calls[0]) == summary.chunks
    assert_sentence_vectors_match_chunks(index)
    manifest = store.read_manifest(index)
    assert manifest.embedding_model == "hashing-test"
    assert manifest.chunk_settings["max_tokens"] == 40
    assert [d.name for d in manifest.documents] == ["lease.txt", "nda.txt"]
    assert manifest.documents[0].path == str(corpus / "lease.txt")
    assert manifest.documents[0].printed_pages == ("1",)
    searcher = load_index(index, embedder=embedder)
    hits = searcher.search("governed by the laws of Delaware", k=1)
    assert hits[0].chunk.doc == "nda.txt" and "Delaware" in hits[0].chunk.text


def test_unchanged_files_do_nothing(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    before = generations(index)
    embedder = RecordingEmbedder()
    summary = ingest([corpus], index, embedder)
    assert sorted(summary.unchanged_docs) == ["lease.txt", "nda.txt"]
    assert summary.added_docs == [] and summary.replaced_docs == [] and summary.chunks == 0
    assert summary.generation is None
    assert embedder.embedded == []
    assert generations(index) == before


def test_the_only_file_of_an_index_is_replaced(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest([corpus / "nda.txt"], index, RecordingEmbedder())
    (corpus / "nda.txt").write_text(NDA.replace("Delaware", "Nevada"))
    summary = ingest([corpus / "nda.txt"], index, RecordingEmbedder())
    assert summary.replaced_docs == ["nda.txt"]
    searcher = load_index(index, embedder=RecordingEmbedder())
    texts = [hit.chunk.text for hit in searcher.search("laws of the State", k=10)]
    assert any("Nevada" in t for t in texts) and not any("Delaware" in t for t in texts)
    assert len(searcher) == summary.total_chunks_in_index


def test_a_file_read_by_an_older_reader_is_read_again(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index keeps each document's text: when the reader of its file type improves, the
    next ingest reads it again, though its bytes are the same; the others stay."""
    from citeguard.ingest import parsing

    index = tmp_path / "index"
    (corpus / "guide.md").write_text("# Guide\n\nRent is due monthly.\n")
    ingest([corpus], index, RecordingEmbedder())
    versions = {d.name: d.reader_version for d in store.read_manifest(index).documents}
    assert versions == {"guide.md": 1, "lease.txt": 1, "nda.txt": 1}
    monkeypatch.setitem(parsing.READER_VERSIONS, ".md", 2)
    embedder = RecordingEmbedder()
    summary = ingest([corpus], index, embedder)
    assert summary.replaced_docs == ["guide.md"]
    assert sorted(summary.unchanged_docs) == ["lease.txt", "nda.txt"]
    assert embedder.embedded and all("monthly" in t or "Guide" in t for t in embedder.embedded)
    assert store.read_manifest(index).documents[-1].reader_version == 2
    assert ingest([corpus], index, RecordingEmbedder()).unchanged == 3


def test_adding_a_file_embeds_only_that_file(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    first = ingest([corpus], index, RecordingEmbedder())
    (corpus / "policy.txt").write_text(POLICY)
    embedder = RecordingEmbedder()
    summary = ingest([corpus], index, embedder)
    assert summary.added_docs == ["policy.txt"]
    assert sorted(summary.unchanged_docs) == ["lease.txt", "nda.txt"]
    assert embedder.embedded and all("vacation" in t or "Employees" in t for t in embedder.embedded)
    assert summary.total_chunks_in_index == first.total_chunks_in_index + summary.chunks
    searcher = load_index(index, embedder=embedder)
    assert searcher.documents == ["lease.txt", "nda.txt", "policy.txt"]
    assert searcher.search("vacation carried over", k=1)[0].chunk.doc == "policy.txt"


def test_a_changed_file_is_replaced(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    (corpus / "nda.txt").write_text(NDA.replace("Delaware", "Nevada"))
    embedder = RecordingEmbedder()
    summary = ingest([corpus], index, embedder)
    assert summary.replaced_docs == ["nda.txt"] and summary.unchanged_docs == ["lease.txt"]
    assert (summary.added, summary.replaced, summary.unchanged) == (0, 1, 1)
    assert all("Nevada" in t or "Delaware" not in t for t in embedder.embedded)
    assert not any("tenant" in t for t in embedder.embedded)
    searcher = load_index(index, embedder=embedder)
    assert searcher.search("Delaware", k=5, mode="lexical") == []
    assert "Nevada" in searcher.search("Nevada", k=1, mode="lexical")[0].chunk.text
    assert len(searcher) == summary.total_chunks_in_index


def test_incremental_index_scores_like_a_fresh_build(corpus: Path, tmp_path: Path) -> None:
    incremental = tmp_path / "incremental"
    ingest([corpus / "lease.txt"], incremental, RecordingEmbedder())
    ingest([corpus], incremental, RecordingEmbedder())
    (corpus / "lease.txt").write_text(LEASE.replace("sixty", "ninety"))
    ingest([corpus], incremental, RecordingEmbedder())
    fresh = tmp_path / "fresh"
    ingest([corpus], fresh, RecordingEmbedder())
    query = "tenant terminate ninety days notice"
    a = {h.chunk.chunk_id: h for h in load_index(incremental).search(query, k=50, mode="lexical")}
    b = {h.chunk.chunk_id: h for h in load_index(fresh).search(query, k=50, mode="lexical")}
    assert a.keys() == b.keys()
    for chunk_id, hit in a.items():
        assert hit.lexical_score == pytest.approx(b[chunk_id].lexical_score, rel=1e-12)


def test_remove_documents(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    before = generations(index)
    assert remove_documents(["unknown.pdf"], index) == []
    assert generations(index) == before  # nothing removed, nothing written
    assert remove_documents([str(corpus / "nda.txt")], index) == ["nda.txt"]
    searcher = load_index(index, embedder=HashingEmbedder())
    assert searcher.documents == ["lease.txt"]
    with pytest.raises(UnknownDocumentError):
        searcher.search("Delaware", docs=["nda.txt"])
    assert remove_documents(["lease.txt"], index) == ["lease.txt"]
    assert len(load_index(index)) == 0


def test_sentence_vectors_follow_their_chunks_through_add_replace_and_remove(
    corpus: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    (corpus / "policy.txt").write_text(POLICY)
    (corpus / "nda.txt").write_text(NDA.replace("Delaware", "Nevada"))
    ingest([corpus], index, RecordingEmbedder())
    assert_sentence_vectors_match_chunks(index)
    assert remove_documents(["lease.txt"], index) == ["lease.txt"]
    assert_sentence_vectors_match_chunks(index)
    searcher = load_index(index, embedder=HashingEmbedder())
    nda = next(c for c in searcher.chunks if "Nevada" in c.text)
    found = searcher.stored_sentence_vectors(nda.chunk_id)
    assert found is not None and found[0] == nda.text
    assert len(found[1]) == len(sentence_texts(nda.text))
    assert searcher.stored_sentence_vectors("no-such-chunk") is None


def index_without_sentence_vectors(corpus: Path, tmp_path: Path) -> Path:
    """An index of ``corpus`` as a CiteGuard from before stored sentence vectors wrote it."""
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    generation = store.current_generation(index)
    (generation / store.SENTENCE_VECTORS_FILE).unlink()
    (generation / store.SENTENCE_ROWS_FILE).unlink()
    return index


def test_an_index_without_sentence_vectors_loads_and_the_next_ingest_adds_them(
    corpus: Path, tmp_path: Path
) -> None:
    index = index_without_sentence_vectors(corpus, tmp_path)
    searcher = load_index(index, embedder=HashingEmbedder())
    assert searcher.sentence_vectors is None
    assert searcher.stored_sentence_vectors(searcher.chunks[0].chunk_id) is None
    assert searcher.search("governed by the laws of Delaware", k=1)[0].chunk.doc == "nda.txt"

    before = generations(index)
    embedder = RecordingEmbedder()
    summary = ingest([corpus], index, embedder)
    assert sorted(summary.unchanged_docs) == ["lease.txt", "nda.txt"] and summary.chunks == 0
    assert summary.generation is not None and generations(index) != before
    assert summary.sentence_vectors_added
    # Only sentences were embedded: the chunks' own vectors were kept.
    chunk_texts = {c.text for c in searcher.chunks}
    assert embedder.embedded and not chunk_texts & set(embedder.embedded)
    assert_sentence_vectors_match_chunks(index)
    # Now complete: a further ingest of the same files writes nothing.
    again = ingest([corpus], index, RecordingEmbedder())
    assert again.generation is None and not again.sentence_vectors_added


def test_adding_a_file_to_an_index_without_sentence_vectors_adds_them_for_all(
    corpus: Path, tmp_path: Path
) -> None:
    index = index_without_sentence_vectors(corpus, tmp_path)
    (corpus / "policy.txt").write_text(POLICY)
    summary = ingest([corpus], index, RecordingEmbedder())
    assert summary.added_docs == ["policy.txt"] and summary.sentence_vectors_added
    assert_sentence_vectors_match_chunks(index)


def test_a_second_writer_waits_for_the_first(corpus: Path, tmp_path: Path) -> None:
    """Writers take the index's lock (fcntl, so also across processes): an ingest started
    while another writer holds it waits, then builds on that writer's result."""
    import threading

    index = tmp_path / "index"
    ingest([corpus / "lease.txt"], index, RecordingEmbedder())
    results: list[IngestSummary] = []
    with store.writer_lock(index):
        writer = threading.Thread(
            target=lambda: results.append(ingest([corpus / "nda.txt"], index, RecordingEmbedder()))
        )
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive() and not results, "the second writer did not wait"
    writer.join(timeout=120)
    assert results and results[0].added == 1
    assert sorted(load_index(index, embedder=HashingEmbedder()).documents) == [
        "lease.txt",
        "nda.txt",
    ]


def test_bad_files_are_skipped_with_reasons(corpus: Path, tmp_path: Path) -> None:
    (corpus / "broken.pdf").write_bytes(b"this is not a pdf")
    (corpus / "empty.txt").write_text("")
    notes = tmp_path / "notes.odt"
    notes.write_bytes(b"PK")
    summary = ingest(
        [corpus, notes, tmp_path / "missing.txt"], tmp_path / "index", RecordingEmbedder()
    )
    assert sorted(summary.added_docs) == ["lease.txt", "nda.txt"]
    skipped = dict(summary.skipped)
    assert set(skipped) == {
        str(corpus / "broken.pdf"),
        str(corpus / "empty.txt"),
        str(notes),
        str(tmp_path / "missing.txt"),
    }
    assert all(reason for reason in skipped.values())
    assert "unsupported" in skipped[str(notes)]


def test_same_file_name_in_two_folders_keeps_the_first(corpus: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "nda.txt").write_text(POLICY)
    summary = ingest([corpus, other], tmp_path / "index", RecordingEmbedder())
    assert sorted(summary.added_docs) == ["lease.txt", "nda.txt"]
    assert summary.skipped[0][0] == str(other / "nda.txt")
    assert "another file named nda.txt" in summary.skipped[0][1]
    manifest = store.read_manifest(tmp_path / "index")
    assert manifest.document("nda.txt").path == str(corpus / "nda.txt")  # type: ignore[union-attr]


def test_crash_mid_ingest_keeps_the_old_index(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index"
    ingest([corpus / "lease.txt"], index, RecordingEmbedder())
    before = generations(index)

    def crash(*args: object) -> None:
        raise OSError("simulated crash while writing embeddings")

    monkeypatch.setattr(store, "_write_dense", crash)
    with pytest.raises(OSError, match="simulated crash"):
        ingest([corpus], index, RecordingEmbedder())
    monkeypatch.undo()
    assert generations(index) == before
    searcher = load_index(index)
    assert searcher.documents == ["lease.txt"]
    # The next ingest recovers: nda.txt is still new.
    assert ingest([corpus], index, RecordingEmbedder()).added_docs == ["nda.txt"]


def test_another_embedding_model_needs_rebuild(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    other = RecordingEmbedder(name="other-model", dimension=32)
    with pytest.raises(
        IncompatibleIndexError, match="index built with hashing-test, you asked for other-model"
    ):
        ingest([corpus], index, other)
    with pytest.raises(IncompatibleIndexError, match="--embedding-model hashing-test"):
        load_index(index, embedding_model="other-model")
    summary = ingest([corpus / "nda.txt"], index, other, rebuild=True)
    assert summary.added_docs == ["nda.txt"]
    searcher = load_index(index, embedding_model="other-model", embedder=other)
    assert searcher.documents == ["nda.txt"]  # rebuild starts from the given paths only
    assert searcher.dense.dimension == 32


def test_other_chunk_settings_need_rebuild(corpus: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest([corpus], index, RecordingEmbedder())
    bigger = ChunkSettings(max_tokens=200, overlap_tokens=20, min_chunk_tokens=3)
    with pytest.raises(IncompatibleIndexError, match="chunk settings"):
        ingest_paths([corpus], index, chunk_settings=bigger, embedder=RecordingEmbedder())
    # Without explicit settings the index's own settings are used.
    (corpus / "policy.txt").write_text(POLICY)
    assert ingest_paths([corpus], index, embedder=RecordingEmbedder()).added_docs == ["policy.txt"]
    summary = ingest_paths(
        [corpus], index, chunk_settings=bigger, embedder=RecordingEmbedder(), rebuild=True
    )
    assert len(summary.added_docs) == 3
    assert store.read_manifest(index).chunk_settings["max_tokens"] == 200


def test_progress_bars_do_not_break_ingest(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = ingest([corpus], tmp_path / "index", RecordingEmbedder(), progress=True)
    assert len(summary.added_docs) == 2
    assert "files" in capsys.readouterr().err


def test_loading_a_missing_index(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="citeguard ingest"):
        load_index(tmp_path / "none")


PARAGRAPHS = {
    "handbook.txt": [
        "Employees receive twenty days of paid vacation per year. Vacation requests must be "
        "submitted to the line manager at least two weeks in advance.",
        "The company reimburses travel expenses for business trips. Receipts must be "
        "uploaded to the finance portal within thirty days of the trip.",
        "Remote work is permitted up to three days per week with the approval of the team "
        "lead. Employees working remotely must be reachable during core hours.",
        "Company laptops must be encrypted and locked when unattended. Lost or stolen "
        "devices have to be reported to the IT security team immediately.",
    ]
}


@pytest.mark.integration
def test_real_embedding_model_ranks_the_right_paragraph_first(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "handbook.txt").write_text("\n\n".join(PARAGRAPHS["handbook.txt"]))
    settings = ChunkSettings(max_tokens=50, overlap_tokens=0, min_chunk_tokens=3)
    summary = ingest_paths([folder], tmp_path / "index", chunk_settings=settings)
    assert summary.chunks >= 4
    searcher = load_index(tmp_path / "index", embedding_model="all-MiniLM-L6-v2")
    cases = {
        "How much time off do staff get each year?": "twenty days of paid vacation",
        "Can I work from home?": "Remote work is permitted",
        "What should I do if my computer gets stolen?": "Lost or stolen devices",
    }
    for query, expected in cases.items():
        for mode in ("hybrid", "dense"):
            top = searcher.search(query, k=3, mode=mode)[0]
            assert expected in top.chunk.text, (query, mode, top.chunk.text)
