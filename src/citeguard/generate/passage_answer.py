"""The answer from a passage: the evidence scorer's answering passage, in its own words.

When the model refuses (or its answers fail validation) although the trained evidence
scorer rates a passage of the sources as answering, the passage's own sentences become the
answer, each cited to its source. Nothing is paraphrased, so nothing can be misstated; the
answer is validated like any other before it is delivered.

How the passage becomes sentences:

* A passage is cut out of its chunk by word count, so its last sentence may be a piece of a
  list ("...; (b) Workers' Compensation Insurance ...; and") or stop mid-phrase. A dangling
  "and"/"or" is dropped with the punctuation before it, which leaves a quote that ends
  where one of the document's phrases ends; a sentence that still stops mid-phrase is left
  out.
* PDF text breaks sentences where the page did ("or to any other" / blank line /
  "Participant, for ..."): a piece is joined to the next when it ends on a lower-case word
  without punctuation or the next opens with a lower-case letter, and the two read as one
  sentence to the splitter the validator uses (each sentence of the answer needs its own
  citation; "as of Dec." / "8, 2005" stays two). Headings ("11. Landlord's Entry",
  "DISTRIBUTOR AGREEMENT") stay apart.
* With the scorer's sentence scores, only the best sentence and the neighbours that also
  reach the answer threshold are quoted: the passage's window may open on the end of the
  clause before. A heading is not quoted, and it ends the quote there: it names the clause
  (and a short heading often scores best), it does not answer, and a judge reading "11.
  Landlord's Entry." as a claim finds nothing that states it. Only when no other sentence
  reaches the threshold is the best heading quoted (a question may ask for a title).
* A numbered heading that the page runs into its first subsection ("5. TERM AND
  TERMINATION 5.1 This Agreement shall commence ...") is one sentence to the splitter; the
  heading and the subsection's number are left out of the quote, which starts where the
  statement does ("This Agreement shall commence ...").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citeguard.generate.selection import MIN_SENTENCE_CHARS, as_cited_sentence
from citeguard.learned.evidence import PairScorer, best_passages
from citeguard.text.sentences import split_sentences
from citeguard.validate.checks import ends_mid_phrase

MAX_SENTENCES = 4
"""At most as many sentences as the generator may write."""

SentenceScores = Callable[[Sequence[str]], Sequence[float]]
"""P(the sentence answers the question) for each sentence: the evidence scorer's."""

_DANGLING_CONNECTIVE = re.compile(r"[\s,;:]*\b(?:and/or|and|or|but)\s*$", re.IGNORECASE)
_ENDS_ON_LOWER_WORD = re.compile(r"\b[a-z][\w'-]*$")
_OPENS_LOWER = re.compile(r"^[\s\"'(]*[a-z]")
_SECTION_NUMBER = re.compile(r"^(?:(?:section|article)\s+)?[\dIVXivx]+(?:\.\d+)*[.)]?\s+", re.I)
_HEADING_SMALL_WORDS = frozenset("a an and as for in of on or the to".split())
HEADING_MAX_WORDS = 6
"""A heading is at most this many words after its section number."""
# "5. TERM AND TERMINATION 5.1 " before a statement: a section's number and heading, then
# its first subsection's number ("5.1", "1.1", never a bare "5", which may be a quantity).
_HEADING_THEN_SUBSECTION = re.compile(
    r"^(?P<heading>(?:(?:section|article)\s+)?\d+(?:\.\d+)*[.)]?\s+[^.;:]{1,80}?)"
    r"\s+\d+\.\d+[.)]?\s+(?=[A-Z(\"])",
    re.IGNORECASE,
)


def is_heading(sentence: str) -> bool:
    """Whether ``sentence`` reads as a section heading: a few words, each capitalized or
    a small word ("11. Landlord's Entry", "SUCCESSORS AND ASSIGNS", "Extent of Cross
    Licenses"), rather than a statement."""
    words = _SECTION_NUMBER.sub("", sentence.strip()).split()
    if not words or len(words) > HEADING_MAX_WORDS:
        return False
    return (
        all(
            word[0].isupper() or word[0].isdigit() or word.lower() in _HEADING_SMALL_WORDS
            for word in words
        )
        and not words[0].islower()
    )


