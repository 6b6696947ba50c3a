"""The evidence scorer applied to retrieved chunks: which passage of which chunk answers?

A chunk (~600 word pieces) is longer than what the scorer reads well, so each chunk is cut
into the passages it was trained on (whole sentences, at most ``PASSAGE_WORDS`` words) and
scored by its best passage. The same cut serves the support verifier: a claim is supported
by a source when one of its passages supports it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from citeguard.text.passages import (
    Passage,
    overlapping_passages,
    passages,
    reading_windows,
    without_mark_runs,
)

PASSAGE_WORDS = 80
"""The passage size of the training pairs (``PairSettings.passage_words``)."""

OVERLAPPING_ANSWER_PASSAGES = True
"""Whether the passage an answer quotes is chosen among passages starting at every sentence
(:func:`best_passages` ``overlapping``): the graph's ``scorer_passages_overlap`` default,
and what calibration and the benches draft passage answers with."""


class PairScorer(Protocol):
    """What scores (first, second) pairs: a :class:`CrossEncoder` or a test's fake."""

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...

    @property
    def threshold(self) -> float:
        """Score at which a pair counts as positive, fitted for precision."""
        ...

    @property
    def recall_threshold(self) -> float:
        """Score below which a pair counts as negative, fitted to keep most positives."""
        ...

    @property
    def passage_answer_threshold(self) -> float:
        """Score from which the passage answer is drafted when the relevance check reads
        its quote (``citeguard calibrate`` fits it with that check); ``threshold`` if none."""
        ...

    @property
    def weak_passage_relevance_threshold(self) -> float | None:
        """The relevance the check must give the quote of a passage scored between the
        refusal floor and ``passage_answer_threshold``, for the passage answer to be drafted
        from such weaker passages too (None: it is not)."""
        ...

    @property
    def passage_first_threshold(self) -> float | None:
        """Score from which the passage answer is tried before the model is asked
        (``passage_first``; fitted by ``citeguard calibrate`` with the relevance check on
        the quote). None: the model is always asked first."""
        ...


@dataclass(frozen=True)
class BestPassage:
    """A chunk's best passage for a question: its score and where it lies in the chunk.

    ``scored_start``/``scored_end``: the side-by-side passage the score was read from. It
    is the passage itself unless the passage was chosen among overlapping ones; then it is
    the second candidate for a quote (the one calibration fitted the thresholds on).
    """

    score: float
    start: int
    end: int
    scored_start: int
    scored_end: int

    @property
    def has_other_scored_passage(self) -> bool:
        """Whether the passage chosen differs from the side-by-side one the score is from."""
        return (self.scored_start, self.scored_end) != (self.start, self.end)


def best_passages(
    scorer: PairScorer,
    first: str,
    texts: Sequence[str],
    passage_words: int = PASSAGE_WORDS,
    overlapping: bool = False,
) -> list[BestPassage]:
    """For each text, its best-scoring passage against ``first`` (one batch for all).

    A passage is scored by the best of its :func:`reading_windows`: a sentence longer than
    the passages the models were trained on is read whole, in overlapping windows, instead
    of its opening alone. Both texts are read :func:`without_mark_runs` (ruled lines and
    form blanks spend the model's window on nothing). The span returned is the whole
    passage, as the text writes it.

    With ``overlapping``, the span is the best of :func:`answer_passages`, the passages
    that start at every sentence among them, so a clause that side-by-side passages cut
    in two is found whole; the score stays the best side-by-side passage's, the one every
    threshold was fitted on, and that passage's span is kept as ``scored_start`` and
    ``scored_end``.
    """
    side_by_side = [passages(text, passage_words) for text in texts]
    cut: list[list[Passage]] = [
        (answer_passages(text, passage_words, side) if overlapping else side)
        or [Passage(text, 0, len(text))]
        for text, side in zip(texts, side_by_side, strict=True)
    ]
    windows = [[reading_windows(p.text, passage_words) for p in parts] for parts in cut]
    read_first = without_mark_runs(first)
    flat = [(read_first, without_mark_runs(w)) for parts in windows for each in parts for w in each]
    scores = scorer.scores(flat) if flat else np.zeros(0)
    out: list[BestPassage] = []
    offset = 0
    for side, parts, read in zip(side_by_side, cut, windows, strict=True):
        passage_scores: list[float] = []
        for each in read:
            passage_scores.append(float(np.max(scores[offset : offset + len(each)])))
            offset += len(each)
        best = int(np.argmax(passage_scores))
        scored = best
        if overlapping:
            spans = {(p.start, p.end) for p in side}
            among_side = [i for i, p in enumerate(parts) if (p.start, p.end) in spans]
            if among_side:
                scored = max(among_side, key=lambda i: passage_scores[i])
        out.append(
            BestPassage(
                passage_scores[scored],
                parts[best].start,
                parts[best].end,
                parts[scored].start,
                parts[scored].end,
            )
        )
    return out


