"""Thread history with a SQLite checkpointer (library use; the server brings its own).

The module-level ``citeguard.graph.answer_graph.graph`` is compiled without a checkpointer,
because the LangGraph server refuses graphs that carry one. In your own process, compile the builder
with any checkpointer to keep every question asked on a thread, with the state after each
step, across restarts:

    pip install 'citeguard-rag[server]'        # langgraph-checkpoint-sqlite
    citeguard ingest src/citeguard/sample_corpus/docs
    python examples/sqlite_history.py --db history.sqlite --thread tenant-1 "What is the late fee?"
    python examples/sqlite_history.py --db history.sqlite --thread tenant-1 --history

Only validated answers and refusals are ever checkpointed: unvalidated candidates live
outside graph state (``citeguard.graph.drafts``), so the history holds no draft text.
"""

from __future__ import annotations

import argparse
import sqlite3
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from citeguard.graph.answer_graph import build_graph
from citeguard.graph.context import Context


def compile_with_history(db_path: str, resources: Any = None) -> Any:
    """The answer graph with a SQLite checkpointer at ``db_path``."""
    # check_same_thread=False: LangGraph may run the checkpointer from a worker thread.
    connection = sqlite3.connect(db_path, check_same_thread=False)
    return build_graph(resources).compile(checkpointer=SqliteSaver(connection), name="citeguard")


def ask(graph: Any, thread_id: str, question: str, context: Context | None = None) -> Any:
    config = {"configurable": {"thread_id": thread_id}}
    return graph.invoke({"question": question}, config, context=context or Context())


def history(graph: Any, thread_id: str) -> list[dict[str, Any]]:
    """One entry per answered or refused question on the thread, oldest first."""
    config = {"configurable": {"thread_id": thread_id}}
    turns = []
    for snapshot in graph.get_state_history(config):  # newest first
        values = snapshot.values
        # A finished run is the checkpoint with nothing left to do.
        if not snapshot.next and values.get("status"):
            turns.append(
                {
                    "question": values["question"],
                    "status": values["status"],
                    "answer": values["answer"],
                    "checkpoint_id": snapshot.config["configurable"]["checkpoint_id"],
                }
            )
    return list(reversed(turns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question", nargs="?")
    parser.add_argument("--db", default="citeguard-history.sqlite")
    parser.add_argument("--thread", default="default")
    parser.add_argument("--index", help="index folder (default $CITEGUARD_INDEX or ./.citeguard)")
    parser.add_argument("--history", action="store_true", help="list the thread's questions")
    args = parser.parse_args()
    graph = compile_with_history(args.db)
    if args.question:
        result = ask(graph, args.thread, args.question, Context(index_dir=args.index))
        print(result["answer"])
    if args.history or not args.question:
        for turn in history(graph, args.thread):
            print(f"- {turn['question']} -> {turn['status']}: {turn['answer']}")


if __name__ == "__main__":
    main()
