"""The answer from a passage: the evidence scorer's answering passage, in its own words.

When the model refuses (or its answers fail validation) although the trained evidence
scorer rates a passage of the sources as answering, the passage's own sentences become the
answer, each cited to its source. Nothing is paraphrased, so nothing can be misstated; the
answer is validated like any other before it is delivered.

How the passage is quoted (what each of its sentences is, and how they are joined:
:mod:`citeguard.generate.passage_pieces`):

* With the scorer's sentence scores, only the best sentence and the neighbours that also
  reach the answer threshold are quoted: the passage's window may open on the end of the
  clause before. A heading is not quoted, and it ends the quote there: it names the clause
  (and a short heading often scores best), it does not answer, and a judge reading "11.
  Landlord's Entry." as a claim finds nothing that states it. Only when no other sentence
  reaches the threshold is the best heading quoted (a question may ask for a title); for
  a yes/no question, the statement under it is quoted instead, read under the heading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from citeguard.generate.passage_pieces import (
    HEADING_LINE,
    NEVER_QUOTED,
    PASSED_OVER,
    STATEMENT,
    TITLE,
    passage_pieces,
    through_following_list,
)
from citeguard.generate.selection import as_cited_sentence
from citeguard.learned.evidence import OVERLAPPING_ANSWER_PASSAGES, PairScorer, best_passages
from citeguard.text.questions import is_yes_no_question

MAX_SENTENCES = 4
"""At most as many sentences as the generator may write."""

SentenceScores = Callable[[Sequence[str]], Sequence[float]]
"""P(the sentence answers the question) for each sentence: the evidence scorer's."""


@dataclass(frozen=True)
class PassageQuote:
    """A passage answer: ``text``, its cited sentences, and ``heading``, the heading line
    it stands under in the passage ("" when none)."""

    text: str
    heading: str = ""

    def for_relevance(self, said: str) -> str:
        """What the relevance check reads of the answer ``said`` (the quote without its
        markers): :func:`quote_under_heading`."""
        return quote_under_heading(said, self.heading)


def quote_under_heading(said: str, heading: str) -> str:
    """A quote as the relevance check reads it: under the heading line it stands under, as
    the document states it ("9. Where your data is stored. Our servers are located in the
    European Union"). The heading is not delivered (it answers nothing), but the quote means
    what it means under it."""
    return f"{heading}. {said}" if heading else said


