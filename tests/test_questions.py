"""Which questions may be asked: the checks every entry point (CLI, API, server) applies."""

from __future__ import annotations

import pytest

from citeguard.errors import InvalidQuestionError
from citeguard.text.questions import MAX_QUESTION_CHARS, checked_question, is_yes_no_question


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * (MAX_QUESTION_CHARS + 1), "limit is"),
        ("When is rent due?\x00", "U+0000"),
        ("When is \x1b[31mrent due?", "U+001B"),
    ],
    ids=["empty", "whitespace", "too-long", "nul", "escape"],
)
def test_bad_questions_are_refused_with_a_reason(question: str, message: str) -> None:
    with pytest.raises(InvalidQuestionError, match=message.replace("+", r"\+")):
        checked_question(question)


def test_good_questions_pass_trimmed() -> None:
    assert checked_question("  When is rent due?\n") == "When is rent due?"
    longest = "w" * MAX_QUESTION_CHARS
    assert checked_question(longest) == longest
    assert checked_question("Line one\n\tline two?") == "Line one\n\tline two?"


def test_yes_no_questions() -> None:
    assert is_yes_no_question("Is there a cap on liability?")
    assert not is_yes_no_question("What is the notice period?")