def without_numbered_heading(sentence: str) -> str:
    """``sentence`` without a leading section heading and subsection number ("5. TERM AND
    TERMINATION 5.1 This Agreement ..." -> "This Agreement ..."); unchanged otherwise."""
    match = _HEADING_THEN_SUBSECTION.match(sentence)
    if match is None or not is_heading(match.group("heading")):
        return sentence
    return sentence[match.end() :]


def passage_sentences(passage: str) -> list[str]:
    """The passage's complete sentences, in order, each as it stands in the passage apart
    from whitespace, a closing dangling connective and closing punctuation."""
    pieces = [s.text for s in split_sentences(passage)]
    joined: list[str] = []
    for piece in pieces:
        together = f"{joined[-1]} {piece}" if joined else ""
        if (
            joined
            and (_ENDS_ON_LOWER_WORD.search(joined[-1]) or _OPENS_LOWER.match(piece))
            and len(split_sentences(together)) == 1
        ):
            joined[-1] = together
        else:
            joined.append(piece)
    sentences: list[str] = []
    for text in joined:
        body = _DANGLING_CONNECTIVE.sub("", " ".join(text.split()).rstrip(" .;:,"))
        body = without_numbered_heading(body)
        if len(re.sub(r"\W", "", body)) >= MIN_SENTENCE_CHARS and not ends_mid_phrase(body):
            sentences.append(body)
    return sentences


def passage_answer(
    passage: str,
    source: int,
    sentence_scores: SentenceScores | None = None,
    threshold: float = 0.0,
) -> str:
    """The passage's answering sentences, each cited ``[source]``; "" when it holds none.

    Args:
        sentence_scores: scores each sentence against the question; without it the first
            sentences are quoted.
        threshold: the score a neighbour of the best sentence needs to be quoted too.
    """
    sentences = passage_sentences(passage)
    if sentence_scores is not None and len(sentences) > 1:
        scores = list(sentence_scores(sentences))

        def quotable(i: int) -> bool:
            return scores[i] >= threshold and not is_heading(sentences[i])

        statements = [i for i in range(len(sentences)) if quotable(i)]
        best = max(statements or range(len(sentences)), key=lambda i: scores[i])
        first = last = best

        while first > 0 and quotable(first - 1):
            first -= 1
        while last + 1 < len(sentences) and quotable(last + 1):
            last += 1
        sentences = sentences[first : last + 1]
        if len(sentences) > MAX_SENTENCES:
            start = min(max(best - first - MAX_SENTENCES // 2, 0), len(sentences) - MAX_SENTENCES)
            sentences = sentences[start : start + MAX_SENTENCES]
    return " ".join(as_cited_sentence(text, source) for text in sentences[:MAX_SENTENCES])


def scored_passage_answer(
    passage: str, source: int, question: str, scorer: PairScorer | None
) -> str:
    """:func:`passage_answer` with the evidence scorer choosing the sentences (the best
    for ``question`` and its neighbours at the scorer's threshold); without a scorer, the
    passage's first sentences."""
    if scorer is None:
        return passage_answer(passage, source)
    return passage_answer(
        passage,
        source,
        lambda sentences: scorer.scores([(question, s) for s in sentences]).tolist(),
        scorer.threshold,
    )


def passage_answer_of_sources(
    scorer: PairScorer, question: str, sources: Sequence[str], min_score: float
) -> tuple[int, str] | None:
    """(cited source number, the passage answer) as the graph drafts it from ``sources``:
    the best-scored passage of them all, quoted by :func:`scored_passage_answer`. None when
    no passage reaches ``min_score`` or nothing of the best one can be quoted. (The graph
    scores its sources in the retrieve node; calibration and benches call this.)"""
    if not sources:
        return None
    found = best_passages(scorer, question, sources)
    best = max(range(len(found)), key=lambda i: found[i].score)
    if found[best].score < min_score:
        return None
    passage = sources[best][found[best].start : found[best].end]
    answer = scored_passage_answer(passage, best + 1, question, scorer)
    return (best + 1, answer) if answer else None
