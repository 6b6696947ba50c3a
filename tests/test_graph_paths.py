"""One test per path through the answer graph, with scripted fake models."""

from __future__ import annotations

from typing import Any

import pytest

from citeguard.generate.prompts import REFUSAL
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.graph.resources import Resources
from graph_fakes import LEASE_CHUNKS, ListSearcher, bag_of_words_embed, fake_resources

RENT_Q = "When is the monthly rent due?"
GOOD = "Monthly rent of $1,250 is due on the first day of each month [1]."
UNSUPPORTED = "The tenant must mow the lawn every Sunday afternoon [1]."


def run(replies: list[str], question: str = RENT_Q, **context: Any) -> tuple[dict, Resources]:
    resources = fake_resources(replies)
    graph = compile_graph(resources)
    result = graph.invoke({"question": question}, context=Context(**context))
    return result, resources


def model_calls(resources: Resources) -> int:
    return len(resources._chat_model.prompts)  # type: ignore[union-attr]


def test_accepted_on_first_pass() -> None:
    result, resources = run([GOOD])
    assert result["status"] == "answered"
    assert result["answer"] == GOOD
    assert result["refusal_reason"] is None
    assert result["validation"]["attempts"] == 1
    assert result["validation"]["regenerations"] == 0
    citation = result["citations"][0]
    assert citation["marker"] == 1
    assert citation["doc"] == "lease.pdf"
    assert citation["pdf_page"] == 2
    assert "first day of each month" in citation["quote"]
    assert model_calls(resources) == 1


def test_invalid_citation_regenerates_then_accepts() -> None:
    result, resources = run(["Monthly rent is due on the first day of each month [7].", GOOD])
    assert result["status"] == "answered"
    assert result["answer"] == GOOD
    assert result["validation"]["regenerations"] == 1
    assert model_calls(resources) == 2
    # The regeneration prompt names the failure.
    regen_prompt = str(resources._chat_model.prompts[1])  # type: ignore[union-attr]
    assert "[7]" in regen_prompt


def test_unsupported_twice_is_refused_without_leaking_the_candidate() -> None:
    result, resources = run([UNSUPPORTED, UNSUPPORTED])
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "validation_failed"
    assert result["answer"] == REFUSAL
    assert result["citations"] == []
    assert "lawn" not in str(result)
    assert model_calls(resources) == 2


def run_with_relevance(
    replies: list[str], scores: list[float], **context: Any
) -> tuple[dict, Resources, list]:
    asked: list[tuple[str, str]] = []

    def relevance(question: str, evidence: str) -> float:
        asked.append((question, evidence))
        return scores[len(asked) - 1]

    resources = fake_resources(replies)
    resources._relevance = relevance
    graph = compile_graph(resources)
    settings = {"relevance_check": True, **context}
    result = graph.invoke({"question": RENT_Q}, context=Context(**settings))
    return result, resources, asked


GOOD_REWORDED = "The monthly rent of $1,250 is due on the first day of each month [1]."


def test_answer_whose_source_does_not_answer_the_question_regenerates_then_accepts() -> None:
    result, resources, asked = run_with_relevance([GOOD, GOOD_REWORDED], scores=[0.2, 0.8])
    assert result["status"] == "answered" and result["answer"] == GOOD_REWORDED
    assert result["validation"]["regenerations"] == 1
    assert [question for question, _ in asked] == [RENT_Q, RENT_Q]
    regen_prompt = str(resources._chat_model.prompts[1])  # type: ignore[union-attr]
    assert "do not answer the question" in regen_prompt


def test_answer_whose_sources_never_answer_the_question_is_refused() -> None:
    result, resources, asked = run_with_relevance([GOOD, GOOD_REWORDED], scores=[0.2, 0.3])
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "validation_failed"
    assert result["answer"] == REFUSAL and result["citations"] == []
    assert "$1,250" not in str(result)
    assert model_calls(resources) == 2 and len(asked) == 2


def count_validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import citeguard.graph.nodes.validate as validate_node

    checked: list[str] = []
    real = validate_node.validate_answer

    def counting(answer: str, *args: Any, **kwargs: Any) -> Any:
        checked.append(answer)
        return real(answer, *args, **kwargs)

    monkeypatch.setattr(validate_node, "validate_answer", counting)
    return checked


