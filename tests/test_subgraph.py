"""The answer graph embedded in other graphs: the parent-graph example, the indexer graph,
and the SQLite thread-history example."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeguard.generate.prompts import REFUSAL
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.graph.indexer_graph import IndexerContext, compile_indexer_graph
from citeguard.index.dense import HashingEmbedder
from graph_fakes import fake_resources, load_example
from pdf_factory import make_sample_contract_pdf

RENT_Q = "When is the monthly rent due?"
GOOD = "Monthly rent of $1,250 is due on the first day of each month [1]."
UNSUPPORTED = "The tenant must mow the lawn every Sunday afternoon [1]."
INNER_NODES = {"retrieve", "sufficiency_check", "generate", "validate"}


def test_parent_graph_shares_question_and_answer_keys() -> None:
    parent = load_example("parent_graph").build_parent_graph(compile_graph(fake_resources([GOOD])))
    result = parent.invoke({"question": "  when is the   monthly rent due "}, context=Context())
    assert result["question"] == "when is the monthly rent due?"  # the parent's own step ran
    assert result["answer"] == GOOD
    assert result["status"] == "answered"
    assert result["reply"].startswith(GOOD)
    assert "lease.pdf, page 2" in result["reply"]
    # Internal keys of the answer graph stay inside it.
    assert "evidence" not in result and "candidate_ref" not in result


def test_streaming_with_subgraphs_shows_the_inner_nodes() -> None:
    answer_graph = compile_graph(fake_resources([GOOD, GOOD]))  # two runs below
    parent = load_example("parent_graph").build_parent_graph(answer_graph)
    chunks = list(
        parent.stream(
            {"question": RENT_Q}, context=Context(), stream_mode="updates", subgraphs=True
        )
    )
    outer = [node for ns, update in chunks if ns == () for node in update]
    inner = {
        node for ns, update in chunks if ns and ns[0].startswith("citeguard:") for node in update
    }
    assert outer == ["tidy_question", "citeguard", "format_reply"]
    assert INNER_NODES <= inner
    # Without subgraphs=True the inner nodes are hidden.
    flat = list(parent.stream({"question": RENT_Q}, context=Context(), stream_mode="updates"))
    assert [node for update in flat for node in update] == outer


def test_parent_graph_never_sees_a_failed_candidate() -> None:
    parent = load_example("parent_graph").build_parent_graph(
        compile_graph(fake_resources([UNSUPPORTED, UNSUPPORTED]))
    )
    chunks = list(
        parent.stream(
            {"question": RENT_Q},
            context=Context(),
            stream_mode=["updates", "values", "custom", "messages"],
            subgraphs=True,
        )
    )
    assert "lawn" not in str(chunks)
    final = [data for ns, mode, data in chunks if ns == () and mode == "values"][-1]
    assert final["answer"] == REFUSAL and final["status"] == "refused"


def test_sqlite_history_example_keeps_each_question_of_a_thread(tmp_path: Path) -> None:
    example = load_example("sqlite_history")
    resources = fake_resources([GOOD, UNSUPPORTED, UNSUPPORTED])
    graph = example.compile_with_history(str(tmp_path / "history.sqlite"), resources)
    assert example.ask(graph, "t1", RENT_Q)["status"] == "answered"
    assert example.ask(graph, "t1", "Who mows the lawn?")["status"] == "refused"
    turns = example.history(graph, "t1")
    assert [(t["question"], t["status"]) for t in turns] == [
        (RENT_Q, "answered"),
        ("Who mows the lawn?", "refused"),
    ]
    assert example.history(graph, "another-thread") == []
    # Checkpoints hold no draft text (the failed candidates mention the lawn only in
    # the question, never with "Sunday afternoon").
    assert "Sunday afternoon" not in (tmp_path / "history.sqlite").read_bytes().decode("latin-1")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_sample_contract_pdf(folder / "contract.pdf")
    (folder / "notes.txt").write_text("The landlord repairs the heating within 48 hours.\n")
    return folder


def test_indexer_graph_ingests_and_returns_the_summary(corpus: Path, tmp_path: Path) -> None:
    indexer = compile_indexer_graph(embedder=HashingEmbedder())
    index_dir = tmp_path / "index"
    events = []
    for mode, data in indexer.stream(
        {"paths": [str(corpus)], "index_dir": str(index_dir)},
        stream_mode=["custom", "values"],
    ):
        events.append((mode, data))
    custom = [data["event"] for mode, data in events if mode == "custom"]
    assert custom == ["ingesting", "ingested"]
    summary = [data for mode, data in events if mode == "values"][-1]["summary"]
    assert summary["added"] >= 1 and summary["chunks"] >= 1
    assert summary["index_dir"] == str(index_dir)
    assert (index_dir / "CURRENT").exists()

    again = indexer.invoke({"paths": [str(corpus)], "index_dir": str(index_dir)})
    assert set(again) == {"summary"}
    assert again["summary"]["generation"] is None  # unchanged files: nothing written
    assert again["summary"]["unchanged"] == summary["added"]

    rebuilt = indexer.invoke(
        {"paths": [str(corpus)], "index_dir": str(index_dir), "rebuild": True},
        context=IndexerContext(),
    )
    assert rebuilt["summary"]["added"] == summary["added"]


def test_indexer_thread_does_not_repeat_a_rebuild(corpus: Path, tmp_path: Path) -> None:
    """rebuild is per-run input: on a thread it must not persist into the next ingest."""
    from langgraph.checkpoint.memory import InMemorySaver

    indexer = compile_indexer_graph(embedder=HashingEmbedder(), checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    index_dir = str(tmp_path / "index")
    first = indexer.invoke(
        {"paths": [str(corpus)], "index_dir": index_dir, "rebuild": True}, thread
    )
    more = tmp_path / "more"
    more.mkdir()
    (more / "rules.txt").write_text("Quiet hours run from 10 pm to 7 am every day.\n")
    second = indexer.invoke({"paths": [str(more)], "index_dir": index_dir}, thread)
    # Both folders' chunks are in the index: the second ingest added, it did not rebuild.
    added = second["summary"]["chunks"]
    assert second["summary"]["added"] == 1 and added >= 1
    total = first["summary"]["total_chunks_in_index"] + added
    assert second["summary"]["total_chunks_in_index"] == total, second


def test_indexer_graph_rejects_empty_paths(tmp_path: Path) -> None:
    indexer = compile_indexer_graph(embedder=HashingEmbedder())
    with pytest.raises(ValueError, match="paths is empty"):
        indexer.invoke({"paths": [], "index_dir": str(tmp_path / "index")})


def test_indexer_schemas_describe_every_field() -> None:
    indexer = compile_indexer_graph(embedder=HashingEmbedder())
    for schema in (
        indexer.get_input_jsonschema(),
        indexer.get_output_jsonschema(),
        indexer.get_context_jsonschema(),
    ):
        assert schema["properties"]
        assert all(p.get("description") for p in schema["properties"].values()), schema
