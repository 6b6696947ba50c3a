"""Sources trimmed to their sentences most related to the question (shorter prompts)."""

from __future__ import annotations

from typing import Any

from citeguard.generate.trimming import ELLIPSIS, trim_sources
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from graph_fakes import INERT_SCORER, bag_of_words_embed, fake_resources, make_chunk

FILLER = [
    "The parties shall meet once a year to review the marketing plan for the territory.",
    "Each party shall keep books and records in accordance with accepted practice.",
    "Notices shall be delivered by hand or sent by registered mail to the addresses above.",
]
ANSWER = "Tenant shall pay a late fee of $50 when rent is paid after the fifth day."


def source(*sentences: str) -> dict[str, Any]:
    return {"text": " ".join(sentences), "char_start": 0, "doc": "lease.pdf"}


def test_a_long_source_keeps_its_sentences_about_the_question_in_document_order() -> None:
    evidence = [source(FILLER[0], ANSWER, FILLER[1], FILLER[2])]
    [trimmed] = trim_sources(evidence, "What is the late fee for rent?", bag_of_words_embed, 30)
    assert ANSWER in trimmed["text"]
    assert len(trimmed["text"].split()) <= 30 + len(ELLIPSIS.split())
    kept = trimmed["text"].split(ELLIPSIS)
    order = [evidence[0]["text"].index(part) for part in kept]
    assert order == sorted(order)
    # The evidence itself is not changed: validation still sees the whole source.
    assert FILLER[1] in evidence[0]["text"]


def test_short_sources_and_a_zero_budget_are_left_whole() -> None:
    evidence = [source(ANSWER), source(FILLER[0], ANSWER, FILLER[1])]
    assert trim_sources(evidence, "late fee?", bag_of_words_embed, 0) == evidence
    trimmed = trim_sources(evidence, "late fee?", bag_of_words_embed, 200)
    assert [t["text"] for t in trimmed] == [e["text"] for e in evidence]


def test_the_best_sentence_is_kept_even_when_longer_than_the_budget() -> None:
    [trimmed] = trim_sources(
        [source(FILLER[0], ANSWER, FILLER[1])], "What is the late fee?", bag_of_words_embed, 5
    )
    assert trimmed["text"] == ANSWER


def test_sentences_embedded_for_an_earlier_question_are_not_embedded_again() -> None:
    embedded: list[str] = []

    def counting_embed(texts: Any) -> Any:
        embedded.extend(texts)
        return bag_of_words_embed(texts)

    evidence = [source(FILLER[0], ANSWER, FILLER[1], FILLER[2])]
    first = trim_sources(evidence, "What is the late fee for rent?", counting_embed, 30)
    assert sorted(embedded) == sorted(["What is the late fee for rent?", FILLER[0], ANSWER,
                                       FILLER[1], FILLER[2]])  # fmt: skip
    embedded.clear()
    second = trim_sources(evidence, "Where are notices delivered?", counting_embed, 30)
    assert embedded == ["Where are notices delivered?"]
    assert ANSWER in first[0]["text"] and FILLER[2] in second[0]["text"]


LONG_CHUNK = make_chunk("lease.pdf", " ".join([FILLER[0], ANSWER, FILLER[1], FILLER[2]]), page=2)
GOOD = "Tenant shall pay a late fee of $50 when rent is paid after the fifth day [1]."


def prompt_of(source_words: int) -> str:
    resources = fake_resources([GOOD], chunks=[LONG_CHUNK])
    graph = compile_graph(resources)
    result = graph.invoke(
        {"question": "What is the late fee for rent?"},
        context=Context(source_words=source_words, opening_source=False),
    )
    assert result["status"] == "answered"
    # The citation quotes the whole source, which validation checked.
    assert "$50" in result["citations"][0]["quote"]
    return str(resources._chat_model.prompts[0])  # type: ignore[union-attr]


def test_the_model_sees_the_trimmed_sources_only_when_asked() -> None:
    assert FILLER[2] in prompt_of(0)
    trimmed_prompt = prompt_of(20)
    assert ANSWER in trimmed_prompt
    assert FILLER[2] not in trimmed_prompt


def test_sentence_vectors_stored_in_the_index_are_used_instead_of_embedding() -> None:
    from citeguard.text.sentences import sentence_texts

    embedded: list[str] = []

    def counting_embed(texts: Any) -> Any:  # a new function: nothing of it is cached yet
        embedded.extend(texts)
        return bag_of_words_embed(texts)

    text = " ".join([FILLER[2], FILLER[0], ANSWER, FILLER[1]])
    evidence = [{**source(text), "chunk_id": "lease:0001"}]
    index = {"lease:0001": (text, bag_of_words_embed(sentence_texts(text)))}
    question = "What is the late fee for rent?"
    trimmed = trim_sources(evidence, question, counting_embed, 30, index.get)
    assert embedded == [question]
    # The same choice as with the sentences embedded now.
    assert trimmed == trim_sources(evidence, question, bag_of_words_embed, 30)


def test_stored_vectors_of_a_different_text_are_not_used() -> None:
    embedded: list[str] = []

    def counting_embed(texts: Any) -> Any:
        embedded.extend(texts)
        return bag_of_words_embed(texts)

    text = " ".join([FILLER[1], ANSWER, FILLER[0], FILLER[2]])
    evidence = [{**source(text), "chunk_id": "lease:0002"}]
    # The index holds another version of the chunk (say, before the file changed).
    stale = {"lease:0002": ("An older text.", bag_of_words_embed(["An older text."]))}
    trim_sources(evidence, "What is the late fee?", counting_embed, 30, stale.get)
    assert set(embedded) == {"What is the late fee?", *FILLER, ANSWER}


def test_the_answer_graph_trims_with_the_sentence_vectors_stored_in_the_index() -> None:
    import numpy as np

    from citeguard.graph.resources import Resources
    from citeguard.index.bm25 import BM25Index
    from citeguard.index.dense import DenseIndex, HashingEmbedder
    from citeguard.index.search import HybridSearcher
    from citeguard.index.sentence_vectors import SentenceVectors
    from graph_fakes import scripted_model

    class RecordingEmbedder(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__(dimension=64, name="recording")
            self.embedded: list[str] = []

        def embed_documents(self, texts: Any, show_progress: bool = False) -> np.ndarray:
            self.embedded.extend(texts)
            return super().embed_documents(texts, show_progress)

    embedder = RecordingEmbedder()
    texts = [LONG_CHUNK.text]
    searcher = HybridSearcher(
        [LONG_CHUNK],
        DenseIndex(embedder.embed_documents(texts)),
        BM25Index.build(texts),
        embedder=embedder,
        sentence_vectors=SentenceVectors.build(texts, embedder.embed_documents, 64),
    )
    resources = Resources(
        chat_model=scripted_model([GOOD]), searcher=searcher, evidence_scorer=INERT_SCORER
    )
    embedder.embedded.clear()  # what ingest embedded
    question = "What is the late fee for rent?"
    result = compile_graph(resources).invoke(
        {"question": question},
        context=Context(source_words=20, opening_source=False, validation_level="strict"),
    )
    assert result["status"] == "answered"
    prompt = str(resources._chat_model.prompts[0])  # type: ignore[union-attr]
    assert ANSWER in prompt and FILLER[2] not in prompt
    # Only questions and answer sentences were embedded while answering, no source sentence.
    assert not set(embedder.embedded) & {FILLER[0], FILLER[1], FILLER[2]}
    assert question in embedder.embedded
