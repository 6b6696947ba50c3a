"""Where the nodes' components come from: the default judge level and its local judge."""

from __future__ import annotations

import numpy as np
import pytest

from citeguard.errors import ModelUnavailableError
from citeguard.graph.context import Context
from citeguard.graph.resources import Resources
from citeguard.index.dense import HashingEmbedder
from citeguard.llm import judge


class CountingEmbedder(HashingEmbedder):
    """The test embedder, recording every text it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_documents(self, texts, show_progress=False):  # type: ignore[no-untyped-def]
        self.embedded += list(texts)
        return super().embed_documents(texts)


def test_the_default_level_validates_with_the_local_judge() -> None:
    def fake_judge(claim: str, evidence: str) -> float:
        return 1.0

    assert Context().validation_level == "judge"
    resources = Resources()
    assert resources.judge(Context()) == resources.local_support_probability
    assert Resources(judge=fake_judge).judge(Context()) is fake_judge
    assert Resources().judge(Context(validation_level="strict")) is None


def test_a_missing_local_judge_says_how_to_validate_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unavailable(**_: object) -> judge.LocalJudge:
        raise ModelUnavailableError("the local model needs llama-cpp-python")

    class FakeJudge:
        def support_probability(self, claim: str, evidence: str) -> float:
            return 0.75

    monkeypatch.setattr(judge, "local_judge", unavailable)
    local_support_probability = Resources().local_support_probability
    with pytest.raises(ModelUnavailableError, match=r"llama-cpp-python.*validation level 'strict'"):
        local_support_probability("Rent is $1,450.", "The monthly rent is $1,450.")
    monkeypatch.setattr(judge, "local_judge", lambda **_: FakeJudge())
    assert local_support_probability("Rent is $1,450.", "The monthly rent is $1,450.") == 0.75


def test_validation_embeds_each_source_once_per_index_embedder() -> None:
    class Searcher:
        embedder = CountingEmbedder()

    resources = Resources(searcher=Searcher())
    embed = resources.embed(Context())
    assert resources.embed(Context()) is embed
    first = embed(["sentence one", "the whole source"])
    again = embed(["sentence two", "the whole source"])
    assert Searcher.embedder.embedded == ["sentence one", "the whole source", "sentence two"]
    assert (first[1] == again[1]).all()


def test_validation_takes_the_evidence_vectors_from_the_index() -> None:
    from citeguard.documents import Chunk
    from citeguard.index.search import HybridSearcher

    texts = ["The rent is $1,450 a month.", "A late fee of $75 applies after the 5th."]
    chunks = [
        Chunk(f"lease#{i}", "lease.pdf", text, (i + 1, i + 1), (str(i + 1),) * 2, 0, len(text))
        for i, text in enumerate(texts)
    ]
    embedder = CountingEmbedder()
    searcher = HybridSearcher.from_arrays(
        chunks, embedder.embed_documents(texts), embedder=embedder
    )
    embedder.embedded.clear()
    resources = Resources(searcher=searcher)
    evidence = [
        {"chunk_id": "lease#0", "text": texts[0]},
        {"chunk_id": "lease#1", "text": "A late fee applies."},  # not the chunk as indexed
    ]
    embed = resources.embed_for_sources(Context(), evidence)
    vectors = embed(["Rent is $1,450 [1].", texts[0], "A late fee applies."])
    # Only the answer sentence and the altered source reach the model.
    assert embedder.embedded == ["Rent is $1,450 [1].", "A late fee applies."]
    np.testing.assert_allclose(vectors[1], searcher.dense.embeddings[0], atol=1e-6)
    # An injected embed is used as it is: the index's vectors are in another space.
    own = Resources(searcher=searcher, embed=lambda batch: np.ones((len(batch), 4)))
    assert own.embed_for_sources(Context(), evidence)(["x"]).shape == (1, 4)


def test_each_resources_owns_its_draft_store() -> None:
    from citeguard.graph.drafts import DraftStore

    first, second = Resources(), Resources()
    assert first.drafts is not second.drafts
    ref = first.drafts.put(candidate="draft text")
    assert second.drafts.get(ref) == {} and first.drafts.get(ref)["candidate"] == "draft text"
    shared = DraftStore()
    assert Resources(drafts=shared).drafts is shared
