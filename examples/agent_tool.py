"""A tool-calling agent that answers from documents through ``answer_from_documents``.

A minimal agent loop (model -> tools -> model ... -> final reply) built from LangGraph's
``ToolNode`` and ``tools_condition``. The agent's model decides when to call the tool;
the tool runs the whole CiteGuard graph and hands back only a validated, cited answer or
the refusal, so whatever the agent's model is, the document facts it sees are checked ones.

    citeguard ingest src/citeguard/sample_corpus/docs          # once: build ./.citeguard
    # with any tool-calling chat model LangChain can build ("provider:model"):
    python examples/agent_tool.py --model ollama:qwen2.5:7b "What is the late fee?"
    # offline, with a scripted agent model that calls the tool once and relays its result
    # (the answer itself still comes from the local model through the tool):
    python examples/agent_tool.py --demo "What is the late fee?"
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from citeguard.serve.tool import make_answer_tool

SYSTEM_PROMPT = (
    "You help tenants with questions about their documents. For any question about the "
    "documents, call answer_from_documents and answer with what it returns, keeping the "
    "[n] citations and the sources list. If it refuses, say the documents do not say."
)


def build_agent(model: BaseChatModel, tools: Sequence[BaseTool]) -> Any:
    """Compile the agent loop: ``agent`` calls the model, ``tools`` runs requested tools."""
    bound = model.bind_tools(list(tools))

    def agent(state: MessagesState) -> dict[str, Any]:
        messages: list[BaseMessage] = [SystemMessage(SYSTEM_PROMPT), *state["messages"]]
        return {"messages": [bound.invoke(messages)]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(list(tools)))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)  # -> "tools" or END
    builder.add_edge("tools", "agent")
    return builder.compile(name="agent")


class RelayModel(BaseChatModel):
    """Offline stand-in for an agent model: calls the tool with the user's question once,
    then replies with the tool's result verbatim."""

    @property
    def _llm_type(self) -> str:
        return "relay-demo"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if last.type == "tool":
            reply = AIMessage(content=str(last.content))
        else:
            question = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
            reply = AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "answer_from_documents",
                        "args": {"question": str(question.content)},
                        "id": "call_1",
                    }
                ],
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", help='a tool-calling "provider:model", e.g. ollama:qwen2.5:7b')
    which.add_argument("--demo", action="store_true", help="scripted offline agent model")
    parser.add_argument("--index", help="index folder (default $CITEGUARD_INDEX or ./.citeguard)")
    args = parser.parse_args()

    model: BaseChatModel
    if args.demo:
        model = RelayModel()
    else:
        from citeguard.llm.providers import build_chat_model

        model = build_chat_model(args.model)
    agent = build_agent(model, [make_answer_tool(index_dir=args.index)])
    result = agent.invoke({"messages": [HumanMessage(args.question)]})
    print(result["messages"][-1].content)


if __name__ == "__main__":
    main()
