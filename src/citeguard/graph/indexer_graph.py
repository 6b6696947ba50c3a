"""The "indexer" graph: ingest files and folders into an index, return the ingest summary.

A one-node graph so that the LangGraph server (``langgraph.json``) can build or update the
index the "citeguard" graph answers from, with the same conventions as the answer graph:
input and output schemas with a description on every field, settings in a ``context_schema``
dataclass, and progress through the custom stream writer.

Documents come as paths on the machine that runs the graph, or as ``uploads`` (a file's
name and its bytes in base64), which is how a remote client adds its own files. The graph
``langgraph.json`` serves applies the operator's access policy (``citeguard.graph.access``):
paths only under ``CITEGUARD_DOCUMENT_ROOTS`` (none when unset), indexes only the default one
or under ``CITEGUARD_INDEX_ROOT``. Uploads are checked for name, type and size, then written
into the index folder's ``uploads/`` and indexed from there. A run asking for anything else
fails with a clear message before anything is read or written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from citeguard.graph.access import ServerAccess
from citeguard.graph.uploads import checked_upload, save_uploads
from citeguard.index.embedder import Embedder
from citeguard.index.store import resolve_index_dir
from citeguard.ingest.pipeline import ingest_paths

# One ingest at a time per process: two concurrent runs writing the same index would each
# build a new generation from the same old one, and the second would drop the first's files.
_INGEST_LOCK = threading.Lock()


@with_config(ConfigDict(use_attribute_docstrings=True))
class Upload(TypedDict):
    """One file a client sends to be indexed."""

    name: str
    """The file's name, e.g. "lease.pdf": a plain name with a supported suffix."""
    content_base64: str
    """The file's bytes, base64-encoded."""


@with_config(ConfigDict(use_attribute_docstrings=True))
class IndexerInput(TypedDict):
    """What to index."""

    paths: NotRequired[list[str]]
    """Files and folders (searched recursively) on the server's file system; a served graph
    reads only those under the operator's document roots."""
    uploads: NotRequired[list[Upload]]
    """Files sent by the client: each a name (with a supported suffix) and its bytes."""
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


def build_indexer_graph(
    embedder: Embedder | None = None, access: Callable[[], ServerAccess | None] | None = None
) -> StateGraph[Any, Any, Any, Any]:
    """The uncompiled indexer graph.

    Args:
        embedder: an already-built embedder (tests pass a model-free one); default: the
            process-wide embedder for the index's model, loaded once.
        access: for a served graph, the operator's policy, asked at each run; None: any
            path and any index (the machine's own user).
    """

    def ingest(state: IndexerState, runtime: Runtime[IndexerContext]) -> dict[str, Any]:
        ctx = runtime.context if isinstance(runtime.context, IndexerContext) else None
        if isinstance(runtime.context, dict):
            ctx = IndexerContext(**runtime.context)
        policy = access() if access is not None else None
        raw_paths = list(state.get("paths") or [])
        uploads = list(state.get("uploads") or [])
        if not raw_paths and not uploads:
            raise ValueError("nothing to index: paths is empty and there are no uploads")
        # Every check before anything is read or written.
        index_dir = state.get("index_dir") or None
        paths: list[str] = raw_paths
        roots: list[Path] | None = None
        if policy is not None:
            index_dir = policy.index_dir(index_dir)
            paths = [str(policy.document_path(raw)) for raw in raw_paths]
            roots = list(policy.document_roots)
        files = [checked_upload(upload) for upload in uploads]
        if runtime.stream_writer is not None:
            runtime.stream_writer({"event": "ingesting", "paths": raw_paths, "uploads": len(files)})
        with _INGEST_LOCK:
            if files:
                folder = save_uploads(files, resolve_index_dir(index_dir))
                paths += [str(folder / name) for name, _ in files]
                if roots is not None:
                    roots.append(folder)
            summary = ingest_paths(
                paths,
                index_dir=index_dir,
                embedding_model=ctx.embedding_model if ctx else None,
                rebuild=bool(state.get("rebuild", False)),
                embedder=embedder,
                allowed_roots=roots,
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


def compile_indexer_graph(
    embedder: Embedder | None = None,
    checkpointer: Any = None,
    access: Callable[[], ServerAccess | None] | None = None,
) -> Any:
    """Compile the indexer graph (no checkpointer for the server)."""
    builder = build_indexer_graph(embedder, access)
    return builder.compile(checkpointer=checkpointer, name="indexer")


# What `langgraph dev` serves as "indexer": no checkpointer, no model built at import, and
# the operator's access policy read from the server's environment at each run.
graph = compile_indexer_graph(access=ServerAccess.from_environment)
