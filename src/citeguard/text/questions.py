"""Questions: which may be asked at all, and what kind of answer each asks for."""

from __future__ import annotations

import re
import unicodedata

from citeguard.errors import InvalidQuestionError

MAX_QUESTION_CHARS = 1000
"""The longest question accepted, in characters."""

MAX_QUESTION_BYTES = 2000
"""The longest question accepted, in bytes of UTF-8: a bound on its tokens for any
byte-level tokenizer (the local model's among them), which never makes more tokens than
bytes. A question within it leaves room in the local model's 4,096-token context for the
instructions, at least one source and the answer; drafting then shows the model as much of
the sources as fits (``citeguard.graph.nodes.common.model_views``). Latin text takes one or
two bytes a character, most other scripts three, emoji four."""

_YES_NO_START = re.compile(
    r"^\W*(is|are|does|do|did|can|could|may|must|will|would|shall|should|has|have|was|were)\b",
    re.IGNORECASE,
)


def is_yes_no_question(question: str) -> bool:
    """Whether the question is a polar question ("Is there ...?", "Can a party ...?")."""
    return bool(_YES_NO_START.match(question))


def checked_question(question: str) -> str:
    """The question with surrounding whitespace removed, or a clear error.

    Raises:
        InvalidQuestionError: empty or whitespace only; over :data:`MAX_QUESTION_CHARS`
            characters or :data:`MAX_QUESTION_BYTES` bytes of UTF-8; or holding control
            characters (other than tab and line breaks).
    """
    text = question.strip()
    if not text:
        raise InvalidQuestionError("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidQuestionError(
            f"the question has {len(text):,} characters; the limit is {MAX_QUESTION_CHARS:,}"
        )
    size = len(text.encode("utf-8"))
    if size > MAX_QUESTION_BYTES:
        raise InvalidQuestionError(
            f"the question takes {size:,} bytes in UTF-8; the limit is {MAX_QUESTION_BYTES:,} "
            "(characters outside the Latin alphabet take 2-4 bytes each)"
        )
    controls = sorted(
        {
            f"U+{ord(ch):04X}"
            for ch in text
            if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r"
        }
    )
    if controls:
        raise InvalidQuestionError(f"the question holds control characters ({', '.join(controls)})")
    return text
