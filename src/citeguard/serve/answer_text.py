"""An answer as a person reads it on a terminal: the text, each citation's page and quote,
and, when asked, what validation said of each sentence and of each draft."""

from __future__ import annotations

from typing import Any

from citeguard.graph.draft_trail import draft_label


def format_answer(result: dict[str, Any], show_validation: bool = False) -> str:
    """The human-readable form of an answer: text, then one line per citation."""
    lines = [result.get("answer", "")]
    if result.get("status") == "refused":
        lines.append(f"(refused: {result.get('refusal_reason')})")
    for c in result.get("citations", []):
        page = c["printed_page"]
        page_note = "" if str(c["pdf_page"]) == str(page) else f" (PDF page {c['pdf_page']})"
        lines.append(f'[{c["marker"]}] {c["doc"]}, p. {page}{page_note}: "{c["quote"]}"')
    if show_validation:
        v = result.get("validation", {})
        lines.append(
            f"validation: level={v.get('level')} passed={v.get('passed')} "
            f"supported_ratio={v.get('supported_ratio')} attempts={v.get('attempts')}"
            + (
                f" relevance={v['relevance_score']:.2f}"
                if v.get("relevance_score") is not None
                else ""
            )
        )
        for i, s in enumerate(v.get("sentences", []), start=1):
            reasons = ", ".join(s.get("reasons", [])) or "ok"
            lines.append(
                f"  {i}. supported={s.get('supported')} lexical={s.get('lexical_score')} "
                f"semantic={s.get('semantic_score')} judge={s.get('judge_score')} [{reasons}]"
            )
        for i, draft in enumerate(result.get("drafts") or [], start=1):
            lines.append(f"draft {i} by {draft['drafted_by']}: {_draft_outcome(draft)}")
    return "\n".join(lines)


_DRAFT_OUTCOMES = {
    "passed": "passed",
    "refused": "the model refused",
    "relevance": "failed the relevance check",
    "support judge": "failed the support judge",
}


def _draft_outcome(draft: dict[str, Any]) -> str:
    """One draft's verdict in words: what decided it, with the relevance check's score."""
    label = draft_label(draft)
    outcome = _DRAFT_OUTCOMES.get(label) or label.replace("rule: ", "failed the rule ", 1)
    if draft.get("relevance") is not None:
        outcome += f" (relevance {draft['relevance']:.2f})"
    return outcome
