"""The answer from a passage: the evidence scorer's answering passage, in its own words.

When the model refuses (or its answers fail validation) although the trained evidence
scorer rates a passage of the sources as answering, the passage's own sentences become the
answer, each cited to its source. Nothing is paraphrased, so nothing can be misstated; the
answer is validated like any other before it is delivered.
"""

from __future__ import annotations

import re

from citeguard.generate.selection import MIN_SENTENCE_CHARS, as_cited_sentence
from citeguard.text.sentences import split_sentences

MAX_SENTENCES = 4
"""At most as many sentences as the generator may write."""


def passage_answer(passage: str, source: int) -> str:
    """The passage's sentences (headings and list debris left out), each cited ``[source]``;
    "" when the passage holds no sentence."""
    sentences = [
        s.text
        for s in split_sentences(passage)
        if len(re.sub(r"\W", "", s.text)) >= MIN_SENTENCE_CHARS
    ]
    return " ".join(as_cited_sentence(text, source) for text in sentences[:MAX_SENTENCES])
