"""studio/graph.mmd is the drawing of the graph the code builds, and that graph is Algorithm 1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from algorithm1 import CONDITIONAL_EDGES, NODES, PLAIN_EDGES
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.resources import Resources
from citeguard.serve.cli import main as cli_main

DRAWING = Path(__file__).resolve().parents[1] / "studio" / "graph.mmd"

EDGE_LINE = re.compile(r"^\s*(\w+)\s+(-->|-\.->)\s+(\w+);\s*$")


def drawn_edges(mermaid: str) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(plain, conditional) edges of a Mermaid flowchart as draw_mermaid() writes them.

    Labelled edges (``a -. label .-> b``) would not match EDGE_LINE; the graph has none,
    and the count check below fails if one ever appears.
    """
    plain, conditional = set(), set()
    for line in mermaid.splitlines():
        match = EDGE_LINE.match(line)
        if match:
            source, arrow, target = match.groups()
            (plain if arrow == "-->" else conditional).add((source, target))
    return plain, conditional


def test_drawing_matches_the_citeguard_graph_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["graph"]) == 0
    printed = capsys.readouterr().out
    assert DRAWING.read_text(encoding="utf-8") == printed, (
        "studio/graph.mmd is out of date: run `citeguard graph > studio/graph.mmd`"
    )


def test_graph_has_exactly_the_seven_nodes_and_their_edges() -> None:
    graph = compile_graph(Resources()).get_graph()
    assert set(graph.nodes) - {"__start__", "__end__"} == NODES
    edges = [(e.source, e.target, e.conditional) for e in graph.edges]
    assert len(edges) == len(set(edges)), "duplicate edges"
    assert {(s, t) for s, t, c in edges if not c} == PLAIN_EDGES
    assert {(s, t) for s, t, c in edges if c} == CONDITIONAL_EDGES


def test_drawing_shows_exactly_algorithm_1_edges() -> None:
    mermaid = DRAWING.read_text(encoding="utf-8")
    plain, conditional = drawn_edges(mermaid)
    assert plain == PLAIN_EDGES
    assert conditional == CONDITIONAL_EDGES
    arrows = sum(line.count("-->") + line.count("-.->") for line in mermaid.splitlines())
    assert arrows == len(PLAIN_EDGES) + len(CONDITIONAL_EDGES), "an edge the parser missed"
    for node in NODES:
        assert re.search(rf"^\s*{node}\({node}\)\s*$", mermaid, re.MULTILINE), node
