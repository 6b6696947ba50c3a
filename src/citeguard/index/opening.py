"""The document's opening: where contracts, leases and policies state their date and parties.

A question such as "When does this agreement become effective?" shares few words with the
preamble that answers it ("This Agreement is entered into as of August 4, 2010 by and
between ..."): every chunk says "agreement", and the preamble's date is not a word the
question contains. Ranked retrieval therefore often leaves the opening just below the
sources the model sees. For questions about the document itself (its date, when it takes
effect, who its parties are) the opening is where such documents put the answer, so the
retrieve node passes it to the model as the last source when ranking missed it.

No LangGraph here: plain functions over search hits, testable on their own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from citeguard.documents import SearchHit


class OpeningFinder(Protocol):
    """What finds a document's opening chunk: any :class:`~citeguard.index.searcher.Searcher`."""

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None: ...


# Asks who the parties are ("Who are the parties to ...?", "Which parties signed?"), not
# about something the parties do ("Is any IP jointly owned by the parties?").
_ASKS_FOR_PARTIES = re.compile(
    r"\bwho (is|are|were)\b[^?]*\bpart(y|ies)\b|\b(which|what) part(y|ies) "
    r"(is|are|were|signed|entered)\b|\bnames? of the part(y|ies)\b|\bbetween whom\b",
    re.IGNORECASE,
)
# A question that asks for a date ...
_ASKS_FOR_DATE = re.compile(r"\b(when|dated?|what day|which day|what year)\b", re.IGNORECASE)
# ... of an event of the document itself, not of something the document regulates
# ("When must rent be paid?" is about rent, and its answer is not in the opening).
_DOCUMENT_EVENT = re.compile(
    r"\b(effective|signed|executed|dated|made|entered|commenc\w*|in force|"
    r"last (updated|revised|modified))\b",
    re.IGNORECASE,
)


def asks_about_front_matter(question: str) -> bool:
    """Whether the question asks for the document's date, effective date or parties."""
    if _ASKS_FOR_PARTIES.search(question):
        return True
    return bool(_ASKS_FOR_DATE.search(question) and _DOCUMENT_EVENT.search(question))


def with_opening(
    evidence: Sequence[SearchHit], opening: SearchHit | None, limit: int
) -> list[SearchHit]:
    """``evidence`` with ``opening`` as its last source, when it is not there already.

    The opening takes the place of the lowest-ranked source so that the prompt keeps its
    length (``limit`` sources at most); the better-ranked sources keep their numbers.
    """
    kept = list(evidence[:limit])
    if opening is None or limit < 1:
        return kept
    place = (opening.chunk.doc, opening.chunk.char_start)
    if any((hit.chunk.doc, hit.chunk.char_start) == place for hit in kept):
        return kept
    if len(kept) >= limit:
        kept = kept[: limit - 1]
    return [*kept, opening]


def choose_sources(
    hits: Sequence[SearchHit],
    question: str,
    context_k: int,
    finder: OpeningFinder | None = None,
    mode: str = "hybrid",
) -> list[SearchHit]:
    """The sources the model sees: the first ``context_k`` hits, with the opening of the
    best hit's document as the last one when the question asks about front matter and a
    ``finder`` is given (the graph's ``opening_source``). One rule for the retrieve node
    and for everything that asks questions the way the graph does (calibration, benches).
    """
    sources = list(hits[:context_k])
    if finder is not None and hits and asks_about_front_matter(question):
        # The opening of the best hit's document: the document the question is about as
        # far as retrieval can tell (the only one when the question is scoped to one).
        opening = finder.opening_hit(hits[0].chunk.doc, question, mode)
        sources = with_opening(sources, opening, context_k)
    return sources