def answer_passages(
    text: str, passage_words: int = PASSAGE_WORDS, side_by_side: Sequence[Passage] | None = None
) -> list[Passage]:
    """The passages an answer may be quoted from: the side-by-side :func:`passages` the
    scores are read from (``side_by_side`` when the caller has cut them already) and the
    :func:`overlapping_passages` between them, in order of their start, each once."""
    if side_by_side is None:
        side_by_side = passages(text, passage_words)
    spans = {(p.start, p.end): p for p in side_by_side}
    for p in overlapping_passages(text, passage_words):
        spans.setdefault((p.start, p.end), p)
    return [spans[key] for key in sorted(spans)]


def best_passage_score(scorer: PairScorer, first: str, text: str) -> float:
    """The score of the best passage of ``text`` against ``first``: P(supported) of a claim
    by the verifier, P(answers) of a question by the scorer."""
    return best_passages(scorer, first, [text])[0].score


def averaged_relevance(
    judge: Callable[[str, str], float], scorer: PairScorer
) -> Callable[[str, str], float]:
    """P(the text answers the question) as the mean of ``judge``'s and the evidence
    scorer's (the text's best passage).

    Two readers that err apart: the local model reads any kind of document but doubts right
    quotes of conditional and yes/no clauses, the scorer learned what answers from
    contracts. A passage answer's quote is judged by both (``passage_relevance_with_scorer``),
    and calibration fits the passage answer thresholds with the same mean.
    """

    def relevance(question: str, text: str) -> float:
        return (float(judge(question, text)) + best_passage_score(scorer, question, text)) / 2

    return relevance


class CachedPairScorer:
    """A scorer that remembers its latest scores (least recently used dropped first).

    One question's sources are scored at retrieval, and the same (question, passage) and
    (claim, passage) pairs come back in the relevance check and in a regeneration's
    validation; each is computed once. Thread-safe: the server's runs share it, and one
    run's new pairs may push another's out of memory while that one is being scored.
    """

    def __init__(self, scorer: PairScorer, max_pairs: int = 4096) -> None:
        self.scorer = scorer
        self._max_pairs = max_pairs
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[str, str], float] = OrderedDict()

    @property
    def threshold(self) -> float:
        return self.scorer.threshold

    @property
    def recall_threshold(self) -> float:
        return self.scorer.recall_threshold

    @property
    def passage_answer_threshold(self) -> float:
        return self.scorer.passage_answer_threshold

    @property
    def weak_passage_relevance_threshold(self) -> float | None:
        return self.scorer.weak_passage_relevance_threshold

    @property
    def passage_first_threshold(self) -> float | None:
        return self.scorer.passage_first_threshold

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        with self._lock:
            known = {pair: self._known[pair] for pair in pairs if pair in self._known}
        missing = list(dict.fromkeys(pair for pair in pairs if pair not in known))
        if missing:  # scored outside the lock: the scorer may take a while
            for pair, score in zip(missing, self.scorer.scores(missing), strict=True):
                known[pair] = float(score)
        with self._lock:
            for pair, score in known.items():
                self._known[pair] = score
                self._known.move_to_end(pair)
            while len(self._known) > self._max_pairs:
                self._known.popitem(last=False)
        return np.asarray([known[pair] for pair in pairs], dtype=np.float64)
