"""The evidence scorer's view of a run's chunks, as it travels in state.

Each source (and, when reranked, each retrieved chunk) gets ``answer_score``, its best
passage's P(answers the question), and ``answer_passage``, that passage's offsets in the
chunk text (with ``scored_passage`` the offsets of the side-by-side passage the score was
read from, when the passage was chosen among overlapping ones and differs). The
sufficiency check reads the scores; the passage answer quotes the best passage when it is
good enough, then, when that quote fails, the side-by-side passage it was scored by.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeguard.documents import SearchHit
from citeguard.learned.evidence import (
    OVERLAPPING_ANSWER_PASSAGES,
    BestPassage,
    PairScorer,
    best_passages,
)


class AnswerScores:
    """Scores of one question's chunks, computed once per chunk (None scorer: no scores).

    Each chunk is read as side-by-side passages, the ones every threshold was fitted on.
    ``overlapping``: the passage a passage answer would quote, in the best-scored source
    only (:meth:`choose_quoted_passage`), is chosen among passages that start at every
    sentence; its score stays the best side-by-side passage's.
    """

    def __init__(
        self,
        scorer: PairScorer | None,
        question: str,
        overlapping: bool = OVERLAPPING_ANSWER_PASSAGES,
    ) -> None:
        self._scorer = scorer
        self._question = question
        self._overlapping = overlapping
        self._by_chunk: dict[str, BestPassage] = {}
        self._quoted: set[str] = set()
        """Chunks whose quoted passage was chosen among overlapping passages."""

    @property
    def has_scorer(self) -> bool:
        """Whether there is a scorer to score with (the weights loaded)."""
        return self._scorer is not None

    def score(self, hits: Sequence[SearchHit]) -> None:
        """Score the chunks of ``hits`` not yet scored, in one batch."""
        todo = [hit for hit in hits if hit.chunk.chunk_id not in self._by_chunk]
        if self._scorer is None or not todo:
            return
        found = best_passages(self._scorer, self._question, [hit.chunk.text for hit in todo])
        for hit, best in zip(todo, found, strict=True):
            self._by_chunk[hit.chunk.chunk_id] = best

    def choose_quoted_passage(self, sources: Sequence[SearchHit]) -> None:
        """With ``overlapping``, choose the passage of the best-scored of ``sources`` (the
        one a passage answer quotes) among passages that start at every sentence, keeping
        its score and, as its scored span, the side-by-side passage the score is read from.

        Only that source's passage can be quoted, so only its chunk is read a second way:
        one passage per sentence costs half as much again as the side-by-side reading.
        """
        if self._scorer is None or not self._overlapping or not sources:
            return
        self.score(sources)
        hit = max(sources, key=self.score_of)  # the first of equals, as answering_passage
        if hit.chunk.chunk_id in self._quoted:
            return
        self._quoted.add(hit.chunk.chunk_id)
        side = self._by_chunk[hit.chunk.chunk_id]
        [chosen] = best_passages(self._scorer, self._question, [hit.chunk.text], overlapping=True)
        self._by_chunk[hit.chunk.chunk_id] = BestPassage(
            side.score, chosen.start, chosen.end, side.start, side.end
        )

    def reranked(self, hits: Sequence[SearchHit]) -> list[SearchHit]:
        """``hits`` best-scored first (retrieval order among equal scores)."""
        self.score(hits)
        if self._scorer is None:
            return list(hits)
        return sorted(hits, key=lambda hit: -self.score_of(hit))

    def rescued(self, hits: Sequence[SearchHit], sources: Sequence[SearchHit]) -> list[SearchHit]:
        """``sources``, or, when none has a passage at the scorer's refusal floor but another
        of ``hits`` has one at its answer threshold, ``sources`` with the best such hit in
        place of the lowest-scored source after the first (retrieval's best stays shown).

        Only questions that would be refused before any model call change; the answer
        threshold is fitted so that few unanswerable questions' passages reach it.
        """
        scorer = self._scorer
        if scorer is None or not sources:
            return list(sources)
        self.score(sources)
        if max(self.score_of(hit) for hit in sources) >= scorer.recall_threshold:
            return list(sources)
        shown = {hit.chunk.chunk_id for hit in sources}
        others = [hit for hit in hits if hit.chunk.chunk_id not in shown]
        if not others:
            return list(sources)
        self.score(others)
        best = max(others, key=self.score_of)
        if self.score_of(best) < scorer.threshold:
            return list(sources)
        # Retrieval's best stays shown, unless it is the only source.
        weakest = (
            min(range(1, len(sources)), key=lambda i: self.score_of(sources[i]))
            if len(sources) > 1
            else 0
        )
        return [best if i == weakest else hit for i, hit in enumerate(sources)]

    def score_of(self, hit: SearchHit) -> float:
        """The best-passage score of a hit already scored."""
        return self._by_chunk[hit.chunk.chunk_id].score

    def annotated(self, record: dict[str, Any]) -> dict[str, Any]:
        """An evidence record with its chunk's score and best passage, when it was scored."""
        best = self._by_chunk.get(str(record["chunk_id"]))
        if best is None:
            return record
        annotated = {**record, "answer_score": best.score, "answer_passage": [best.start, best.end]}
        if best.has_other_scored_passage:
            annotated["scored_passage"] = [best.scored_start, best.scored_end]
        return annotated


def drafting_threshold(scorer: PairScorer, judges_quote: bool) -> float:
    """The lowest best-passage score from which the passage answer is drafted.

    Without the local model's relevance check on the quote (``judges_quote`` false) the
    passage must reach the answer threshold. With it, the passage answer threshold, or the
    refusal floor when calibration fitted a stricter check for weaker passages
    (:func:`quote_relevance_threshold`).
    """
    if not judges_quote:
        return scorer.threshold
    if scorer.weak_passage_relevance_threshold is not None:
        return min(scorer.recall_threshold, scorer.passage_answer_threshold)
    return scorer.passage_answer_threshold


def quote_relevance_threshold(
    scorer: PairScorer | None, passage_score: float, run_threshold: float, judges_quote: bool
) -> float:
    """The relevance the check must give a passage answer's quote.

    The run's own threshold, except for a passage scored under the passage answer
    threshold (drafted from the refusal floor, see :func:`drafting_threshold`): its quote
    must reach the stricter minimum that calibration fitted for such passages, never less
    than the run's own.
    """
    weak = scorer.weak_passage_relevance_threshold if scorer is not None else None
    if not judges_quote or weak is None or scorer is None:
        return run_threshold
    if passage_score >= scorer.passage_answer_threshold:
        return run_threshold
    return max(run_threshold, weak)


def answering_passage(
    evidence: Sequence[dict[str, Any]], threshold: float
) -> dict[str, Any] | None:
    """The sources' best-scored passage when it reaches ``threshold``, else None.

    ``fallback``: the side-by-side passage its score was read from, when the passage was
    chosen among overlapping ones and differs (``scorer_passages_overlap``); quoted when
    the first quote fails validation. None otherwise.
    """
    scored = [(i, item) for i, item in enumerate(evidence) if "answer_score" in item]
    if not scored:
        return None
    index, best = max(scored, key=lambda pair: float(pair[1]["answer_score"]))
    if float(best["answer_score"]) < threshold:
        return None
    start, end = best["answer_passage"]
    fallback = best.get("scored_passage")
    return {
        "source": index + 1,
        "start": int(start),
        "end": int(end),
        "score": best["answer_score"],
        "fallback": {"start": int(fallback[0]), "end": int(fallback[1])} if fallback else None,
    }
