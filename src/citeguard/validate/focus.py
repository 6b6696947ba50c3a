"""Cut a source down to its sentences most related to a text, within a word budget.

Two callers: the generator's view of each source, focused on the question
(:mod:`citeguard.generate.trimming`), and the judge's view of a cited source, focused on the
claim it checks. On a CPU a model's time is nearly all prompt reading, and a whole source is about
four times the words a claim rests on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeguard.text.sentences import sentence_texts
from citeguard.text.tokens import coverage, sentence_token_set, token_set

ELLIPSIS = " … "
"""Joins kept sentences that were not adjacent in the source."""


def within_budget(sentences: Sequence[str], scores: np.ndarray, max_words: int) -> list[int]:
    """Indices of the best-scoring sentences whose words fit ``max_words`` (at least one).

    Highest score first; equal scores keep document order. A sentence that does not fit is
    skipped and a shorter, lower-scoring one may still fit.
    """
    keep: list[int] = []
    used = 0
    for index in np.argsort(-scores, kind="stable"):
        words = len(sentences[int(index)].split())
        if keep and used + words > max_words:
            continue
        keep.append(int(index))
        used += words
    return keep


def claim_focused_source(claim: str, source: str, max_words: int) -> str:
    """The sentences of ``source`` that share most of ``claim``'s words, within ``max_words``.

    Scores are the share of the claim's words each sentence contains; sentences sharing
    none are never kept, and the kept ones are joined in document order by
    :data:`ELLIPSIS`. A source within the budget, one that does not split into sentences,
    or one with no sentence sharing a word with the claim is returned whole.
    ``max_words`` <= 0 returns ``source`` unchanged.
    """
    if max_words <= 0 or len(source.split()) <= max_words:
        return source
    sentences = sentence_texts(source)
    if len(sentences) <= 1:
        return source
    claim_words = sentence_token_set(claim)
    scores = np.array([coverage(claim_words, token_set(s)) for s in sentences])
    # Only sentences sharing a word with the claim can support it; when none does, the
    # judge reads the whole source rather than an arbitrary part of it.
    related = [i for i in range(len(sentences)) if scores[i] > 0]
    if not related:
        return source
    keep = within_budget([sentences[i] for i in related], scores[related], max_words)
    return ELLIPSIS.join(sentences[related[i]] for i in sorted(keep))