def test_repeat_of_an_answer_rejected_by_deterministic_checks_is_not_checked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = count_validations(monkeypatch)
    result, resources = run([UNSUPPORTED, UNSUPPORTED])
    assert result["status"] == "refused" and result["refusal_reason"] == "validation_failed"
    assert result["answer"] == REFUSAL and "lawn" not in str(result)
    assert result["validation"]["regenerations"] == 1
    assert model_calls(resources) == 2 and checked == [UNSUPPORTED]
    assert "unsupported_sentence" in result["validation"]["triggers"]


def test_repeat_is_checked_again_when_a_model_judgment_rejected_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The relevance check's P(Yes) moves in the last digits with the KV cache's state, so a
    # repeat of an answer it rejected gets a second check.
    checked = count_validations(monkeypatch)
    result, resources, asked = run_with_relevance([GOOD, GOOD], scores=[0.2, 0.9])
    assert result["status"] == "answered" and result["answer"] == GOOD
    assert checked == [GOOD, GOOD] and len(asked) == 2


def test_repeated_rejection_regenerates_again_when_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = count_validations(monkeypatch)
    result, resources = run([UNSUPPORTED, UNSUPPORTED, GOOD], max_regenerations=2)
    assert result["status"] == "answered" and result["answer"] == GOOD
    assert result["validation"]["regenerations"] == 2
    assert model_calls(resources) == 3 and checked == [UNSUPPORTED, GOOD]


def test_refusal_worded_with_another_subject_is_a_model_refusal() -> None:
    variant = "The agreement does not contain sufficient information to answer this question [1]."
    result, resources = run([variant, GOOD])
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "model_refused"
    assert result["answer"] == REFUSAL
    assert model_calls(resources) == 1


def test_relevance_check_is_on_by_default_and_can_be_turned_off() -> None:
    result, _, asked = run_with_relevance(
        [GOOD], scores=[0.9], relevance_check=Context().relevance_check
    )
    assert result["status"] == "answered" and len(asked) == 1
    result, _, asked = run_with_relevance([GOOD], scores=[], relevance_check=False)
    assert result["status"] == "answered" and asked == []


def test_insufficient_evidence_never_calls_the_model() -> None:
    resources = Resources(chat_model=None, searcher=ListSearcher([]), embed=bag_of_words_embed)
    graph = compile_graph(resources)
    result = graph.invoke({"question": RENT_Q}, context=Context())
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "insufficient_evidence"
    # chat_model=None would build the real local model if generate ran: it must not run.
    assert result["validation"]["attempts"] == 0


def test_question_about_absent_topic_is_insufficient() -> None:
    # The word rules decide without the trained scorer (with it, its floor decides).
    result, resources = run(
        [GOOD],
        question="What cryptocurrency royalties apply to uranium?",
        scorer_sufficiency=False,
    )
    assert result["refusal_reason"] == "insufficient_evidence"
    assert model_calls(resources) == 0


def test_model_refusal_despite_strong_evidence_regenerates_when_challenged() -> None:
    result, resources = run([REFUSAL, GOOD], challenge_refusals=True)
    assert result["status"] == "answered"
    assert result["validation"]["regenerations"] == 1
    assert model_calls(resources) == 2


def test_model_refusal_is_final_by_default() -> None:
    result, resources = run([REFUSAL, GOOD])
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "model_refused"
    assert result["answer"] == REFUSAL
    assert model_calls(resources) == 1


def test_max_regenerations_zero_refuses_at_first_failure() -> None:
    result, resources = run([UNSUPPORTED, GOOD], max_regenerations=0)
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "validation_failed"
    assert model_calls(resources) == 1


def test_max_regenerations_two_retries_twice_then_refuses() -> None:
    result, resources = run([UNSUPPORTED] * 3 + [GOOD], max_regenerations=2)
    assert result["status"] == "refused"
    assert result["validation"]["regenerations"] == 2
    assert model_calls(resources) == 3


