"""Generation strategies: how a candidate answer is produced from the evidence.

- ``free``: the paper's citation-constrained generation: the model writes the answer and
  cites sources [1]..[k] (the local model under a grammar that admits only that shape).
- ``evidence-first``: the model first selects the sentence ids ([s.n]) that answer the
  question, or "none" (then the candidate is the refusal), and then writes the answer from
  the selected sentences only, citing only their sources.
- ``extractive``: selection as above; the answer *is* the selected sentences, each cited
  (after a one-word Yes/No lead for yes/no questions). Grounded by construction.

Every strategy returns a candidate that goes through the same validation and regeneration.
On regeneration the validator's feedback goes to the step that can fix it: the writing step
(free, evidence-first) or the selection step (extractive, and evidence-first after a
refusal).

The functions take an ``invoke(messages, grammar) -> str`` callable, so this module knows
nothing of LangChain or llama.cpp; the grammar is a hint that non-local models ignore.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from citeguard.generate.grammar import (
    citation_answer_grammar,
    selection_grammar,
    without_closing_periods,
    yes_no_grammar,
)
from citeguard.generate.prompts import (
    REFUSAL,
    answer_messages,
    regeneration_messages,
    selection_messages,
    writing_messages,
    yes_no_messages,
)
from citeguard.generate.selection import (
    extractive_answer,
    format_numbered_sources,
    format_selected,
    number_sentences,
    parse_selection,
)
from citeguard.text.questions import is_yes_no_question

GenerationStrategy = Literal["free", "evidence-first", "extractive"]
"""How an answer is written: cite-as-you-write, select-then-write, or quote selected sentences."""
STRATEGIES: tuple[str, ...] = get_args(GenerationStrategy)
MAX_SELECTED = 4

Messages = list[tuple[str, str]]
InvokeFn = Callable[[Messages, str | None], str]


@dataclass
class Generated:
    """A candidate and how it was made (the selection is evidence, not answer text)."""

    candidate: str
    selected_ids: list[str] | None = None
    """Sentence ids the model selected (None for the free strategy)."""


def generate_candidate(
    strategy: str,
    question: str,
    evidence: Sequence[dict[str, Any]],
    invoke: InvokeFn,
    previous: str | None = None,
    feedback: str | None = None,
) -> Generated:
    """Produce one candidate with ``strategy``; ``previous``/``feedback`` for a regeneration."""
    if strategy == "free":
        if previous is not None and feedback:
            messages = regeneration_messages(question, evidence, previous, feedback)
        else:
            messages = answer_messages(question, evidence)
        return Generated(
            without_closing_periods(invoke(messages, citation_answer_grammar(len(evidence))))
        )
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown generation strategy {strategy!r}; use one of {STRATEGIES}")

    sentences = number_sentences(evidence)
    # Feedback goes to the step that can act on it: selection for extractive answers, and
    # for an evidence-first refusal (an empty selection never reaches the writing step, so
    # repeating the same selection prompt would just repeat the refusal).
    selection_feedback = (
        feedback if strategy == "extractive" or (previous or "").strip() == REFUSAL else None
    )
    reply = invoke(
        selection_messages(
            question, format_numbered_sources(evidence, sentences), selection_feedback
        ),
        selection_grammar([s.id for s in sentences], MAX_SELECTED),
    )
    selected = parse_selection(reply, sentences)[:MAX_SELECTED]
    ids = [s.id for s in selected]
    if not selected:
        return Generated(REFUSAL, selected_ids=[])

    if strategy == "extractive":
        lead = None
        if is_yes_no_question(question):
            word = invoke(yes_no_messages(question, format_selected(selected)), yes_no_grammar())
            lead = "Yes" if word.strip().lower().startswith("y") else "No"
        return Generated(extractive_answer(selected, lead), selected_ids=ids)

    sources = sorted({s.source for s in selected})
    text = invoke(
        writing_messages(question, format_selected(selected), previous, feedback),
        citation_answer_grammar(len(evidence), allowed=sources),
    )
    return Generated(without_closing_periods(text), selected_ids=ids)
