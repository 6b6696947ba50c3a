"""The trail of one question through the graph: each draft and the verdict that judged it.

The state keeps only the last verdict, so a refusal after three drafts does not say which
check turned down the model's first answer (a rule, the support judge, the relevance
check) or whether the model refused outright. :func:`invoke_with_trail` runs the graph as
invoke does, streaming its node updates beside, and keeps for each draft who wrote it and
what the validator said, without its words (verdicts in state are redacted). The
evaluation harness stores the trail in each results line
(``evaluation/refusal_causes.py`` counts refusals by cause from it), ``citeguard ask
--show-validation`` prints it (each draft by :func:`draft_label`), and
``citeguard.api.answer(..., with_drafts=True)`` returns it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from citeguard.graph.state import STATE_KEYS
from citeguard.validate.validator import SOURCES_DO_NOT_ANSWER

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


def draft_label(draft: dict[str, Any]) -> str:
    """What decided one draft: ``passed``, ``refused`` (the model's refusal), ``relevance``
    (the relevance check), ``support judge``, or ``rule: REASON`` (the first failing check)."""
    if draft["is_refusal"]:
        return "refused"
    if draft["passed"]:
        return "passed"
    if SOURCES_DO_NOT_ANSWER in draft["triggers"]:
        return "relevance"
    if "judge_unsupported" in draft["reasons"]:
        return "support judge"
    if draft["reasons"]:
        return "rule: " + draft["reasons"][0]
    return "trigger: " + ",".join(draft["triggers"])


def draft_trail(updates: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
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


def invoke_with_trail(
    graph: Any,
    inputs: dict[str, Any],
    output_keys: Sequence[str] | None = None,
    on_step: Callable[[str], None] | None = None,
    **config: Any,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run ``graph`` as ``graph.invoke(inputs, output_keys=output_keys, **config)`` would and
    return its final state with the run's draft trail (:func:`draft_trail`).

    The node updates are streamed beside the state's values, every key of both, since the
    validator's verdicts are not among the graph's output keys; the final state returned
    holds ``output_keys``, by default the graph's output keys, as invoke's does.
    ``on_step``, when given, is called with each node's name as the node starts: progress
    for whoever waits on a run (``citeguard ask`` on a terminal), never a word of a draft.
    """
    updates: list[dict[str, Any]] = []
    state: dict[str, Any] = {}
    modes = ["updates", "values"] if on_step is None else ["updates", "values", "tasks"]
    for mode, chunk in graph.stream(inputs, stream_mode=modes, output_keys=STATE_KEYS, **config):
        if mode == "updates":
            updates.append(chunk)
        elif mode == "values":
            state = chunk
        elif on_step is not None and "input" in chunk:  # a task starting, not finished
            on_step(str(chunk["name"]))
    kept = graph.output_channels if output_keys is None else output_keys
    kept = [kept] if isinstance(kept, str) else kept
    return {key: value for key, value in state.items() if key in kept}, draft_trail(updates)
