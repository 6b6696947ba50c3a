"""The CiteGuard answer graph as one node of a larger graph.

The parent graph shares the ``question`` and ``answer`` keys (and ``status``/``citations``)
with the answer graph, so the compiled graph is added as a node directly: LangGraph passes
the parent's state in and copies the subgraph's output keys back. The parent adds its own
steps around it: here, tidy the user's question before, and format a reply after.

    citeguard ingest src/citeguard/sample_corpus/docs      # once: build ./.citeguard
    python examples/parent_graph.py "what is the late fee?"

Streaming with ``subgraphs=True`` shows the inner nodes (retrieve, sufficiency_check,
generate, validate, ...) under the namespace of the ``citeguard`` node.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from citeguard.graph.context import Context
from citeguard.graph.state import Citation


class ParentState(TypedDict, total=False):
    """The parent's state; the first four keys are the answer graph's own."""

    question: str
    answer: str
    status: str
    citations: list[Citation]
    reply: str
    """The parent's own output: the answer with a short list of sources."""


def tidy_question(state: ParentState) -> dict[str, Any]:
    """The parent's own pre-processing: collapse whitespace, end with a question mark."""
    question = " ".join(state["question"].split())
    if question and not question.endswith("?"):
        question += "?"
    return {"question": question}


def format_reply(state: ParentState) -> dict[str, Any]:
    """The parent's own post-processing: a reply for a chat window."""
    lines = [state.get("answer", "")]
    for citation in state.get("citations", []):
        lines.append(f"  [{citation['marker']}] {citation['doc']}, page {citation['printed_page']}")
    return {"reply": "\n".join(lines)}


def build_parent_graph(answer_graph: Any = None) -> Any:
    """Compile the parent graph around ``answer_graph`` (default: the real one)."""
    if answer_graph is None:
        from citeguard.graph.answer_graph import local_graph

        answer_graph = local_graph()

    builder = StateGraph(ParentState, context_schema=Context)
    builder.add_node("tidy_question", tidy_question)
    builder.add_node("citeguard", answer_graph)  # the compiled graph is the node
    builder.add_node("format_reply", format_reply)
    builder.add_edge(START, "tidy_question")
    builder.add_edge("tidy_question", "citeguard")
    builder.add_edge("citeguard", "format_reply")
    builder.add_edge("format_reply", END)
    return builder.compile(name="parent")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--index", help="index folder (default $CITEGUARD_INDEX or ./.citeguard)")
    args = parser.parse_args()
    parent = build_parent_graph()
    context = Context(index_dir=args.index)
    # Each chunk is (namespace, mode, data): namespace () for the parent's nodes and
    # ("citeguard:<task id>",) for the answer graph's inner nodes.
    final: dict[str, Any] = {}
    for namespace, mode, data in parent.stream(
        {"question": args.question},
        context=context,
        stream_mode=["updates", "values"],
        subgraphs=True,
    ):
        if mode == "updates":
            print(f"{' / '.join(namespace) or 'parent'}: {', '.join(data)}")
        elif not namespace:
            final = data
    print(final.get("reply", ""))
    print(json.dumps(final.get("citations", []), indent=2))


if __name__ == "__main__":
    main()
