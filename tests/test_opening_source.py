"""The document's opening as a source for questions about the document's date and parties."""

from __future__ import annotations

import pytest

from citeguard.documents import SearchHit
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.index.opening import asks_about_front_matter, choose_sources, with_opening
from graph_fakes import LEASE_CHUNKS, fake_resources, make_chunk
from test_search import CHUNKS, build

OPENING = make_chunk(
    "lease.pdf",
    "RESIDENTIAL LEASE dated March 3, 2021 between Ann Lee and Bo Park.",
    page=1,
    start=0,
)


@pytest.mark.parametrize(
    "question",
    [
        "When does this agreement become effective?",
        "On what date was this agreement made or signed?",
        "When was this privacy policy last updated?",
        "Who are the parties to this agreement?",
        "Which parties signed the lease?",
        "What is the date this contract was executed?",
    ],
)
def test_questions_about_the_document_itself(question: str) -> None:
    assert asks_about_front_matter(question)


@pytest.mark.parametrize(
    "question",
    [
        "When must rent be paid?",
        "When can a party terminate the agreement?",
        "Is any intellectual property jointly owned by the parties?",
        "What rights arise if a party undergoes a change of control?",
        "What is the governing law?",
    ],
)
def test_questions_about_what_the_document_regulates(question: str) -> None:
    assert not asks_about_front_matter(question)


def hit(index: int, doc: str = "lease.pdf", start: int | None = None) -> SearchHit:
    chunk = make_chunk(
        doc, f"clause {index}", page=index, start=100 * index if start is None else start
    )
    return SearchHit(chunk=chunk, score=1.0 / (index + 1), dense_score=0.5, lexical_score=1.0)


def test_the_opening_replaces_the_lowest_ranked_source() -> None:
    ranked = [hit(i) for i in range(1, 5)]
    opening = hit(0, start=0)
    sources = with_opening(ranked, opening, limit=4)
    assert [s.chunk.char_start for s in sources] == [100, 200, 300, 0]


def test_the_opening_is_appended_when_there_is_room() -> None:
    sources = with_opening([hit(1), hit(2)], hit(0, start=0), limit=4)
    assert [s.chunk.char_start for s in sources] == [100, 200, 0]


def test_an_opening_already_among_the_sources_is_not_added_twice() -> None:
    ranked = [hit(3), hit(0, start=0), hit(1)]
    assert with_opening(ranked, hit(0, start=0), limit=3) == ranked


def test_no_opening_keeps_the_ranked_sources() -> None:
    ranked = [hit(i) for i in range(1, 6)]
    assert with_opening(ranked, None, limit=4) == ranked[:4]


class OpeningOf:
    """Finds the opening of whichever document it is asked about; records the asks."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str]] = []

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        self.asked.append((doc, query, mode))
        return hit(0, start=0)


def test_choose_sources_adds_the_opening_only_for_front_matter_questions() -> None:
    ranked = [hit(i) for i in range(1, 6)]
    finder = OpeningOf()
    dated = choose_sources(ranked, "When was this lease signed?", 4, finder, "dense")
    assert [s.chunk.char_start for s in dated] == [100, 200, 300, 0]
    assert finder.asked == [(ranked[0].chunk.doc, "When was this lease signed?", "dense")]
    rent = choose_sources(ranked, "When must rent be paid?", 4, finder)
    assert rent == ranked[:4] and len(finder.asked) == 1
    assert choose_sources(ranked, "When was this lease signed?", 4, None) == ranked[:4]
    assert choose_sources([], "Who are the parties?", 4, finder) == []


def test_searcher_opening_is_the_documents_first_chunk_with_real_scores() -> None:
    searcher = build(CHUNKS)
    opening = searcher.opening_hit("lease.txt", "When does the tenant pay rent?")
    assert opening is not None
    assert opening.chunk.chunk_id == "lease.txt#0"
    assert opening.lexical_score > 0  # "tenant", "pay", "rent" are in it
    assert opening.dense_score > 0
    assert opening.rank == 0 and opening.score == 0.0
    assert searcher.opening_hit("nda.txt", "x", mode="lexical").chunk.chunk_id == "nda.txt#0"  # type: ignore[union-attr]


def run_retrieve(question: str, **context: object) -> dict:
    # Five clauses outrank the opening for this question; context_k 4 leaves it out.
    resources = fake_resources(["x", "x"], chunks=[*LEASE_CHUNKS, OPENING])
    graph = compile_graph(resources)
    ctx = Context(context_k=2, **context)  # type: ignore[arg-type]
    # The retrieve node's update: evidence is internal state, not part of the output.
    for update in graph.stream({"question": question}, context=ctx, stream_mode="updates"):
        if "retrieve" in update:
            return update["retrieve"]
    raise AssertionError("the retrieve node did not run")


def test_the_graph_gives_a_date_question_the_documents_opening() -> None:
    result = run_retrieve("On what date was the monthly rent agreement signed?")
    evidence = result["evidence"]
    assert len(evidence) == 2
    assert evidence[-1]["char_start"] == 0
    assert "March 3, 2021" in evidence[-1]["text"]
    # Retrieval results (what hit@k is measured on) are left as ranked.
    assert all(e["char_start"] != 0 for e in result["retrieved"][:2])


def test_the_opening_source_can_be_switched_off() -> None:
    result = run_retrieve(
        "On what date was the monthly rent agreement signed?", opening_source=False
    )
    assert all(e["char_start"] != 0 for e in result["evidence"])


def test_other_questions_keep_the_ranked_sources() -> None:
    result = run_retrieve("When is the monthly rent due and what is the late fee?")
    assert [e["char_start"] for e in result["evidence"]] == [
        e["char_start"] for e in result["retrieved"][:2]
    ]
