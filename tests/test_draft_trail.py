"""The draft trail of a graph run (each draft's author and verdict, no words), and the
refusal causes counted from it."""

from __future__ import annotations

from citeguard.evaluation.refusal_causes import answerable_refusal_causes, refusal_cause
from citeguard.graph.draft_trail import draft_label, draft_trail, draft_verdict


def verdict(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "passed": False,
        "is_refusal": False,
        "triggers": [],
        "sentences": [],
        "relevance_score": None,
    }
    return {**base, **kw}


def test_each_validation_is_paired_with_the_node_that_drafted_it() -> None:
    updates = [
        {"retrieve": {"attempts": 0}},
        {"sufficiency_check": None},
        {"generate": {"attempts": 1}},
        {"validate": {"last_validation": verdict(passed=True, is_refusal=True)}},
        {"answer_from_passage": {"attempts": 2}},
        {
            "validate": {
                "last_validation": verdict(
                    triggers=["sources_do_not_answer_question"], relevance_score=0.4
                )
            }
        },
        {"refuse": {"status": "refused"}},
    ]
    trail = draft_trail(updates)
    assert [(d["drafted_by"], d["is_refusal"]) for d in trail] == [
        ("generate", True),
        ("answer_from_passage", False),
    ]
    assert trail[1]["relevance"] == 0.4
    assert trail[1]["triggers"] == ["sources_do_not_answer_question"]


def test_only_failing_sentences_give_reasons_each_once_and_citations_are_collected() -> None:
    sentences = [
        {"supported": True, "reasons": ["ignored"], "cited_sources": [2]},
        {"supported": False, "reasons": ["judge_unsupported", "x"], "cited_sources": [1, 2]},
        {"supported": False, "reasons": ["x"], "cited_sources": [3]},
    ]
    entry = draft_verdict("regenerate", verdict(sentences=sentences))
    assert entry["reasons"] == ["judge_unsupported", "x"]
    assert entry["cited"] == [2, 1, 3]
    assert entry["drafted_by"] == "regenerate" and entry["passed"] is False


def draft(drafted_by: str, **kw: object) -> dict[str, object]:
    return draft_verdict(drafted_by, verdict(**kw))


def test_a_refusal_is_told_by_where_the_question_was_lost() -> None:
    refused_then_doubted = {
        "drafts": [
            draft("generate", passed=True, is_refusal=True),
            draft("answer_from_passage", triggers=["sources_do_not_answer_question"]),
        ]
    }
    assert refusal_cause(refused_then_doubted) == (
        "model draft: refused; passage answer: relevance"
    )
    judged = {
        "drafts": [
            draft(
                "generate",
                triggers=["unsupported_sentence"],
                sentences=[{"supported": False, "reasons": ["judge_unsupported"]}],
            ),
            draft(
                "regenerate",
                triggers=["unsupported_sentence"],
                sentences=[{"supported": False, "reasons": ["number_not_in_evidence"]}],
            ),
        ]
    }
    assert refusal_cause(judged) == "model draft: support judge; passage answer: not tried"
    assert draft_label(judged["drafts"][1]) == "rule: number_not_in_evidence"
    before = {"drafts": [], "sufficiency": {"reason": "no_answering_passage"}}
    assert refusal_cause(before) == "before the model: no_answering_passage"


def test_only_answerable_refusals_with_a_trail_are_counted() -> None:
    lost = {
        "answerable": True,
        "status": "refused",
        "drafts": [draft("generate", passed=True, is_refusal=True)],
    }
    records = [
        lost,
        dict(lost),
        {**lost, "answerable": False},  # a right refusal
        {**lost, "status": "answered"},
        {"answerable": True, "status": "refused"},  # a run of an earlier version
        {"answerable": True, "status": "refused", "drafts": [], "sufficiency": {"reason": "x"}},
    ]
    assert answerable_refusal_causes(records) == {
        "model draft: refused; passage answer: not tried": 2,
        "before the model: x": 1,
    }
