"""Where the nodes' components come from: the default judge level and its local judge."""

from __future__ import annotations

import pytest

from citeguard import llm
from citeguard.context import Context
from citeguard.errors import ModelUnavailableError
from citeguard.resources import Resources, local_support_probability


def test_the_default_level_validates_with_the_local_judge() -> None:
    def fake_judge(claim: str, evidence: str) -> float:
        return 1.0

    assert Context().validation_level == "judge"
    assert Resources().judge(Context()) is local_support_probability
    assert Resources(judge=fake_judge).judge(Context()) is fake_judge
    assert Resources().judge(Context(validation_level="strict")) is None


def test_a_missing_local_judge_says_how_to_validate_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unavailable(claim: str, evidence: str) -> float:
        raise ModelUnavailableError("the local model needs llama-cpp-python")

    monkeypatch.setattr(llm, "support_probability", unavailable)
    with pytest.raises(ModelUnavailableError, match=r"llama-cpp-python.*validation level 'strict'"):
        local_support_probability("Rent is $1,450.", "The monthly rent is $1,450.")
    monkeypatch.setattr(llm, "support_probability", lambda claim, evidence: 0.75)
    assert local_support_probability("Rent is $1,450.", "The monthly rent is $1,450.") == 0.75


def test_validation_embeds_each_source_once_per_index_embedder() -> None:
    from citeguard.index.dense import HashingEmbedder

    class CountingEmbedder(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.embedded: list[str] = []

        def embed_documents(self, texts, show_progress=False):  # type: ignore[no-untyped-def]
            self.embedded += list(texts)
            return super().embed_documents(texts)

    class Searcher:
        embedder = CountingEmbedder()

    resources = Resources(searcher=Searcher())
    embed = resources.embed(Context())
    assert resources.embed(Context()) is embed
    first = embed(["sentence one", "the whole source"])
    again = embed(["sentence two", "the whole source"])
    assert Searcher.embedder.embedded == ["sentence one", "the whole source", "sentence two"]
    assert (first[1] == again[1]).all()
