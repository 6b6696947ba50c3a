"""The answer_from_documents tool, alone and driven by a scripted tool-calling agent."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from citeguard.generate.prompts import REFUSAL
from citeguard.graph.answer_graph import compile_graph
from citeguard.serve.tool import TOOL_NAME, make_answer_tool
from graph_fakes import fake_resources, load_example

RENT_Q = "When is the monthly rent due?"
GOOD = "Monthly rent of $1,250 is due on the first day of each month [1]."
UNSUPPORTED = "The tenant must mow the lawn every Sunday afternoon [1]."


class ScriptedToolCaller(GenericFakeChatModel):
    """GenericFakeChatModel that accepts bind_tools and records what it was shown."""

    seen: list[list[Any]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def tool_call(question: str) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": TOOL_NAME, "args": {"question": question}, "id": "call_1"}],
    )


def test_tool_returns_the_validated_answer_with_citations() -> None:
    tool = make_answer_tool(compile_graph(fake_resources([GOOD])))
    message = tool.invoke(
        {"type": "tool_call", "name": TOOL_NAME, "args": {"question": RENT_Q}, "id": "c1"}
    )
    assert isinstance(message, ToolMessage)
    assert message.content.startswith(GOOD)
    assert 'lease.pdf, page 2: "' in message.content
    assert "first day of each month" in message.content
    assert message.artifact["status"] == "answered"
    assert message.artifact["citations"][0]["pdf_page"] == 2


def test_tool_returns_the_refusal_and_never_the_failed_candidate() -> None:
    tool = make_answer_tool(compile_graph(fake_resources([UNSUPPORTED, UNSUPPORTED])))
    text = tool.invoke({"question": RENT_Q})
    assert text.startswith(REFUSAL)
    assert "validation_failed" in text
    assert "lawn" not in text


def test_tool_schema_and_settings() -> None:
    tool = make_answer_tool(compile_graph(fake_resources([GOOD])), max_regenerations=0)
    assert tool.name == "answer_from_documents"
    assert set(tool.args) == {"question", "docs"}
    with pytest.raises(ValueError, match="unknown setting"):
        make_answer_tool(compile_graph(fake_resources([GOOD])), top_kk=3)


def test_tool_passes_the_document_scope() -> None:
    tool = make_answer_tool(compile_graph(fake_resources([GOOD])))
    text = tool.invoke({"question": RENT_Q, "docs": ["other.pdf"]})
    assert "insufficient_evidence" in text


def test_tool_async() -> None:
    tool = make_answer_tool(compile_graph(fake_resources([GOOD])))
    assert asyncio.run(tool.ainvoke({"question": RENT_Q})).startswith(GOOD)


def test_scripted_agent_calls_the_tool_and_relays_the_cited_answer() -> None:
    agent_example = load_example("agent_tool")
    agent_model = ScriptedToolCaller(
        messages=iter([tool_call(RENT_Q), AIMessage(content="Rent is due on the 1st [1].")])
    )
    agent_model.seen = []
    tool = make_answer_tool(compile_graph(fake_resources([GOOD])))
    agent = agent_example.build_agent(agent_model, [tool])
    result = agent.invoke({"messages": [HumanMessage(RENT_Q)]})

    messages = result["messages"]
    assert [m.type for m in messages] == ["human", "ai", "tool", "ai"]
    tool_message = messages[2]
    assert tool_message.name == TOOL_NAME
    assert tool_message.content.startswith(GOOD)
    assert tool_message.artifact["citations"][0]["doc"] == "lease.pdf"
    # The agent model's second turn saw the tool's validated answer.
    assert any(GOOD in str(m.content) for m in agent_model.seen[1])
    assert messages[-1].content == "Rent is due on the 1st [1]."


def test_demo_relay_agent_returns_the_tool_output_verbatim() -> None:
    agent_example = load_example("agent_tool")
    tool = make_answer_tool(compile_graph(fake_resources([UNSUPPORTED, UNSUPPORTED])))
    agent = agent_example.build_agent(agent_example.RelayModel(), [tool])
    result = agent.invoke({"messages": [HumanMessage(RENT_Q)]})
    final = result["messages"][-1].content
    assert final.startswith(REFUSAL)
    assert "lawn" not in str(result["messages"])
