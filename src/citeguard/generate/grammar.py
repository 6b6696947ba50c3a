"""GBNF grammars that constrain the local generator's output shape.

A 1.5B model left free neither cites nor refuses reliably (see docs/models.md). With a grammar it
can only produce one of two shapes, so every sentence it writes carries at least one marker
that points at a real source, and the validator gets text it can parse.

The answer grammar admits exactly:

* the refusal sentence :data:`REFUSAL_SENTENCE`, byte for byte; or
* 1 to ``max_sentences`` sentences separated by one space, each of the shape
  ``<words> [i][j].`` -- words separated by single spaces, then one space, then one or
  more markers ``[1]``..``[k]`` written back to back, then a full stop. Example for k=2::

      Rent is $1,450 per month [1]. It is due on the first day of each month [1][2].

Inside the words, ``[``, ``]``, newlines, tabs, ``?`` and ``!`` never occur, and a ``.``
only occurs between two digits (``$1,450.00``, ``Section 3.2``) or after each single lower
case letter of an abbreviation (``a.m.``, ``p.m.``, ``e.g.``: without it the model copied
"10:00 p.m." as "10:00 p m"), so a sentence cannot end before its markers and cannot run
on past a period ("payment._source", "late.14.1"); a
sentence carries one to three markers, and no placeholder (``[n]``), out-of-range marker
(``[0]``, ``[k+1]``), range (``[1-3]``) or list (``[1, 2]``) can be produced. The markers
come right before the final period, after a space, because that is where small models put
them unprompted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citeguard.text.refusal import REFUSAL

REFUSAL_SENTENCE = REFUSAL  # the one constant, re-exported under the grammar's name

# Characters allowed in a word. Excluded: brackets (reserved for markers), whitespace (words
# are separated by exactly one space), and sentence-ending punctuation ('.' is re-admitted
# only between word characters by the `word` rule below).
_WORD_CHAR_CLASS = r"[^\[\]\n\r\t .?!]"


def _gbnf_literal(text: str) -> str:
    """Quote ``text`` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _marker_rule(k: int, allowed: Sequence[int] | None = None) -> str:
    chosen = sorted(set(allowed)) if allowed else range(1, k + 1)
    numbers = " | ".join(_gbnf_literal(str(i)) for i in chosen if 1 <= i <= k)
    return f'"[" ({numbers}) "]"'


MAX_MARKERS = 3
"""Most citation markers one answer sentence may carry."""
MAX_DOT_GROUPS = 3
"""Most "."-joined digit groups one number may carry after its first digit ("8.1.1.1")."""


def _optional_repeat(rule: str, times: int) -> str:
    """GBNF for up to ``times`` more occurrences of ``rule``, nested: (rule (rule)?)?"""
    out = ""
    for _ in range(times):
        out = f"({rule} {out})?" if out else f"({rule})?"
    return out


def citation_answer_grammar(
    k: int, max_sentences: int = 4, allowed: Sequence[int] | None = None
) -> str:
    """GBNF for an answer citing sources ``[1]``..``[k]``, or the exact refusal.

    Args:
        k: number of numbered sources shown to the model (markers 1..k are allowed).
        max_sentences: most answer sentences admitted (at least 1).
        allowed: if given, only these source numbers may be cited (evidence-first writing
            cites only the sources of the selected sentences).

    Returns:
        The grammar text, with ``root`` as the start rule.

    Raises:
        ValueError: if ``k`` or ``max_sentences`` is below 1.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1 (got {k}); with no sources, refuse directly")
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1 (got {max_sentences})")
    # Optional extra sentences are nested so the grammar stays regular and small:
    # sentence (" " sentence (" " sentence)?)?
    more = ""
    for _ in range(max_sentences - 1):
        more = f'(" " sentence {more})?' if more else '(" " sentence)?'
    answer = f"sentence {more}".strip()
    return "\n".join(
        [
            "root ::= refusal | answer",
            f"refusal ::= {_gbnf_literal(REFUSAL_SENTENCE)}",
            f"answer ::= {answer}",
            # The words may close with their own "." before the markers ("September 30.
            # [1]."): a model copying a source sentence writes its period, and with "." only
            # admitted inside a number it was pushed on to "September 30.0 [1].".
            # without_closing_periods takes that period out again.
            'sentence ::= words "."? " " markers "."',
            'words ::= word (" " word)*',
            # A "." only inside a number ("$1,450.00", "3.2"): digit, dot, digit. Otherwise a
            # model that wants to end its sentence ("late.") would be pushed to run on past
            # the period ("late.14.1 [2].") instead of closing with its marker.
            # At most MAX_DOT_GROUPS dot groups ("8.1.1.1", "$1,450.00"): an unbounded
            # ("." [0-9]+)+ let the model loop on "5.1.5.5.4.5.6..." or "$10.00.00.00..."
            # until its token limit, which left the sentence without its marker.
            f"word ::= {_WORD_CHAR_CLASS}+ | {_WORD_CHAR_CLASS}* [0-9] dotgroup "
            f"{_optional_repeat('dotgroup', MAX_DOT_GROUPS - 1)} {_WORD_CHAR_CLASS}* "
            "| abbreviation",
            'dotgroup ::= "." [0-9]+',
            # Two or three single lower case letters, each closed by "." ("a.m.", "e.g.,",
            # "(i.e."): a word that ends on "." this way cannot be one the model closes
            # early ("late."), and an upper case letter ("Exhibit A.") is left out because
            # it so often ends a sentence.
            'abbreviation ::= [(]? [a-z] "." [a-z] "." ([a-z] ".")? [,;:)]?',
            # At most MAX_MARKERS markers a sentence: an unbounded run let the model loop on
            # "[2][3][4][1]..." until its token limit.
            f"markers ::= marker {_optional_repeat('marker', MAX_MARKERS - 1)}".rstrip(),
            f"marker ::= {_marker_rule(k, allowed)}",
            "",
        ]
    )


_CLOSING_PERIOD = re.compile(r"(?<![A-Za-z]\.[A-Za-z])\.(?= (?:\[\d+\])+\.)")


def without_closing_periods(answer: str) -> str:
    """``answer`` without the "." a sentence's words close with before its markers
    ("September 30. [1]." -> "September 30 [1]."); an abbreviation's own period stays
    ("9:00 p.m. [1].")."""
    return _CLOSING_PERIOD.sub("", answer)


def yes_no_grammar() -> str:
    """GBNF admitting exactly ``Yes`` or ``No`` (for yes/no judge prompts)."""
    return 'root ::= "Yes" | "No"\n'


SELECTION_NONE = "none"


def selection_grammar(ids: Sequence[str], max_ids: int = 4) -> str:
    """GBNF admitting "none" or 1..max_ids distinct-looking sentence ids from ``ids``.

    Only ids that exist can be produced, so a selection always points at real sentences.
    """
    if not ids:
        return f"root ::= {_gbnf_literal(SELECTION_NONE)}\n"
    if max_ids < 1:
        raise ValueError(f"max_ids must be at least 1 (got {max_ids})")
    more = ""
    for _ in range(max_ids - 1):
        more = f'(", " id {more})?' if more else '(", " id)?'
    alternatives = " | ".join(_gbnf_literal(i) for i in ids)
    return "\n".join(
        [
            f"root ::= {_gbnf_literal(SELECTION_NONE)} | id {more}".rstrip(),
            f"id ::= {alternatives}",
            "",
        ]
    )
