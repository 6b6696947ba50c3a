"""Questions: which may be asked at all, and what kind of answer each asks for."""

from __future__ import annotations

import re
import unicodedata

from citeguard.errors import InvalidQuestionError

MAX_QUESTION_CHARS = 1000
"""The longest question accepted. With four sources, the worked examples, a regeneration's
feedback and the answer's token budget, a question of this length still fits the local
model's 4,096-token context even at one token per character (digits, symbols)."""

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
            characters; or holding control characters (other than tab and line breaks).
    """
    text = question.strip()
    if not text:
        raise InvalidQuestionError("the question is empty")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidQuestionError(
            f"the question has {len(text):,} characters; the limit is {MAX_QUESTION_CHARS:,}"
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
