"""The evidence scorer's passage vectors kept beside the index: read back by a new process,
never outliving their generation, and a failing store never failing a question."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from citeguard.graph.context import Context
from citeguard.graph.resources import Resources
from citeguard.index.search import HybridSearcher, load_index
from citeguard.index.stored_passage_vectors import (
    FILE_PREFIX,
    StoredPassageVectors,
    store_file,
)
from citeguard.learned import shipped
from citeguard.learned.bi_encoder import BiEncoderScorer, BiEncoderWithStoredPassages
from citeguard.learned.evidence import CachedPairScorer
from citeguard.serve import cli

GOVERNING = "Which state's law governs this agreement?"
ANSWERS = "This Agreement shall be governed by the laws of the State of New York."
DOES_NOT = "The Distributor shall deliver monthly sales reports to the Company."


def unit(values: list[float]) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_kept_vectors_are_found_by_another_opening_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    first = {"a passage": unit([1, 2, 3]), "another passage": unit([3, 2, 1])}
    writer = StoredPassageVectors(path, 3)
    writer.keep(first)
    writer.keep({"a passage": unit([0, 0, 1])})  # stored already: the first one stays
    writer.close()

    reader = StoredPassageVectors(path, 3)  # as in a new process
    found = reader.find(["a passage", "never kept", "another passage", "a passage"])
    assert set(found) == {"a passage", "another passage"}
    for text, vector in first.items():
        assert found[text].dtype == np.float32
        assert np.array_equal(found[text], vector)  # bit for bit: the same scores
    assert reader.find([]) == {} and reader.usable


def test_a_store_is_named_by_its_scorer_s_plain_name(tmp_path: Path) -> None:
    assert store_file(tmp_path, "8a2ade7c5f97") == tmp_path / f"{FILE_PREFIX}8a2ade7c5f97.sqlite"
    for name in ("", "../elsewhere", "a/b", "x" * 65):
        with pytest.raises(ValueError, match="plain name"):
            store_file(tmp_path, name)


def test_a_vector_of_another_length_is_refused(tmp_path: Path) -> None:
    store = StoredPassageVectors(tmp_path / "store.sqlite", 3)
    with pytest.raises(ValueError, match="dimension 3"):
        store.keep({"a passage": unit([1, 2])})


def test_a_store_that_cannot_be_used_warns_once_and_finds_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gone = StoredPassageVectors(tmp_path / "deleted-generation" / "store.sqlite", 3)
    with caplog.at_level(logging.WARNING):
        gone.keep({"a passage": unit([1, 2, 3])})
        assert gone.find(["a passage"]) == {}
    assert not gone.usable
    assert len([r for r in caplog.records if "stored passage vectors" in r.message]) == 1

    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"not a database " * 100)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert StoredPassageVectors(damaged, 3).find(["a passage"]) == {}
    assert any("could not be" in r.message for r in caplog.records)


def test_a_stored_vector_of_another_length_disables_the_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    StoredPassageVectors(path, 2).keep({"a passage": unit([1, 2])})
    other = StoredPassageVectors(path, 3)
    assert other.find(["a passage"]) == {} and not other.usable


def test_a_new_scorer_reads_the_passages_an_earlier_one_kept(tmp_path: Path) -> None:
    """Only the passages (the second texts) are kept; the question is embedded each time,
    and the scores are those of a scorer that embedded everything itself."""
    folder = shipped.shipped_folder("scorer")
    first = BiEncoderScorer(folder)
    store = StoredPassageVectors(tmp_path / "store.sqlite", first.dimension)
    pairs = [(GOVERNING, ANSWERS), (GOVERNING, DOES_NOT)]
    before = first.scores(pairs)  # embedded before the store is given: kept when it is
    scores = first.scores(pairs, store)
    assert first.texts_embedded == 3 and list(scores) == list(before)
    assert set(store.find([GOVERNING, ANSWERS, DOES_NOT])) == {ANSWERS, DOES_NOT}

    second = BiEncoderScorer(folder)  # a new process: nothing in memory
    other = "Who delivers the sales reports?"
    again = second.scores([(other, ANSWERS), (other, DOES_NOT), (GOVERNING, ANSWERS)], store)
    assert second.texts_embedded == 2  # the two questions; no passage
    assert again[2] == pytest.approx(scores[0], abs=1e-7)
    plain = BiEncoderScorer(folder).scores([(other, ANSWERS), (other, DOES_NOT)])
    assert again[:2] == pytest.approx(plain, abs=1e-6)
    assert again[1] > again[0]
    # Without a store nothing is read from or written to one.
    assert BiEncoderScorer(folder).scores(pairs) == pytest.approx(scores, abs=1e-6)


def test_runs_over_an_index_keep_the_scorer_s_passages_in_its_live_generation(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agreement.txt").write_text(f"{ANSWERS}\n\n{DOES_NOT}\n")
    index = tmp_path / "index"
    assert cli.main(["ingest", str(docs), "--index", str(index)]) == 0
    ctx = Context(index_dir=str(index))
    resources = Resources()
    scorer = resources.evidence_scorer(ctx)
    assert isinstance(scorer, CachedPairScorer)
    assert isinstance(scorer.scorer, BiEncoderWithStoredPassages)
    assert resources.evidence_scorer(ctx) is scorer  # one per index, its pair memory shared
    model = scorer.scorer.scorer
    generation = index / (index / "CURRENT").read_text().strip()
    scorer.scores([(GOVERNING, ANSWERS)])
    assert store_file(generation, model.weights_sha256[:12]).is_file()

    # A new ingest switches to a new generation: its passages go to a store there, and
    # the old store goes with the old generation.
    (docs / "notice.txt").write_text("Notices shall be sent by registered mail.\n")
    assert cli.main(["ingest", str(docs), "--index", str(index)]) == 0
    renewed = resources.evidence_scorer(ctx)
    assert renewed is not scorer
    renewed_generation = index / (index / "CURRENT").read_text().strip()
    assert renewed_generation != generation and not generation.exists()
    assert renewed is not None
    renewed.scores([(GOVERNING, DOES_NOT)])
    assert store_file(renewed_generation, model.weights_sha256[:12]).is_file()
    assert [p.name for p in index.glob(f"*/{FILE_PREFIX}*")] == [
        store_file(renewed_generation, model.weights_sha256[:12]).name
    ]


def test_no_store_over_an_injected_searcher_an_index_in_memory_or_no_index(
    tmp_path: Path,
) -> None:
    class Searcher:
        def search(self, query: str, **settings: object) -> list[object]:
            return []

    injected = Resources(searcher=Searcher())
    plain = injected.evidence_scorer()
    assert injected.evidence_scorer(Context(index_dir=str(tmp_path))) is plain
    empty = Resources()
    assert empty.evidence_scorer(Context(index_dir=str(tmp_path / "none"))) is (
        empty.evidence_scorer()
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "agreement.txt").write_text(f"{ANSWERS}\n")
    assert cli.main(["ingest", str(docs), "--index", str(tmp_path / "index")]) == 0
    on_disk = load_index(tmp_path / "index")
    assert on_disk.scorer_passage_vectors("abc", 3) is on_disk.scorer_passage_vectors("abc", 3)
    in_memory = HybridSearcher(on_disk.chunks, on_disk.dense, on_disk.bm25)
    assert in_memory.scorer_passage_vectors("abc", 3) is None
