"""The trail of one question through the graph: each draft and the checks that judged it.

A results line holds only the last verdict, so a refusal after three drafts does not say
which check turned down the model's first answer (a rule, the support judge, the relevance
check) or whether the model refused outright. The harness streams the graph's node updates
and keeps, for each draft, who wrote it and what the validator said, without its words
(verdicts in state are redacted). ``bench/refusal_causes.py`` reads these trails.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

DRAFTING_NODES = ("generate", "regenerate", "answer_from_passage")
"""Nodes that write a candidate for the validator."""


def draft_verdict(drafted_by: str, verdict: dict[str, Any]) -> dict[str, Any]:
    """One draft's entry: who wrote it and the validator's verdict on it, in brief.

    ``reasons`` are the failing sentence checks' reasons, in the order first met, each once;
    ``relevance`` is the relevance check's score when it ran (None otherwise).
    """
    reasons: list[str] = []
    cited: list[int] = []
    for sentence in verdict.get("sentences") or []:
        if not sentence.get("supported", True):
            reasons.extend(r for r in sentence.get("reasons") or [] if r not in reasons)
        cited.extend(n for n in sentence.get("cited_sources") or [] if n not in cited)
    return {
        "drafted_by": drafted_by,
        "passed": bool(verdict.get("passed")),
        "is_refusal": bool(verdict.get("is_refusal")),
        "triggers": list(verdict.get("triggers") or []),
        "reasons": reasons,
        "relevance": verdict.get("relevance_score"),
        "cited": cited,
    }


def verdict_trail(updates: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The draft verdicts of a run, from the graph's ``stream_mode="updates"`` chunks
    (``{node: update}``), in order. A validate update is paired with the drafting node
    that ran last before it."""
    trail: list[dict[str, Any]] = []
    drafted_by = ""
    for chunk in updates:
        for node, update in chunk.items():
            if node in DRAFTING_NODES:
                drafted_by = node
            elif node == "validate" and isinstance(update, dict):
                verdict = update.get("last_validation")
                if verdict:
                    trail.append(draft_verdict(drafted_by, verdict))
    return trail
