"""Wiring of the answer graph (Algorithm 1 of the CiteGuard-RAG paper).

retrieve -> sufficiency_check -> generate -> validate -> END (validated answer)
                     |                          |-> regenerate -> validate (bounded)
                     +-> refuse <---------------+
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from citeguard.graph.context import Context
from citeguard.graph.nodes.generate import make_generate
from citeguard.graph.nodes.refuse import refuse
from citeguard.graph.nodes.regenerate import make_regenerate
from citeguard.graph.nodes.retrieve import make_retrieve
from citeguard.graph.nodes.sufficiency import sufficiency_check
from citeguard.graph.nodes.validate import make_validate
from citeguard.graph.resources import Resources, default_resources
from citeguard.graph.routing import after_sufficiency, after_validate
from citeguard.graph.state import InputState, OutputState, State


def build_graph(
    resources: Resources | None = None, allow_unvalidated: bool = False
) -> StateGraph[Any, Any, Any, Any]:
    """The uncompiled answer graph.

    Args:
        resources: models and index to use; default: the real ones, built on first use.
        allow_unvalidated: see ``nodes.validate.make_validate`` (evaluation harness only).
    """
    res = resources or default_resources()
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("retrieve", make_retrieve(res, allow_unvalidated=allow_unvalidated))
    builder.add_node("sufficiency_check", sufficiency_check)
    builder.add_node("generate", make_generate(res))
    builder.add_node("validate", make_validate(res, allow_unvalidated=allow_unvalidated))
    builder.add_node("regenerate", make_regenerate(res))
    builder.add_node("refuse", refuse)

    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "sufficiency_check")
    builder.add_conditional_edges("sufficiency_check", after_sufficiency)
    builder.add_edge("generate", "validate")
    builder.add_conditional_edges("validate", after_validate)
    builder.add_edge("regenerate", "validate")
    builder.add_edge("refuse", END)
    return builder


def compile_graph(
    resources: Resources | None = None, checkpointer: Any = None, allow_unvalidated: bool = False
) -> Any:
    """Compile the answer graph; pass a checkpointer for thread history (library use)."""
    return build_graph(resources, allow_unvalidated=allow_unvalidated).compile(
        checkpointer=checkpointer, name="citeguard"
    )


# What `langgraph dev` serves: compiled without a checkpointer (the server adds its own and
# rejects graphs that carry one). Compiling builds no model: they load on first use.
graph = compile_graph()
