"""``answer_from_documents``: the answer graph as a LangChain tool for tool-calling agents.

The tool returns text the calling model can read (the validated answer followed by its
numbered sources with page and quote, or the refusal with its reason) and, as the tool
message's artifact, the graph's full output (answer, status, refusal_reason, citations,
validation) for code that wants the structured result. Like every other way into the graph,
it can only ever return a validated answer or the standardized refusal.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from citeguard.graph.context import Context

TOOL_NAME = "answer_from_documents"
TOOL_DESCRIPTION = (
    "Answer a question from the indexed documents. Returns an answer in which every sentence "
    "cites its source ([n] markers, each listed with document, page and verbatim quote), or "
    "a refusal when the documents do not support an answer. Pass the user's question as a "
    "complete, self-contained question; quote the answer and its citations as returned."
)

REFUSAL_NOTES = {
    "insufficient_evidence": "the indexed documents contain no passage relevant enough",
    "validation_failed": "no candidate answer could be verified against the documents",
    "model_refused": "the model found no answer in the retrieved passages",
    "model_failed": "the chat model failed (an error or timeout), so nothing could be verified",
}


class AnswerFromDocumentsInput(BaseModel):
    """Arguments of the ``answer_from_documents`` tool."""

    question: str = Field(description="The question to answer from the indexed documents.")
    docs: list[str] | None = Field(
        default=None,
        description="Optional: only search these documents (file names as indexed).",
    )


def format_tool_result(result: dict[str, Any]) -> str:
    """The graph's output as text for a model: answer plus sources, or refusal plus reason."""
    if result.get("status") != "answered":
        reason = result.get("refusal_reason") or "validation_failed"
        note = REFUSAL_NOTES.get(reason, reason)
        return f"{result.get('answer', '')}\n(Refused: {reason}: {note}.)"
    lines = [str(result["answer"]), "", "Sources:"]
    for citation in result.get("citations", []):
        page = citation.get("printed_page") or citation.get("pdf_page")
        lines.append(
            f'[{citation["marker"]}] {citation["doc"]}, page {page}: "{citation["quote"]}"'
        )
    return "\n".join(lines)


def make_answer_tool(graph: Any = None, **settings: Any) -> BaseTool:
    """Build the ``answer_from_documents`` tool.

    Args:
        graph: a compiled answer graph; default ``citeguard.graph.answer_graph.local_graph()``
            (the real models, loaded once per process). Tests pass one compiled over fakes.
        **settings: ``citeguard.graph.context.Context`` fields used for every call, e.g.
            ``index_dir="/data/index"`` or ``model="ollama:qwen2.5:7b"``.

    Returns:
        A tool with ``response_format="content_and_artifact"``: the content is
        :func:`format_tool_result`'s text, the artifact the graph's output dict.

    Raises:
        ValueError: a setting is not a ``Context`` field.
    """
    context = Context.from_mapping(settings)

    def resolve_graph() -> Any:
        if graph is not None:
            return graph
        from citeguard.graph.answer_graph import local_graph

        return local_graph()

    def inputs_for(question: str, docs: list[str] | None) -> dict[str, Any]:
        inputs: dict[str, Any] = {"question": question}
        if docs:
            inputs["docs"] = list(docs)
        return inputs

    def answer(question: str, docs: list[str] | None = None) -> tuple[str, dict[str, Any]]:
        result = resolve_graph().invoke(inputs_for(question, docs), context=context)
        return format_tool_result(result), result

    async def aanswer(question: str, docs: list[str] | None = None) -> tuple[str, dict[str, Any]]:
        result = await resolve_graph().ainvoke(inputs_for(question, docs), context=context)
        return format_tool_result(result), result

    return StructuredTool.from_function(
        func=answer,
        coroutine=aanswer,
        name=TOOL_NAME,
        description=TOOL_DESCRIPTION,
        args_schema=AnswerFromDocumentsInput,
        response_format="content_and_artifact",
    )
