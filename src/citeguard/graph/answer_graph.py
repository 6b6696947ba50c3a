"""Wiring of the answer graph (Algorithm 1 of the CiteGuard-RAG paper).

retrieve -> sufficiency_check -> generate -> validate -> END (validated answer)
                     |                          |-> regenerate -> validate (bounded)
                     |                          |-> answer_from_passage -> validate (twice at most)
                     |                          |-> generate (after a quote tried first)
                     |-> answer_from_passage (a passage the scorer is sure of, first)
                     +-> refuse <---------------+
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from citeguard.graph.acceptance import VALIDATED, Acceptance
from citeguard.graph.context import Context
from citeguard.graph.nodes.answer_from_passage import make_answer_from_passage
from citeguard.graph.nodes.generate import make_generate
from citeguard.graph.nodes.refuse import make_refuse
from citeguard.graph.nodes.regenerate import make_regenerate
from citeguard.graph.nodes.retrieve import make_retrieve
from citeguard.graph.nodes.sufficiency import make_sufficiency_check
from citeguard.graph.nodes.validate import make_validate
from citeguard.graph.resources import Resources, default_resources, served_resources
from citeguard.graph.routing import after_sufficiency, after_validate
from citeguard.graph.state import InputState, OutputState, State


def build_graph(
    resources: Resources | None = None, acceptance: Acceptance = VALIDATED
) -> StateGraph[Any, Any, Any, Any]:
    """The uncompiled answer graph.

    Args:
        resources: models, index and draft store to use; default: the real ones, built on
            first use.
        acceptance: when a candidate is delivered; default: only when it passes validation
            (``citeguard.graph.acceptance``). The evaluation harness passes its own.
    """
    res = resources or default_resources()
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("retrieve", make_retrieve(res, acceptance))
    builder.add_node("sufficiency_check", make_sufficiency_check(res))
    builder.add_node("generate", make_generate(res))
    builder.add_node("validate", make_validate(res, acceptance))
    builder.add_node("regenerate", make_regenerate(res))
    builder.add_node("answer_from_passage", make_answer_from_passage(res))
    builder.add_node("refuse", make_refuse(res))

    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "sufficiency_check")
    builder.add_conditional_edges("sufficiency_check", after_sufficiency)
    builder.add_edge("generate", "validate")
    builder.add_conditional_edges("validate", after_validate)
    builder.add_edge("regenerate", "validate")
    builder.add_edge("answer_from_passage", "validate")
    builder.add_edge("refuse", END)
    return builder


def compile_graph(
    resources: Resources | None = None,
    checkpointer: Any = None,
    acceptance: Acceptance = VALIDATED,
) -> Any:
    """Compile the answer graph; pass a checkpointer for thread history (library use)."""
    return build_graph(resources, acceptance).compile(checkpointer=checkpointer, name="citeguard")


_local_graph: Any = None


def local_graph() -> Any:
    """The answer graph for this machine's own user (API, CLI, tool, subgraph): any index."""
    global _local_graph
    if _local_graph is None:
        _local_graph = compile_graph()
    return _local_graph


# What `langgraph dev` serves: compiled without a checkpointer (the server adds its own and
# rejects graphs that carry one), with the operator's access policy (runs name only indexes
# under CITEGUARD_INDEX_ROOT). Compiling builds no model: they load on first use.
graph = compile_graph(served_resources())
