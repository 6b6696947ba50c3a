"""What kind of answer a question asks for (used by generation and validation alike)."""

from __future__ import annotations

import re

_YES_NO_START = re.compile(
    r"^\W*(is|are|does|do|did|can|could|may|must|will|would|shall|should|has|have|was|were)\b",
    re.IGNORECASE,
)


def is_yes_no_question(question: str) -> bool:
    """Whether the question is a polar question ("Is there ...?", "Can a party ...?")."""
    return bool(_YES_NO_START.match(question))
