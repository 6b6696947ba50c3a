"""What ``citeguard ask`` shows on a terminal while a question is answered.

A first question takes half a minute on 2 cores (models loading, the model reading its
prompt, the judge reading each cited source), and a silent terminal for that long looks
hung. While a question runs, one line on standard error names the step under way, replaced
at each step and erased before the answer is printed. Only a terminal gets it: a pipe or a
file receives the answers alone. The steps are the graph's nodes as
``citeguard.api.answer(on_step=...)`` reports them; no text of a draft is ever shown.
"""

from __future__ import annotations

from typing import TextIO

STEP_LABELS = {
    "retrieve": "searching the documents",
    "sufficiency_check": "weighing the evidence found",
    "generate": "the model is drafting an answer",
    "validate": "checking each sentence against its source",
    "regenerate": "the model is drafting again",
    "answer_from_passage": "quoting the best-matching passage",
    "refuse": "no supported answer",
}
"""What each step of the answer graph is called on the status line."""

ERASE_LINE = "\r\x1b[K"
"""Carriage return, then ANSI "erase to the end of the line"."""


class StepStatus:
    """The status line of the questions of one command, written to ``stream``."""

    def __init__(self, stream: TextIO, questions: int) -> None:
        self.stream = stream
        self.questions = questions
        self.number = 1

    def start_question(self, number: int) -> None:
        """The next steps belong to question ``number`` (of ``questions``)."""
        self.number = number

    def __call__(self, step: str) -> None:
        """Show that ``step`` (a graph node's name) has started."""
        where = f"[{self.number}/{self.questions}] " if self.questions > 1 else ""
        label = STEP_LABELS.get(step, step.replace("_", " "))
        self.stream.write(f"{ERASE_LINE}citeguard: {where}{label}...")
        self.stream.flush()

    def clear(self) -> None:
        """Erase the line, before an answer or an error is printed."""
        self.stream.write(ERASE_LINE)
        self.stream.flush()


def terminal_status(stream: TextIO, questions: int) -> StepStatus | None:
    """A :class:`StepStatus` on ``stream`` when it is a terminal, else None."""
    isatty = getattr(stream, "isatty", None)
    return StepStatus(stream, questions) if isatty is not None and isatty() else None
