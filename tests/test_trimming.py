"""Sources trimmed to their sentences most related to the question (shorter prompts)."""

from __future__ import annotations

from typing import Any

from citeguard.context import Context
from citeguard.graph import compile_graph
from citeguard.trimming import ELLIPSIS, trim_sources
from graph_fakes import bag_of_words_embed, fake_resources, make_chunk

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
