"""Evidence-first generation: number the sources' sentences, parse what the model selects,
and assemble extractive answers.

Small models are far better at choosing than at writing. The sources are split into
sentences numbered ``[s.n]`` (source s, sentence n), each keeping its character offsets into
the document text; the model picks ids (or "none"), and the answer is then written from, or
made of, exactly those sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citeguard.text.sentences import split_sentences

# Sentences shorter than this many word characters are headings or list debris ("(a)",
# "12."); they cannot answer anything and only lengthen the prompt.
MIN_SENTENCE_CHARS = 12

_ID = re.compile(r"\b(\d{1,2})\.(\d{1,3})\b")


@dataclass(frozen=True)
class NumberedSentence:
    """One selectable sentence of the evidence."""

    id: str
    """"s.n": sentence n (1-based) of source s (1-based)."""
    source: int
    text: str
    char_start: int
    """Offset into the document text: document_text[char_start:char_end] == text."""
    char_end: int


def number_sentences(evidence: Sequence[dict[str, Any]]) -> list[NumberedSentence]:
    """Split each source into sentences and number them ``[s.n]``."""
    numbered: list[NumberedSentence] = []
    for source_number, item in enumerate(evidence, start=1):
        text = item["text"]
        base = int(item.get("char_start", 0))
        n = 0
        for sentence in split_sentences(text):
            if len(re.sub(r"\W", "", sentence.text)) < MIN_SENTENCE_CHARS:
                continue
            n += 1
            numbered.append(
                NumberedSentence(
                    id=f"{source_number}.{n}",
                    source=source_number,
                    text=sentence.text,
                    char_start=base + sentence.start,
                    char_end=base + sentence.end,
                )
            )
    return numbered


def format_numbered_sources(
    evidence: Sequence[dict[str, Any]], sentences: Sequence[NumberedSentence]
) -> str:
    """Source blocks headed by document and page, one numbered sentence a line."""
    blocks = []
    for source_number, item in enumerate(evidence, start=1):
        pages = item.get("printed_pages") or ["?"]
        first, last = str(pages[0]), str(pages[-1])
        page_label = f"page {first}" if first == last else f"pages {first}-{last}"
        lines = [f"[{source_number}] {item.get('doc', 'document')}, {page_label}"]
        lines += [
            f"[{s.id}] {' '.join(s.text.split())}" for s in sentences if s.source == source_number
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def parse_selection(text: str, sentences: Sequence[NumberedSentence]) -> list[NumberedSentence]:
    """The selected sentences in evidence order; [] for "none" or nothing valid.

    Tolerant of free-form output (API models have no grammar): every "s.n" that names a
    real sentence counts, anything else is ignored.
    """
    by_id = {s.id: s for s in sentences}
    chosen = {f"{m.group(1)}.{m.group(2)}" for m in _ID.finditer(text)}
    return [s for s in sentences if s.id in chosen and s.id in by_id]


def as_cited_sentence(text: str, source: int) -> str:
    """One evidence sentence as an answer sentence: its words, then ``[source].``"""
    body = " ".join(text.split()).rstrip(" .;:,")
    return f"{body} [{source}]."


def extractive_answer(selected: Sequence[NumberedSentence], lead: str | None = None) -> str:
    """The selected sentences themselves, each cited; an optional Yes/No lead first.

    The lead opens the first sentence ("Yes: <sentence> [1].") rather than standing alone:
    a bare "Yes [1]." shares no words with its source and would fail the paper's lexical
    check, while as part of the sentence it is judged together with the words it rests on.
    """
    parts = [as_cited_sentence(s.text, s.source) for s in selected]
    if lead and parts:
        parts[0] = f"{lead}: {parts[0]}"
    return " ".join(parts)


def format_selected(selected: Sequence[NumberedSentence]) -> str:
    """The selected sentences for the writing step, each labelled with its source number."""
    return "\n".join(f"[{s.source}] {' '.join(s.text.split())}" for s in selected)
