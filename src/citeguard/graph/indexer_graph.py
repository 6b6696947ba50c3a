"""The "indexer" graph: ingest files and folders into an index, return the ingest summary.

A one-node graph so that the LangGraph server (``langgraph.json``) can build or update the
index the "citeguard" graph answers from, with the same conventions as the answer graph:
input and output schemas with a description on every field, settings in a ``context_schema``
dataclass, and progress through the custom stream writer.

Paths are read on the machine that runs the graph (the server's file system), relative to
its working directory.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, NotRequired

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from citeguard.index.embedder import Embedder
from citeguard.ingest.pipeline import ingest_paths

# One ingest at a time per process: two concurrent runs writing the same index would each
# build a new generation from the same old one, and the second would drop the first's files.
_INGEST_LOCK = threading.Lock()


@with_config(ConfigDict(use_attribute_docstrings=True))
class IndexerInput(TypedDict):
    """What to index."""

    paths: list[str]
    """PDF or text files and folders (searched recursively) on the server's file system."""
    index_dir: NotRequired[str | None]
    """Index folder; default $CITEGUARD_INDEX or ./.citeguard (the answer graph's default)."""
    rebuild: NotRequired[bool]
    """Discard the existing index and build it from these paths only (needed to change the
    embedding model or chunk settings)."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class IndexerOutput(TypedDict, total=False):
    """What the ingest did."""

    summary: dict[str, Any]
    """The ingest summary: files_seen, added, replaced, unchanged, pages, chunks, skipped
    ([file, reason] pairs), total_chunks_in_index, seconds, index_dir, generation (null when
    nothing changed) and the added/replaced/unchanged document names."""


class IndexerState(IndexerInput, IndexerOutput, total=False):
    """Full state of the indexer graph (input plus output)."""


@dataclass(frozen=True)
class IndexerContext:
    """Settings for one run of the indexer graph."""

    embedding_model: str | None = field(
        default=None,
        metadata={
            "description": "Embedding model for a new index (all-MiniLM-L6-v2 or "
            "all-mpnet-base-v2); default: the existing index's model, or all-MiniLM-L6-v2."
        },
    )


def build_indexer_graph(embedder: Embedder | None = None) -> StateGraph[Any, Any, Any, Any]:
    """The uncompiled indexer graph.

    Args:
        embedder: an already-built embedder (tests pass a model-free one); default: the
            process-wide embedder for the index's model, loaded once.
    """

    def ingest(state: IndexerState, runtime: Runtime[IndexerContext]) -> dict[str, Any]:
        ctx = runtime.context if isinstance(runtime.context, IndexerContext) else None
        if isinstance(runtime.context, dict):
            ctx = IndexerContext(**runtime.context)
        paths = list(state["paths"])
        if not paths:
            raise ValueError("paths is empty: give at least one file or folder to index")
        if runtime.stream_writer is not None:
            runtime.stream_writer({"event": "ingesting", "paths": paths})
        with _INGEST_LOCK:
            summary = ingest_paths(
                paths,
                index_dir=state.get("index_dir") or None,
                embedding_model=ctx.embedding_model if ctx else None,
                rebuild=bool(state.get("rebuild", False)),
                embedder=embedder,
            )
        result = summary.to_json()
        if runtime.stream_writer is not None:
            runtime.stream_writer({"event": "ingested", "chunks": result["chunks"]})
        # rebuild and index_dir are per-run input: on a thread (checkpointer) they would
        # otherwise persist, and a later plain ingest would wipe the index again.
        return {"summary": result, "rebuild": False, "index_dir": None}

    builder = StateGraph(
        IndexerState,
        context_schema=IndexerContext,
        input_schema=IndexerInput,
        output_schema=IndexerOutput,
    )
    builder.add_node("ingest", ingest)
    builder.add_edge(START, "ingest")
    builder.add_edge("ingest", END)
    return builder


def compile_indexer_graph(embedder: Embedder | None = None, checkpointer: Any = None) -> Any:
    """Compile the indexer graph (no checkpointer for the server)."""
    return build_indexer_graph(embedder).compile(checkpointer=checkpointer, name="indexer")


# What `langgraph dev` serves as "indexer": no checkpointer, no model built at import.
graph = compile_indexer_graph()