def quote_passage(
    passage: str,
    source: int,
    sentence_scores: SentenceScores | None = None,
    threshold: float = 0.0,
    title_may_answer: bool = True,
) -> PassageQuote:
    """The passage's answering sentences, each cited ``[source]`` (text "" when it holds
    none), with the heading line they stand under.

    Args:
        sentence_scores: scores each sentence against the question; without it the first
            sentences are quoted.
        threshold: the score a neighbour of the best sentence needs to be quoted too.
        title_may_answer: whether a title scored best is quoted alone (a question may ask
            for one). Without it, the statement right under the title is quoted instead,
            read under the title: "12. EXCLUSIVITY" says that the contract has such a
            section, not what it commits anyone to.
    """
    pieces = passage_pieces(passage)
    if sentence_scores is None:
        # The first sentences are quoted: a heading line is not one of them, nor the end
        # of a sentence the passage opens on, nor markup or a question, and they stop
        # before any piece that is never quoted.
        pieces = [piece for piece in pieces if piece[1] != HEADING_LINE] or pieces[:1]
        while pieces and pieces[0][1] in PASSED_OVER:
            pieces = pieces[1:]
        stops = [i for i, piece in enumerate(pieces) if piece[1] in NEVER_QUOTED]
        pieces = pieces[: stops[0]] if stops else pieces
    sentences = [text for text, _ in pieces]
    candidates = [i for i in range(len(sentences)) if pieces[i][1] not in NEVER_QUOTED]
    if not candidates:
        return PassageQuote("")
    # Each statement is scored as it reads under its heading line, as the relevance check
    # will read the quote: "Our servers are located in the European Union" answers
    # "Where is my data stored?" under "9. Where your data is stored".
    headings = _governing_heading_lines(pieces)
    first, last, best = 0, len(sentences) - 1, 0  # without scores: from the first, cut below
    if sentence_scores is not None and len(sentences) > 1:
        scores = list(
            sentence_scores(
                [quote_under_heading(t, h) for t, h in zip(sentences, headings, strict=True)]
            )
        )

        def quotable(i: int) -> bool:
            return scores[i] >= threshold and pieces[i][1] == STATEMENT

        statements = [i for i in range(len(sentences)) if quotable(i)]
        not_heading_lines = [i for i in candidates if pieces[i][1] != HEADING_LINE]
        best = max(statements or not_heading_lines or candidates, key=lambda i: scores[i])
        if not title_may_answer and pieces[best][1] == TITLE:
            under = best + 1
            if under < len(pieces) and pieces[under][1] == STATEMENT:
                return PassageQuote(as_cited_sentence(sentences[under], source), sentences[best])
        first = last = best
        while first > 0 and quotable(first - 1):
            first -= 1
        while last + 1 < len(sentences) and quotable(last + 1):
            last += 1
    quoted = sentences[first : last + 1]
    if len(quoted) > MAX_SENTENCES:
        start = min(max(best - first - MAX_SENTENCES // 2, 0), len(quoted) - MAX_SENTENCES)
        quoted = quoted[start : start + MAX_SENTENCES]
    heading = headings[first] if sentences else ""
    return PassageQuote(" ".join(as_cited_sentence(text, source) for text in quoted), heading)


def _governing_heading_lines(pieces: Sequence[tuple[str, str]]) -> list[str]:
    """For each statement of ``pieces``, the heading line it stands under ("" for none,
    and for the headings themselves); a title-style heading starts a section of its own."""
    current = ""
    governing: list[str] = []
    for text, kind in pieces:
        if kind in NEVER_QUOTED:
            governing.append("")  # never quoted, and within the section of the heading
        elif kind != STATEMENT:
            current = text if kind == HEADING_LINE else ""
            governing.append("")
        else:
            governing.append(current)
    return governing


def passage_answer(
    passage: str,
    source: int,
    sentence_scores: SentenceScores | None = None,
    threshold: float = 0.0,
) -> str:
    """The text of :func:`quote_passage`: the passage's answering sentences, each cited
    ``[source]``; "" when it holds none."""
    return quote_passage(passage, source, sentence_scores, threshold).text


def scored_passage_answer(
    passage: str, source: int, question: str, scorer: PairScorer | None
) -> PassageQuote:
    """:func:`quote_passage` with the evidence scorer choosing the sentences (the best
    for ``question`` and its neighbours at the scorer's threshold); without a scorer, the
    passage's first sentences. A yes/no question is not answered by a title alone: it asks
    what the clause says, not whether it has a heading."""
    if scorer is None:
        return quote_passage(passage, source)
    return quote_passage(
        passage,
        source,
        lambda sentences: scorer.scores([(question, s) for s in sentences]).tolist(),
        scorer.threshold,
        title_may_answer=not is_yes_no_question(question),
    )


def passage_answer_of_sources(
    scorer: PairScorer,
    question: str,
    sources: Sequence[str],
    min_score: float,
    overlapping: bool = OVERLAPPING_ANSWER_PASSAGES,
) -> tuple[int, PassageQuote] | None:
    """(cited source number, the passage answer) as the graph drafts it first from
    ``sources``: the first of :func:`passage_answers_of_sources`, None when there is none.
    (The graph scores its sources in the retrieve node; calibration and benches call this.)
    """
    drafted = passage_answers_of_sources(scorer, question, sources, min_score, overlapping)
    return drafted[0] if drafted else None


def passage_answers_of_sources(
    scorer: PairScorer,
    question: str,
    sources: Sequence[str],
    min_score: float,
    overlapping: bool = OVERLAPPING_ANSWER_PASSAGES,
) -> list[tuple[int, PassageQuote]]:
    """(cited source number, passage answer) pairs in the order the graph drafts them from
    ``sources`` when each before fails validation: the best-scored passage of them all,
    quoted by :func:`scored_passage_answer`, then, when that passage was chosen among
    overlapping ones (``overlapping``, as the graph's ``scorer_passages_overlap``), the
    side-by-side passage its score was read from, when its quote differs. Quotes with no
    text are left out (they fail validation); empty when no passage reaches ``min_score``."""
    if not sources:
        return []
    found = best_passages(scorer, question, sources, overlapping=overlapping)
    best = max(range(len(found)), key=lambda i: found[i].score)
    if found[best].score < min_score:
        return []
    text = sources[best]
    spans = [(found[best].start, found[best].end)]
    if found[best].has_other_scored_passage:
        spans.append((found[best].scored_start, found[best].scored_end))
    drafted: list[tuple[int, PassageQuote]] = []
    for start, end in spans:
        answer = scored_passage_answer(
            text[start : through_following_list(text, start, end)], best + 1, question, scorer
        )
        if answer.text and all(answer.text != earlier.text for _, earlier in drafted):
            drafted.append((best + 1, answer))
    return drafted
