"""Fault injection on the chat model: every run ends in a validated answer or a refusal
with a reason, never in a traceback and never with unvalidated text.

The faults are what a chat model does when things go wrong: it raises (a provider's error,
a timeout), returns nothing, returns garbage, cites sources that do not exist, or loops.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.graph.resources import Resources
from citeguard.text.refusal import REFUSAL
from graph_fakes import INERT_SCORER, LEASE_CHUNKS, ListSearcher, bag_of_words_embed

QUESTION = "When is the monthly rent due?"
GOOD = "Monthly rent of $1,250 is due on the first day of each month [1]."


class FaultyChatModel(GenericFakeChatModel):
    """Replies from a script in which an exception instance is raised instead of returned."""

    script: list[Any]
    calls: int = 0

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        step = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        if isinstance(step, BaseException):
            raise step
        self.messages = iter([AIMessage(content=step)])
        return super()._generate(messages, *args, **kwargs)


def faulty_resources(script: list[Any]) -> Resources:
    """Fake retrieval and judges around a chat model that follows ``script``."""
    return Resources(
        chat_model=FaultyChatModel(script=script, messages=iter([])),
        searcher=ListSearcher(LEASE_CHUNKS),
        embed=bag_of_words_embed,
        judge=lambda claim, evidence: 0.9,
        relevance=lambda question, evidence: 0.9,
        evidence_scorer=INERT_SCORER,
    )


def run(script: list[Any]) -> dict[str, Any]:
    resources = faulty_resources(script)
    result: dict[str, Any] = compile_graph(resources).invoke(
        {"question": QUESTION}, context=Context()
    )
    assert len(resources.drafts) == 0  # no draft outlives the run
    return result


def endless() -> str:
    return "The rent is due " + "and due " * 400 + "[1]."


FAULTS: dict[str, list[Any]] = {
    "exception": [RuntimeError("connection reset by peer")],
    "timeout": [TimeoutError("the provider did not answer in 60 s")],
    "empty": [""],
    "whitespace": ["   \n  "],
    "garbage": ["\x00\x01 ��� }{][ asdf qwer zxcv"],
    "out-of-range marker": ["Monthly rent of $1,250 is due on the first day of each month [9]."],
    "marker zero": ["Monthly rent of $1,250 is due on the first day of each month [0]."],
    "no marker": ["Monthly rent of $1,250 is due on the first day of each month."],
    "endless repetition": [endless()],
    "unsupported claim": ["The tenant must paint the house purple every June [1]."],
}


def check_outcome(result: dict[str, Any]) -> None:
    assert result["status"] in ("answered", "refused")
    if result["status"] == "refused":
        assert result["answer"] == REFUSAL
        assert result["refusal_reason"]
        assert result["citations"] == []
    else:
        assert result["validation"]["passed"] is True
        assert result["citations"]


@pytest.mark.parametrize("name", list(FAULTS))
def test_every_fault_ends_in_a_refusal_with_a_reason(name: str) -> None:
    result = run(FAULTS[name])
    check_outcome(result)
    assert result["status"] == "refused", result["answer"]


def test_a_failing_model_is_named_as_the_reason() -> None:
    result = run([RuntimeError("boom")])
    assert result["refusal_reason"] == "model_failed"
    assert result["validation"]["regenerations"] == 1  # retried once, then refused


def test_a_transient_failure_is_retried_and_the_retry_validated() -> None:
    result = run([TimeoutError("slow"), GOOD])
    check_outcome(result)
    assert result["status"] == "answered"
    assert result["answer"] == GOOD


@pytest.mark.parametrize("first", list(FAULTS))
def test_a_fault_then_a_good_answer_is_never_the_fault(first: str) -> None:
    result = run([*FAULTS[first], GOOD])
    check_outcome(result)
    if result["status"] == "answered":
        assert result["answer"] == GOOD


def _stream_texts(events: Iterator[Any]) -> list[str]:
    return [str(event) for event in events]


def test_no_unvalidated_text_in_any_stream_mode() -> None:
    graph = compile_graph(faulty_resources(FAULTS["unsupported claim"]))
    stream = graph.stream(
        {"question": QUESTION}, context=Context(), stream_mode=["values", "updates", "custom"]
    )
    assert not any("purple" in text for text in _stream_texts(stream))


def test_a_missing_model_is_an_error_with_its_message_not_a_refusal() -> None:
    from citeguard.errors import ModelUnavailableError

    with pytest.raises(ModelUnavailableError, match="pip install"):
        run([ModelUnavailableError("the local model is not installed: pip install ...")])


class RentPassageScorer:
    """An evidence scorer that rates passages about the monthly rent as answering."""

    threshold = 0.8
    recall_threshold = 0.3
    passage_answer_threshold = 0.8
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return np.array([0.95 if "monthly rent" in second else 0.05 for _, second in pairs])


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_fault_with_an_answering_passage_ends_in_the_validated_quote(name: str) -> None:
    resources = faulty_resources(list(FAULTS[name]) * 3)
    resources._evidence_scorer = RentPassageScorer()
    result = compile_graph(resources).invoke({"question": QUESTION}, context=Context())
    check_outcome(result)
    assert len(resources.drafts) == 0
    # Never the faulty output: the passage's own words, validated.
    assert result["status"] == "answered"
    assert result["answer"].startswith("Tenant shall pay monthly rent of $1,250")
    assert "purple" not in result["answer"] and "due and due" not in result["answer"]
