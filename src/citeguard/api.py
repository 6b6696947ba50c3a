"""The Python entry point: ``citeguard.answer(question, index=..., **settings)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from citeguard.graph.context import Context
from citeguard.text.questions import checked_question


def answer(
    question: str,
    index: str | None = None,
    docs: list[str] | None = None,
    with_drafts: bool = False,
    on_step: Callable[[str], None] | None = None,
    **settings: Any,
) -> dict[str, Any]:
    """Answer ``question`` from the index and return the graph's output.

    Args:
        question: the question.
        index: index folder (default $CITEGUARD_INDEX or ./.citeguard).
        docs: optional document scope (file names as indexed).
        with_drafts: also return ``drafts``: each draft the validator judged, who wrote
            it and what it decided, without its words (``graph.draft_trail``), so
            that a refusal says where it came from.
        on_step: called with each step's name (a graph node: ``retrieve``, ``generate``,
            ``validate`` ...) as it starts, to show progress; it never sees any text of
            a draft.
        **settings: any ``citeguard.graph.context.Context`` field, e.g.
            ``model="ollama:qwen2.5:7b"``.

    Returns:
        The output schema as a dict: answer, status, refusal_reason, citations, validation.
        Models load once per process; later calls reuse them.

    Raises:
        InvalidQuestionError: the question is empty, too long or holds control characters.
    """
    from citeguard.graph.answer_graph import local_graph

    checked_question(question)
    if index is not None:
        settings = {**settings, "index_dir": index}
    context = Context.from_mapping(settings)
    inputs: dict[str, Any] = {"question": question}
    if docs:
        inputs["docs"] = list(docs)
    if not with_drafts and on_step is None:
        result: dict[str, Any] = local_graph().invoke(inputs, context=context)
        return result
    from citeguard.graph.draft_trail import invoke_with_trail

    state, drafts = invoke_with_trail(local_graph(), inputs, on_step=on_step, context=context)
    return {**state, "drafts": drafts} if with_drafts else state
