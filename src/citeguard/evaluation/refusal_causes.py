"""Where a refused question was lost, read from its draft trail (``graph/draft_trail.py``).

A refusal is told by the first draft's verdict and the passage answer's: the model
refused, or its answer failed a rule, the support judge or the relevance check, and then
the scorer's quote failed too (or none was tried); or sufficiency refused before any model
call. ``citeguard eval`` counts its answerable refusals by these causes
(``answerable_refusal_causes`` in ``summary.json`` and the report); ``bench/refusal_causes.py``
reads stored runs; ``citeguard ask --show-validation`` labels each draft with
:func:`~citeguard.graph.draft_trail.draft_label`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from citeguard.graph.draft_trail import draft_label


def refusal_cause(record: dict[str, Any]) -> str:
    """Where a refused question was lost: ``before the model: REASON`` (sufficiency refused),
    else the first model draft's label and the passage answer's ("not tried" when none was
    drafted), such as ``model draft: refused; passage answer: relevance``."""
    drafts = record.get("drafts") or []
    if not drafts:
        reason = (record.get("sufficiency") or {}).get("reason") or record.get("refusal_reason")
        return f"before the model: {reason}"
    first = draft_label(drafts[0])
    quotes = [d for d in drafts if d["drafted_by"] == "answer_from_passage"]
    passage = draft_label(quotes[-1]) if quotes else "not tried"
    return f"model draft: {first}; passage answer: {passage}"


def answerable_refusal_causes(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many answerable questions were refused for each :func:`refusal_cause`, most
    common first; records without a draft trail (runs of earlier versions) are left out."""
    counts: dict[str, int] = {}
    for record in records:
        if record.get("answerable") and record.get("status") == "refused" and "drafts" in record:
            cause = refusal_cause(record)
            counts[cause] = counts.get(cause, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