def test_validation_off_is_rejected_outside_evaluation() -> None:
    resources = fake_resources([UNSUPPORTED])
    with pytest.raises(ValueError, match="evaluation harness"):
        compile_graph(resources).invoke(
            {"question": RENT_Q}, context=Context(validation_level="off")
        )
    assert model_calls(resources) == 0, "rejected before any model call"


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"validation_level": "bogus"}, "validation_level"),
        ({"retrieval_mode": "semantic"}, "retrieval_mode"),
        ({"top_k": "8"}, "top_k"),
        ({"context_k": 0}, "context_k"),
        ({"max_regenerations": -1}, "max_regenerations"),
        ({"alpha": 1.5}, "alpha"),
        ({"rerank": "yes"}, "rerank"),
    ],
)
def test_bad_settings_are_rejected_with_their_name(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Context.from_mapping(settings)


def test_answer_api_uses_index_dir_given_as_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    import citeguard.graph.answer_graph
    from citeguard import api

    seen: list[Context] = []

    class Recorder:
        def invoke(self, inputs: dict, context: Context) -> dict:
            seen.append(context)
            return {}

    monkeypatch.setattr(citeguard.graph.answer_graph, "_local_graph", Recorder())
    api.answer("q", index_dir="/tmp/some-index")
    api.answer("q", index="/tmp/other", top_k=3)
    assert [c.index_dir for c in seen] == ["/tmp/some-index", "/tmp/other"]
    assert seen[1].top_k == 3


def test_document_scope_reaches_the_searcher() -> None:
    resources = fake_resources([GOOD])
    result = compile_graph(resources).invoke(
        {"question": RENT_Q, "docs": ["other.pdf"]}, context=Context()
    )
    assert result["refusal_reason"] == "insufficient_evidence"


def test_output_has_exactly_the_output_schema_keys() -> None:
    result, _ = run([GOOD])
    assert set(result) <= {
        "question",
        "answer",
        "status",
        "refusal_reason",
        "citations",
        "validation",
    }
    assert "candidate" not in result and "evidence" not in result


def test_lease_chunks_fixture_is_consistent() -> None:
    assert all(c.char_end - c.char_start == len(c.text) for c in LEASE_CHUNKS)


@pytest.mark.parametrize("mode", ["updates", "values", "messages", "custom", "debug", "tasks"])
def test_failed_candidate_leaves_no_trace_in_any_stream_mode(mode: str) -> None:
    resources = fake_resources([UNSUPPORTED, UNSUPPORTED])
    graph = compile_graph(resources)
    chunks = list(graph.stream({"question": RENT_Q}, context=Context(), stream_mode=mode))
    if mode != "messages":  # messages mode carries model tokens only, and there are none
        assert chunks, "the stream produced nothing"
    assert "lawn" not in str(chunks)


def test_failed_candidate_leaves_no_trace_in_stream_events() -> None:
    """The server's "events" stream mode forwards astream_events: model start/end events
    would carry the draft and the regeneration prompt (which quotes it)."""
    import asyncio

    resources = fake_resources([UNSUPPORTED, UNSUPPORTED])
    graph = compile_graph(resources)

    async def collect() -> list[Any]:
        stream = graph.astream_events({"question": RENT_Q}, context=Context(), version="v2")
        return [event async for event in stream]

    events = asyncio.run(collect())
    assert events, "the stream produced nothing"
    assert not [e for e in events if e["event"].startswith("on_chat_model")]
    assert "lawn" not in str(events)


def test_messages_mode_would_show_an_untagged_model() -> None:
    """Control for the test above: the generator's tag is what keeps its tokens private."""
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    from graph_fakes import scripted_model

    class S(TypedDict):
        out: str

    model = scripted_model([UNSUPPORTED])

    def node(state: S) -> S:
        return {"out": str(model.invoke("q").content)}

    builder = StateGraph(S)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    chunks = list(builder.compile().stream({"out": ""}, stream_mode="messages"))
    assert "lawn" in str(chunks)


def test_validated_answer_is_streamed_sentence_by_sentence_in_custom_mode() -> None:
    resources = fake_resources([GOOD])
    events = list(
        compile_graph(resources).stream(
            {"question": RENT_Q}, context=Context(), stream_mode="custom"
        )
    )
    kinds = [e["event"] for e in events]
    assert kinds[0] == "retrieved"
    assert "validating" in kinds
    sentences = [e for e in events if e["event"] == "sentence"]
    assert [s["text"] for s in sentences] == [GOOD]
    assert sentences[0]["citations"][0]["doc"] == "lease.pdf"
    # No sentence is streamed before validation has run.
    assert kinds.index("sentence") > kinds.index("validating")


def test_refusal_stream_reports_the_reason() -> None:
    resources = fake_resources([UNSUPPORTED, UNSUPPORTED])
    events = list(
        compile_graph(resources).stream(
            {"question": RENT_Q}, context=Context(), stream_mode="custom"
        )
    )
    assert {"event": "refused", "reason": "validation_failed"} in events
    assert any(e["event"] == "regenerating" for e in events)


def test_drafts_belong_to_the_resources_and_none_outlive_the_run() -> None:
    """A waiting candidate sits in its own graph's resources (never in state, never in
    another graph's store), and the run drops it when it ends, delivered or refused."""
    from langgraph.checkpoint.memory import InMemorySaver

    from citeguard.graph.answer_graph import build_graph

    answering, refusing = fake_resources([GOOD]), fake_resources([UNSUPPORTED, UNSUPPORTED])
    paused = build_graph(answering).compile(
        checkpointer=InMemorySaver(), interrupt_after=["generate"]
    )
    thread = {"configurable": {"thread_id": "t1"}}
    paused.invoke({"question": RENT_Q}, thread, context=Context())
    waiting = paused.get_state(thread).values
    assert len(answering.drafts) == 1 and len(refusing.drafts) == 0
    assert answering.drafts.get(waiting["candidate_ref"])["candidate"] == GOOD
    assert GOOD not in str(waiting)

    refused = compile_graph(refusing).invoke({"question": RENT_Q}, context=Context())
    assert refused["status"] == "refused" and len(refusing.drafts) == 0
    assert len(answering.drafts) == 1, "another graph's run leaves this one's draft alone"

    answered = paused.invoke(None, thread, context=Context())
    assert answered["status"] == "answered" and answered["answer"] == GOOD
    assert len(answering.drafts) == 0


def test_a_thread_starts_each_question_afresh() -> None:
    """With a checkpointer, state persists between runs of a thread: the document scope and
    the previous verdict must not carry over to the next question."""
    from langgraph.checkpoint.memory import InMemorySaver

    graph = compile_graph(fake_resources([GOOD, GOOD]), checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t1"}}
    answered = graph.invoke({"question": RENT_Q}, thread, context=Context())
    assert answered["status"] == "answered"

    # Scoped to a document that is not indexed: insufficient evidence, and the verdict
    # shown is not the previous answer's.
    scoped = graph.invoke({"question": RENT_Q, "docs": ["other.pdf"]}, thread, context=Context())
    assert scoped["refusal_reason"] == "insufficient_evidence"
    assert scoped["validation"].get("sentences", []) == []

    # No scope given: the whole index again, not the previous question's scope.
    again = graph.invoke({"question": RENT_Q}, thread, context=Context())
    assert again["status"] == "answered", again


@pytest.mark.parametrize("question", ["", "   ", "x" * 1001, "rent?\x07"])
def test_a_question_that_cannot_be_asked_fails_before_search_or_model(question: str) -> None:
    from citeguard.errors import InvalidQuestionError

    resources = fake_resources([GOOD])
    graph = compile_graph(resources)
    with pytest.raises(InvalidQuestionError):
        graph.invoke({"question": question}, context=Context())
    assert model_calls(resources) == 0


def test_the_draft_trail_run_returns_invokes_state_and_each_drafts_verdict() -> None:
    """``invoke_with_trail`` (the harness's and ``ask --show-validation``'s way to run the
    graph) gives the state invoke gives, and the unsupported first draft's verdict before
    the regeneration's."""
    from citeguard.graph.draft_trail import invoke_with_trail

    invoked, _ = run([UNSUPPORTED, GOOD])
    resources = fake_resources([UNSUPPORTED, GOOD])
    state, drafts = invoke_with_trail(
        compile_graph(resources), {"question": RENT_Q}, context=Context()
    )
    assert state == invoked
    assert [(d["drafted_by"], d["passed"]) for d in drafts] == [
        ("generate", False),
        ("regenerate", True),
    ]


def test_a_run_reports_each_step_as_it_starts_and_answers_as_invoke_does() -> None:
    """``on_step`` (``citeguard ask``'s status line) hears each node in order, by name
    only, and changes nothing of the state."""
    from citeguard.graph.draft_trail import invoke_with_trail

    invoked, _ = run([UNSUPPORTED, GOOD])
    steps: list[str] = []
    state, _ = invoke_with_trail(
        compile_graph(fake_resources([UNSUPPORTED, GOOD])),
        {"question": RENT_Q},
        on_step=steps.append,
        context=Context(),
    )
    assert state == invoked
    assert steps == [
        "retrieve",
        "sufficiency_check",
        "generate",
        "validate",
        "regenerate",
        "validate",
    ]
