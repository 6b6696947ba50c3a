"""Evidence-first and extractive generation, driven through the graph by scripted models."""

from __future__ import annotations

from typing import Any

from citeguard.generate.prompts import REFUSAL
from citeguard.generate.selection import (
    extractive_answer,
    number_sentences,
    parse_selection,
)
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from graph_fakes import LEASE_CHUNKS, fake_resources

RENT_Q = "When is the monthly rent due?"
FIRST_SENTENCE = "Tenant shall pay monthly rent of $1,250 on the first day of each month."


def run(strategy: str, replies: list[str], question: str = RENT_Q, **ctx: Any) -> tuple[dict, Any]:
    resources = fake_resources(replies)
    result = compile_graph(resources).invoke(
        {"question": question}, context=Context(generation_strategy=strategy, **ctx)
    )
    return result, resources


def calls(resources: Any) -> int:
    return len(resources._chat_model.prompts)


def evidence() -> list[dict[str, Any]]:
    return [{"doc": c.doc, "text": c.text, "char_start": c.char_start} for c in LEASE_CHUNKS]


def test_sentences_are_numbered_per_source_with_document_offsets() -> None:
    sentences = number_sentences(evidence())
    assert [s.id for s in sentences][:3] == ["1.1", "1.2", "2.1"]
    for s in sentences:
        chunk = LEASE_CHUNKS[s.source - 1]
        assert chunk.text[s.char_start - chunk.char_start : s.char_end - chunk.char_start] == s.text


def test_selection_parsing_keeps_only_real_ids_in_evidence_order() -> None:
    sentences = number_sentences(evidence())
    assert [s.id for s in parse_selection("2.1, 1.1, 9.9", sentences)] == ["1.1", "2.1"]
    assert parse_selection("none", sentences) == []
    assert parse_selection("", sentences) == []


def test_extractive_answer_cites_each_sentence_and_leads_with_yes_no() -> None:
    selected = parse_selection("1.2", number_sentences(evidence()))
    answer = extractive_answer(selected, lead="Yes")
    assert answer == (
        "Yes: A late fee of $50 is charged when rent is paid after the fifth day of the month [1]."
    )


def test_extractive_accepts_and_quotes_equal_document_text() -> None:
    result, resources = run("extractive", ["1.1"])
    assert result["status"] == "answered", result
    assert (
        result["answer"]
        == "Tenant shall pay monthly rent of $1,250 on the first day of each month [1]."
    )
    citation = result["citations"][0]
    assert citation["quote"] == FIRST_SENTENCE
    chunk = LEASE_CHUNKS[0]
    local = slice(
        citation["char_start"] - chunk.char_start, citation["char_end"] - chunk.char_start
    )
    assert chunk.text[local] == citation["quote"]
    assert calls(resources) == 1


def test_extractive_yes_no_question_gets_a_lead() -> None:
    result, resources = run(
        "extractive", ["1.2", "Yes"], question="Is a late fee charged when rent is paid late?"
    )
    assert result["status"] == "answered", result
    assert result["answer"].startswith("Yes: A late fee of $50")
    assert calls(resources) == 2


def test_extractive_selecting_none_twice_is_refused() -> None:
    result, resources = run("extractive", ["none", "none"], challenge_refusals=True)
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "model_refused"
    assert result["answer"] == REFUSAL
    # The refusal despite strong evidence triggered one re-selection with feedback.
    assert calls(resources) == 2
    assert "rejected" in str(resources._chat_model.prompts[1])


def test_extractive_selecting_none_is_refused_at_once_by_default() -> None:
    result, resources = run("extractive", ["none", "1.1"])
    assert result["status"] == "refused"
    assert result["answer"] == REFUSAL
    assert calls(resources) == 1


def test_evidence_first_selects_then_writes() -> None:
    good = "Monthly rent of $1,250 is due on the first day of each month [1]."
    result, resources = run("evidence-first", ["1.1", good])
    assert result["status"] == "answered", result
    assert result["answer"] == good
    assert calls(resources) == 2
    writing_prompt = str(resources._chat_model.prompts[1])
    # The writer sees only the selected sentence, not the rest of the sources.
    assert FIRST_SENTENCE in writing_prompt and "security deposit" not in writing_prompt


def test_evidence_first_regenerates_after_a_failed_answer() -> None:
    bad = "The tenant must mow the lawn every Sunday [1]."
    good = "Monthly rent of $1,250 is due on the first day of each month [1]."
    result, resources = run("evidence-first", ["1.1", bad, "1.1", good])
    assert result["status"] == "answered", result
    assert result["validation"]["regenerations"] == 1
    assert calls(resources) == 4
    assert "lawn" not in str(result)


def test_evidence_first_refuses_when_validation_fails_twice() -> None:
    bad = "The tenant must mow the lawn every Sunday [1]."
    result, _ = run("evidence-first", ["1.1", bad, "1.1", bad])
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "validation_failed"
    assert "lawn" not in str(result)


def test_evidence_first_quotes_are_the_selected_sentences() -> None:
    late_fee = number_sentences(evidence())[1]
    assert late_fee.id == "1.2"
    # The answer also uses a word of sentence 1.1 ("monthly"), so the best two-sentence
    # window would be 1.1 + 1.2; the quote must still be the selected sentence alone.
    answer = "Monthly rent paid after the fifth day of the month incurs a late fee of $50 [1]."
    result, _ = run("evidence-first", ["1.2", answer], question="What is the late fee?")
    assert result["status"] == "answered", result
    citation = result["citations"][0]
    assert citation["quote"] == late_fee.text
    assert (citation["char_start"], citation["char_end"]) == (
        late_fee.char_start,
        late_fee.char_end,
    )


def test_evidence_first_reselects_with_feedback_after_selecting_none() -> None:
    good = "Monthly rent of $1,250 is due on the first day of each month [1]."
    result, resources = run("evidence-first", ["none", "1.1", good], challenge_refusals=True)
    assert result["status"] == "answered", result
    assert calls(resources) == 3
    # The second selection is not a repeat of the first: it carries the validator's feedback.
    first, second = (str(p) for p in resources._chat_model.prompts[:2])
    assert first != second and "rejected" in second
