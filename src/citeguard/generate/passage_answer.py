"""The answer from a passage: the evidence scorer's answering passage, in its own words.

When the model refuses (or its answers fail validation) although the trained evidence
scorer rates a passage of the sources as answering, the passage's own sentences become the
answer, each cited to its source. Nothing is paraphrased, so nothing can be misstated; the
answer is validated like any other before it is delivered.

A passage is cut out of its chunk by word count, so its last sentence may be a piece of a
list ("...; (b) Workers' Compensation Insurance ...; and") or stop mid-phrase. A dangling
"and"/"or" is dropped with the punctuation before it, which leaves a quote of the document
that ends where one of its phrases ends; a sentence that still stops mid-phrase is left out.
"""

from __future__ import annotations

import re

from citeguard.generate.selection import MIN_SENTENCE_CHARS, as_cited_sentence
from citeguard.text.sentences import split_sentences
from citeguard.validate.checks import ends_mid_phrase

MAX_SENTENCES = 4
"""At most as many sentences as the generator may write."""

_DANGLING_CONNECTIVE = re.compile(r"[\s,;:]*\b(?:and/or|and|or|but)\s*$", re.IGNORECASE)


def passage_answer(passage: str, source: int) -> str:
    """The passage's complete sentences (headings and list debris left out), each cited
    ``[source]``; "" when the passage holds none."""
    quoted: list[str] = []
    for sentence in split_sentences(passage):
        text = _DANGLING_CONNECTIVE.sub("", sentence.text.rstrip(" .;:,"))
        if len(re.sub(r"\W", "", text)) < MIN_SENTENCE_CHARS or ends_mid_phrase(text):
            continue
        quoted.append(as_cited_sentence(text, source))
    return " ".join(quoted[:MAX_SENTENCES])
