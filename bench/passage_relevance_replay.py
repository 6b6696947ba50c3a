"""Replay a finished run's passage answers under another relevance rule, without a model call.

    python bench/passage_relevance_replay.py RUN --dataset ../shared/data/cuad-dev \
        --model <the run's scorer folder> --with-model <the rule's scorer folder> \
        --passage-answer-threshold T --weak-relevance W

A probe, not a test (docs/results.md, "The scorer beside the judge on a quote"). The
relevance check of a passage answer's quote decides many answerable questions. A run
(``citeguard eval``, default settings) records, for each question, its sources and the last
verdict's relevance score: for a question whose last draft was the passage answer, the local
model's P(the quote answers). This drafts each question's passage answer again from the
run's sources as the graph did (the run's scorer, from the refusal floor), and decides it by
the rule ``passage_relevance_with_scorer`` applies: the mean of that recorded P and the
``--with-model`` scorer's P of the quote, at the run's threshold (0.5), the passage answer
thresholds being those calibration fits for the rule (``--passage-answer-threshold``,
``--weak-relevance``). A question whose decision flips is scored as the run would have scored
it (an accepted quote is right when a source it cites holds gold). Answers the rule newly
delivers were not read by the run's independent judge; each is an exact quote.
Writes ``--out`` (default bench/results/passage_relevance_replay.json).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.metrics import gold_scores
from citeguard.generate.passage_answer import passage_answer_of_sources
from citeguard.graph.context import Context
from citeguard.learned.evidence import averaged_relevance, best_passage_score
from citeguard.learned.shipped import load_pair_model, shipped_folder
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/passage_relevance_replay.json")
RELEVANCE_TRIGGER = "sources_do_not_answer_question"


def totals(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """Answered, accuracy, false refusal and false answer rates of scored outcomes."""
    answerable = [o for o in outcomes if o["answerable"]]
    unanswerable = [o for o in outcomes if not o["answerable"]]
    return {
        "answered": sum(o["answered"] for o in outcomes),
        "answer_accuracy": sum(o["correct"] for o in outcomes) / len(outcomes),
        "false_refusal_rate": sum(not o["answered"] for o in answerable) / len(answerable),
        "false_answer_rate": sum(o["answered"] for o in unanswerable) / len(unanswerable),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a `citeguard eval` --out folder")
    parser.add_argument("--dataset", type=Path, required=True, help="the run's dataset")
    parser.add_argument("--model", type=Path, help="the run's scorer (default: shipped)")
    parser.add_argument(
        "--with-model", type=Path, help="the scorer the mean is taken with (default: --model)"
    )
    parser.add_argument("--passage-answer-threshold", type=float, required=True)
    parser.add_argument("--weak-relevance", type=float, required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    scorer = load_pair_model(args.model or shipped_folder("scorer"))
    partner = load_pair_model(args.with_model) if args.with_model else scorer
    floor = scorer.recall_threshold
    run_threshold = Context().judge_threshold
    questions = {q.id: q for q in load_questions(args.dataset)}
    records = [json.loads(line) for line in (args.run / "results.jsonl").read_text().splitlines()]
    before: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []
    flips: list[dict[str, Any]] = []
    replayed = 0
    for record in records:
        question = questions[record["id"]]
        kept = gold_scores(question, record)
        before.append(kept)
        after.append(kept)
        verdict = record.get("last_validation") or {}
        relevance = verdict.get("relevance_score")
        sources = [str(e["text"]) for e in record.get("evidence") or []]
        drafted = passage_answer_of_sources(scorer, question.question, sources, floor)
        if drafted is None or relevance is None:
            continue
        answer = drafted[1].text
        delivered = record["status"] == "answered" and record.get("answer") == answer
        judged = record["status"] != "answered" and RELEVANCE_TRIGGER in (
            verdict.get("triggers") or []
        )
        if not (delivered or judged):
            continue  # the last draft was the model's, or failed another check
        replayed += 1
        best = max(float(e.get("answer_score") or 0.0) for e in record["evidence"])
        quote = strip_citations(answer)
        recorded = float(relevance)

        def run_judge(_question: str, _text: str, score: float = recorded) -> float:
            return score  # the run's local-model verdict on this quote

        mean = averaged_relevance(run_judge, partner)(
            question.question, drafted[1].for_relevance(quote)
        )
        accepted = mean >= run_threshold and (
            best >= args.passage_answer_threshold or mean >= args.weak_relevance
        )
        if accepted == delivered:
            continue
        state = {**record, "answer": answer if accepted else "", "status": "answered"}
        if not accepted:
            state["status"] = "refused"
        after[-1] = gold_scores(question, state)
        flips.append(
            {
                "id": record["id"],
                "question": question.question,
                "answerable": question.answerable,
                "run": "answered" if delivered else "refused",
                "replayed": "answered" if accepted else "refused",
                "correct_after": after[-1]["correct"],
                "local_model_relevance": relevance,
                "scorer_relevance": best_passage_score(partner, question.question, quote),
                "best_passage": best,
                "quote": quote,
            }
        )
    result = {
        "command": "python bench/passage_relevance_replay.py " + " ".join(argv),
        "questions": len(records),
        "run": totals(before),
        "replayed": totals(after),
        "passage_answers_replayed": replayed,
        "flipped": len(flips),
        "rows": flips,
    }
    write_result(args.out, result)
    for flip in flips:
        print(json.dumps({k: v for k, v in flip.items() if k != "quote"}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
