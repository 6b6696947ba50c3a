"""BM25: equality with rank-bm25, tokenizer, merging, persistence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from citeguard.index.bm25 import BM25Index, tokenize

CORPUS = [
    "The tenant shall pay rent on the first day of each month.",
    "The landlord may terminate the lease with thirty days notice.",
    "Rent is due monthly; late rent incurs a fee of 50 dollars.",
    "The tenant may not sublet the premises without written consent.",
    "Notice shall be given in writing to the landlord.",
    "The lease term is 12 months and rent renews automatically.",
    "Security deposit: two months rent, returned within 30 days.",
]
# "rent" is in 4 of 7 documents: more than half, so its raw idf is negative and the
# epsilon floor applies.
QUERIES = [
    "rent",
    "tenant rent rent notice",
    "terminate lease 30 days",
    "sublet consent",
    "unknown words only",
    "",
]


def test_tokenizer_lowercases_keeps_numbers_drops_stopwords() -> None:
    assert tokenize("The Tenant shall pay $1,200 in 30 days (Sec. 4.2)!") == [
        "tenant",
        "shall",
        "pay",
        "1",
        "200",
        "30",
        "days",
        "sec",
        "4",
        "2",
    ]
    assert "not" in tokenize("may not sublet")


def test_a_term_in_more_than_half_of_the_documents_gets_the_epsilon_floor() -> None:
    tokens = [tokenize(t) for t in CORPUS]
    assert sum("rent" in t for t in tokens) > len(CORPUS) / 2
    reference = BM25Okapi(tokens)
    assert reference.idf["rent"] == pytest.approx(0.25 * reference.average_idf)
    index = BM25Index.from_tokens(tokens)
    assert index.idf[index.term_ids["rent"]] == pytest.approx(reference.idf["rent"])


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_rank_bm25(query: str) -> None:
    tokens = [tokenize(t) for t in CORPUS]
    reference = BM25Okapi(tokens)
    index = BM25Index.from_tokens(tokens)
    q = tokenize(query)
    expected = reference.get_scores(q)
    got = index.get_scores(q)
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-12)
    if q and set(q) & set(index.term_ids):
        assert got.max() > 0


def test_custom_parameters_match_rank_bm25() -> None:
    tokens = [tokenize(t) for t in CORPUS]
    reference = BM25Okapi(tokens, k1=1.2, b=0.5, epsilon=0.1)
    index = BM25Index.from_tokens(tokens, k1=1.2, b=0.5, epsilon=0.1)
    q = tokenize("rent notice landlord")
    assert np.allclose(index.get_scores(q), reference.get_scores(q), rtol=1e-12)


def test_select_and_concatenate_score_like_a_fresh_build() -> None:
    full = BM25Index.build(CORPUS)
    kept = full.select_rows([0, 2, 5])
    added = BM25Index.build(CORPUS[6:] + ["A brand new clause about arbitration."])
    merged = BM25Index.concatenate([kept, added])
    texts = [CORPUS[0], CORPUS[2], CORPUS[5], CORPUS[6], "A brand new clause about arbitration."]
    fresh = BM25Index.build(texts)
    reference = BM25Okapi([tokenize(t) for t in texts])
    for query in ["rent", "landlord terminate", "arbitration clause", "months rent"]:
        q = tokenize(query)
        assert np.allclose(merged.get_scores(q), fresh.get_scores(q), rtol=1e-12)
        assert np.allclose(merged.get_scores(q), reference.get_scores(q), rtol=1e-12)
    # "landlord" only occurred in dropped rows: it must leave the vocabulary (it would
    # otherwise change the average idf and so the epsilon floor).
    assert "landlord" not in merged.term_ids


def test_save_load_round_trip_without_pickle(tmp_path: Path) -> None:
    index = BM25Index.build(CORPUS, k1=1.3)
    index.save(tmp_path / "bm25.npz", tmp_path / "vocab.json")
    with np.load(tmp_path / "bm25.npz", allow_pickle=False) as z:
        assert all(z[name].dtype != object for name in z.files)
    loaded = BM25Index.load(tmp_path / "bm25.npz", tmp_path / "vocab.json")
    assert loaded.k1 == 1.3
    assert loaded.vocab == index.vocab
    q = tokenize("tenant notice rent")
    assert np.array_equal(loaded.get_scores(q), index.get_scores(q))


def test_empty_index_scores_nothing() -> None:
    index = BM25Index.build([])
    assert index.n_docs == 0
    assert index.get_scores(["rent"]).shape == (0,)
