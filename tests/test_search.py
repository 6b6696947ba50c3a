"""Hybrid search: modes, fusion, scoping, de-duplication, reranking, LangChain retriever;
the search interface every backend implements (index/searcher.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from citeguard.documents import Chunk, SearchHit
from citeguard.graph.context import Context
from citeguard.graph.passage_scores import AnswerScores
from citeguard.graph.sources import retrieve_sources
from citeguard.index.bm25 import tokenize
from citeguard.index.dense import HashingEmbedder
from citeguard.index.embedder import Embedder
from citeguard.index.fusion import fuse_minmax, reciprocal_rank_fusion
from citeguard.index.rerank import cue_count, heuristic_rerank
from citeguard.index.retriever import CiteGuardRetriever
from citeguard.index.search import HybridSearcher, UnknownDocumentError
from citeguard.index.searcher import Searcher, StoredChunkVectors

EMBEDDER = HashingEmbedder(dimension=64)


def chunk(doc: str, i: int, text: str) -> Chunk:
    return Chunk(
        chunk_id=f"{doc}#{i}",
        doc=doc,
        text=text,
        pdf_pages=(i + 1, i + 1),
        printed_pages=(str(i + 1), str(i + 1)),
        char_start=100 * i,
        char_end=100 * i + len(text),
    )


def build(chunks: list[Chunk]) -> HybridSearcher:
    vectors = EMBEDDER.embed_documents([c.text for c in chunks])
    return HybridSearcher.from_arrays(chunks, vectors, embedder=EMBEDDER)


CHUNKS = [
    chunk("lease.txt", 0, "The tenant shall pay rent on the first day of each month."),
    chunk("lease.txt", 1, "The landlord may terminate the lease with thirty days written notice."),
    chunk("lease.txt", 2, "The tenant may not sublet the premises without consent."),
    chunk("nda.txt", 0, "Confidential information shall not be disclosed to third parties."),
    chunk("nda.txt", 1, "This agreement is governed by the laws of the State of Delaware."),
    chunk("policy.txt", 0, "Employees accrue vacation days each month of service."),
]


class NoEmbedder:
    """Fails if anything asks for a query embedding."""

    name = "none"
    dimension = 64
    max_tokens = 512

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        raise AssertionError("not expected")

    def embed_documents(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        raise AssertionError("lexical search must not embed the query")

    def embed_query(self, text: str) -> np.ndarray:
        raise AssertionError("lexical search must not embed the query")


def test_hybrid_scores_are_the_minmax_fusion_of_raw_scores() -> None:
    searcher = build(CHUNKS)
    query = "when can the landlord terminate the lease"
    hits = searcher.search(query, k=6)
    # Fewer chunks than N = 50: every chunk is a dense candidate, so fusion runs over all.
    dense = EMBEDDER.embed_documents([c.text for c in CHUNKS]) @ EMBEDDER.embed_query(query)
    lexical = searcher.bm25.get_scores(tokenize(query))
    fused = fuse_minmax(dense, lexical, alpha=0.65)
    assert hits[0].chunk.chunk_id == "lease.txt#1"
    for hit in hits:
        row = CHUNKS.index(hit.chunk)
        assert hit.score == pytest.approx(fused[row])
        assert hit.dense_score == pytest.approx(dense[row], abs=1e-6)
        assert hit.lexical_score == pytest.approx(lexical[row])
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_alpha_one_ranks_by_dense_alone() -> None:
    searcher = build(CHUNKS)
    query = "tenant rent month"
    by_alpha = [h.chunk.chunk_id for h in searcher.search(query, k=6, alpha=1.0)]
    by_dense = [h.chunk.chunk_id for h in searcher.search(query, k=6, mode="dense")]
    assert by_alpha == by_dense


def test_dense_mode_ranks_by_cosine() -> None:
    searcher = build(CHUNKS)
    query = "confidential information disclosed"
    hits = searcher.search(query, k=3, mode="dense")
    assert hits[0].chunk.chunk_id == "nda.txt#0"
    assert [h.score for h in hits] == [h.dense_score for h in hits]
    assert hits[0].dense_score >= hits[1].dense_score >= hits[2].dense_score


def test_lexical_mode_needs_no_query_embedding() -> None:
    chunks = CHUNKS
    vectors = EMBEDDER.embed_documents([c.text for c in chunks])
    searcher = HybridSearcher.from_arrays(chunks, vectors, embedder=NoEmbedder())
    hits = searcher.search("Delaware law", k=3, mode="lexical")
    assert [h.chunk.chunk_id for h in hits] == ["nda.txt#1"]  # only chunks with a BM25 match
    assert hits[0].score == hits[0].lexical_score > 0
    assert hits[0].dense_score == 0.0


def test_query_vector_skips_the_embedder() -> None:
    vectors = EMBEDDER.embed_documents([c.text for c in CHUNKS])
    searcher = HybridSearcher.from_arrays(CHUNKS, vectors, embedder=NoEmbedder())
    query = "vacation days"
    hits = searcher.search(query, k=2, query_vector=EMBEDDER.embed_query(query))
    assert hits[0].chunk.chunk_id == "policy.txt#0"


def test_rrf_fusion() -> None:
    searcher = build(CHUNKS)
    query = "tenant sublet consent"
    hits = searcher.search(query, k=6, fusion="rrf")
    dense = EMBEDDER.embed_documents([c.text for c in CHUNKS]) @ EMBEDDER.embed_query(query)
    lexical = searcher.bm25.get_scores(tokenize(query))
    expected = reciprocal_rank_fusion(dense.astype(np.float64), lexical)
    assert hits[0].chunk.chunk_id == "lease.txt#2"
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 61)
    for hit in hits:
        assert hit.score == pytest.approx(expected[CHUNKS.index(hit.chunk)])


def test_scope_finds_a_document_outside_the_global_top_n() -> None:
    # 120 chunks about rent in one document push the other document's weak match far
    # below the global top-N (N = 50); scoping must still find it.
    chunks = [
        chunk("big.txt", i, f"Rent rent rent is payable monthly, clause {i}.") for i in range(120)
    ]
    chunks.append(
        chunk("small.txt", 0, "Unrelated text, with a single mention of rent at the end.")
    )
    searcher = build(chunks)
    query = "rent payable"
    global_ids = {h.chunk.doc for h in searcher.search(query, k=8)}
    assert global_ids == {"big.txt"}
    for mode in ("hybrid", "dense", "lexical"):
        hits = searcher.search(query, k=3, mode=mode, docs=["small.txt"])
        assert [h.chunk.chunk_id for h in hits] == ["small.txt#0"], mode
    both = searcher.search(query, k=200, docs=["small.txt", "big.txt"])
    assert "small.txt" in {h.chunk.doc for h in both}


def test_unknown_scope_is_an_error() -> None:
    with pytest.raises(UnknownDocumentError, match="missing.pdf"):
        build(CHUNKS).search("rent", docs=["missing.pdf"])


def test_near_duplicates_are_removed_keeping_the_higher_ranked() -> None:
    boilerplate = (
        "This agreement constitutes the entire agreement between the parties and supersedes "
        "all prior agreements, understandings and negotiations relating to its subject matter."
    )
    chunks = [
        chunk("a.txt", 0, "Payment terms: invoices are due within thirty days of receipt."),
        chunk("a.txt", 1, boilerplate),
        chunk("b.txt", 0, boilerplate + " Signed in Boston."),
        chunk("c.txt", 0, boilerplate.upper()),
        chunk("d.txt", 0, "The entire agreement clause is in section 12 of the contract."),
    ]
    searcher = build(chunks)
    hits = searcher.search("entire agreement supersedes prior agreements", k=5)
    texts = [h.chunk.chunk_id for h in hits]
    boilerplate_hits = [cid for cid in texts if cid in ("a.txt#1", "b.txt#0", "c.txt#0")]
    assert len(boilerplate_hits) == 1
    undeduped = searcher.search("entire agreement supersedes prior agreements", k=5, mode="lexical")
    assert (
        boilerplate_hits[0]
        == [
            h.chunk.chunk_id
            for h in undeduped
            if h.chunk.chunk_id in ("a.txt#1", "b.txt#0", "c.txt#0")
        ][0]
    )
    assert "d.txt#0" in texts


def test_ordinary_chunk_overlap_is_not_a_duplicate() -> None:
    words = [f"w{i}" for i in range(100)]
    first = " ".join(words[:60])
    second = " ".join(words[40:])  # 20-word overlap, like chunker overlap
    searcher = build([chunk("a.txt", 0, first), chunk("a.txt", 1, second)])
    hits = searcher.search("w45 w50 w55", k=5)
    assert {h.chunk.chunk_id for h in hits} == {"a.txt#0", "a.txt#1"}


def test_heuristic_rerank_by_hand() -> None:
    texts = [
        "Notice period overview.",  # overlap 1/2 (notice), cues 1 (notice)
        "Either party shall give notice within 30 days.",  # overlap 2/2, cues 4 -> capped 3
        "Schedule of equipment.",  # overlap 0, cues 0
    ]
    base = np.array([0.51, 0.50, 0.0])  # normalized: 1, 0.50 / 0.51, 0
    scores = heuristic_rerank("notice days", texts, base)
    expected = [
        1.0 + 0.3 * 0.5 + 0.1 * (1 / 3),
        0.50 / 0.51 + 0.3 * 1.0 + 0.1 * 1.0,
        0.0,
    ]
    assert np.allclose(scores, expected)
    assert cue_count("The Tenant SHALL pay; it may not sublet") == 2  # "shall", "may not"


def test_rerank_is_off_by_default_and_reorders_the_top_by_the_heuristic() -> None:
    searcher = build(CHUNKS)
    query = "tenant notice days"
    plain = searcher.search(query, k=len(CHUNKS))
    assert plain == searcher.search(query, k=len(CHUNKS), rerank=False)
    reranked = searcher.search(query, k=len(CHUNKS), rerank=True)
    expected = heuristic_rerank(
        query, [h.chunk.text for h in plain], np.array([h.score for h in plain])
    )
    by_hand = [plain[i].chunk.chunk_id for i in np.argsort(-expected, kind="stable")]
    assert [h.chunk.chunk_id for h in reranked] == by_hand
    assert [h.score for h in reranked] == pytest.approx(sorted(expected, reverse=True))
    assert by_hand != [h.chunk.chunk_id for h in plain]  # the heuristic changed something


def test_bad_arguments() -> None:
    searcher = build(CHUNKS)
    with pytest.raises(ValueError, match="mode"):
        searcher.search("rent", mode="sparse")
    with pytest.raises(ValueError, match="fusion"):
        searcher.search("rent", fusion="sum")
    assert searcher.search("rent", k=0) == []
    empty = HybridSearcher.from_arrays([], np.zeros((0, 64), dtype=np.float32), embedder=EMBEDDER)
    assert empty.search("rent") == []


def test_langchain_retriever_returns_documents_with_citation_metadata() -> None:
    retriever = CiteGuardRetriever(searcher=build(CHUNKS), k=2, docs=["lease.txt"])
    documents = retriever.invoke("landlord terminate lease")
    assert len(documents) == 2
    top = documents[0]
    assert top.page_content == CHUNKS[1].text
    assert top.metadata["doc"] == "lease.txt"
    assert top.metadata["chunk_id"] == "lease.txt#1"
    assert top.metadata["pdf_pages"] == [2, 2]
    assert top.metadata["printed_pages"] == ["2", "2"]
    assert (top.metadata["char_start"], top.metadata["char_end"]) == (
        100,
        100 + len(CHUNKS[1].text),
    )
    assert {"score", "dense_score", "lexical_score"} <= set(top.metadata)
    assert all(d.metadata["doc"] == "lease.txt" for d in documents)


def test_an_empty_scope_means_all_documents() -> None:
    searcher = build(CHUNKS)
    assert searcher.search("rent", k=3, docs=[]) == searcher.search("rent", k=3)


# -- the search interface ---------------------------------------------------------------

OPENING = chunk("lease.pdf", 0, "This lease is made between Ann Lee (Landlord) and Bo Park.")
BODY = [
    chunk("lease.pdf", 1, "The tenant shall pay rent on the first day of each month."),
    chunk("lease.pdf", 2, "Either party may end this lease with sixty days notice."),
]


class ListSearcher:
    """A second backend in miniature: hits in a fixed order, no stored vectors."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)

    @property
    def documents(self) -> list[str]:
        return sorted({c.doc for c in self.chunks})

    @property
    def embedder(self) -> Embedder:
        return EMBEDDER

    def search(
        self,
        query: str,
        k: int = 8,
        mode: str = "hybrid",
        alpha: float = 0.5,
        docs: Sequence[str] | None = None,
        fusion: str = "minmax",
        rerank: bool = False,
        query_vector: np.ndarray | None = None,
    ) -> list[SearchHit]:
        found = [c for c in self.chunks if c.char_start > 0 and (not docs or c.doc in docs)]
        return [
            SearchHit(chunk=c, score=1.0 - 0.1 * n, dense_score=0.5, lexical_score=1.0, rank=n + 1)
            for n, c in enumerate(found[:k])
        ]

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        first = min((c for c in self.chunks if c.doc == doc), key=lambda c: c.char_start)
        return SearchHit(chunk=first, score=0.0, dense_score=0.1, lexical_score=0.0, rank=0)


def test_the_hybrid_searcher_implements_the_interface_and_its_stored_vectors() -> None:
    chunks = [OPENING, *BODY]
    hybrid = HybridSearcher.from_arrays(
        chunks, EMBEDDER.embed_documents([c.text for c in chunks]), embedder=EMBEDDER
    )
    assert isinstance(hybrid, Searcher)
    assert isinstance(hybrid, StoredChunkVectors)
    assert not isinstance(object(), Searcher)


def test_the_source_rule_runs_on_any_backend_that_implements_the_interface() -> None:
    backend = ListSearcher([OPENING, *BODY])
    assert isinstance(backend, Searcher)
    assert not isinstance(backend, StoredChunkVectors)
    question = "Who are the parties to this lease?"
    hits, sources = retrieve_sources(
        backend, question, Context(), ["lease.pdf"], AnswerScores(None, question)
    )
    assert [h.chunk.chunk_id for h in hits] == ["lease.pdf#1", "lease.pdf#2"]
    # A question about the parties gets the document's opening among its sources, found
    # through the interface's opening_hit.
    assert OPENING.chunk_id in [s.chunk.chunk_id for s in sources]
