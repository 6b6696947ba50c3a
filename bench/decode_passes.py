"""Whether checking guessed tokens speeds decoding on this machine (not a test).

    python bench/decode_passes.py
    python bench/decode_passes.py --results evals/RUN/results.jsonl --index DIR --limit 8

Greedy decoding can check guessed tokens (copied from the prompt, ``lookup_decoding.py``)
several per forward pass; that pays only where a pass over a few tokens costs little more
than a pass over one. Part one times passes over 1..16 tokens at the end of a ~900-token
context and prints CiteGuard's decision (``decoding.decoding_plan_for``). With ``--results`` (an
evaluation run) and ``--index`` (the index it searched), part two writes the first-draft
answers of the run's first ``--limit`` questions that reached generation (the run's
evidence, trimmed and prompted as in the graph) under four decoding plans: no guesses, only
the rest of a begun refusal, and that plus prompt-lookup guesses of up to 2 and 4 tokens.
The prompt is read once per question and reused by every plan; it reports decoding seconds
per plan and, per question, the plans whose answer differs from decoding without guesses.
Results go to ``bench/results/decode_passes.json``. Run it on idle cores.
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "decode_passes.json"
PASS_SIZES = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16)
_TEXT = (
    "The Tenant shall pay monthly rent on the first day of each month. A late fee applies "
    "when rent is more than five days late. Either party may end this lease with sixty "
    "days' written notice delivered to the other party at the address stated above. "
)


def pass_costs(model: Any, context_tokens: int, repeats: int) -> dict[str, float]:
    """Milliseconds of a pass over each of ``PASS_SIZES`` tokens (fastest of ``repeats``),
    timed as CiteGuard times its decision (``decoding.time_passes``) with the
    :class:`~citeguard.llm.local_llama.LocalLlama` ``model``."""
    from citeguard.llm import decoding

    llama = model.llama
    tokens: list[int] = []
    while len(tokens) < context_tokens:
        tokens += llama.tokenize(_TEXT.encode(), add_bos=False)
    llama.reset()
    llama.eval(tokens[:context_tokens])
    seconds = decoding.time_passes(model, PASS_SIZES, repeats=repeats)
    return {str(size): round(1000 * s, 1) for size, s in zip(PASS_SIZES, seconds, strict=True)}


def decoding_plans_on_questions(results: Path, index: str, limit: int) -> dict[str, Any]:
    """Decoding seconds of real first drafts per decoding plan, and differing answers."""
    from citeguard import environment
    from citeguard.generate.prompts import REFUSAL
    from citeguard.generate.strategies import generate_candidate
    from citeguard.graph.context import Context
    from citeguard.graph.nodes.common import sources_for_model
    from citeguard.graph.resources import Resources
    from citeguard.llm import lookup_decoding
    from citeguard.llm.local_llama import load_local_llama
    from citeguard.llm.lookup_decoding import DecodingPlan

    ctx = Context(index_dir=index)
    resources = Resources()
    invoke = resources.invoker(ctx)
    records = [json.loads(line) for line in results.read_text().splitlines() if line]
    generated = [r for r in records if r.get("timings", {}).get("generation")][:limit]
    plans = {
        "none": DecodingPlan(max_draft=0, refusal_drafts=False),
        "refusal": DecodingPlan(max_draft=0, refusal_drafts=True),
        "refusal+lookup-2": DecodingPlan(max_draft=2, refusal_drafts=True),
        "refusal+lookup-4": DecodingPlan(max_draft=4, refusal_drafts=True),
    }
    seconds = dict.fromkeys(plans, 0.0)
    refusals = 0
    differing: dict[str, list[str]] = {}  # question id -> plans whose answer differs
    # The plan is decided once per loaded model; set it directly per run.
    os.environ.pop(environment.LOOKUP_DECODING.name, None)
    model = load_local_llama()
    chosen = model.decoding_plan
    try:
        for record in generated:
            sources = sources_for_model(record["question"], record["evidence"], ctx, resources)
            # An untimed first call reads the prompt: every plan then starts from the same
            # reused prompt (a freshly read prompt's last logits come from a batched pass and
            # can differ slightly from the reused prompt's, which would tip near ties).
            generate_candidate("free", record["question"], sources, invoke)
            answers: dict[str, str] = {}
            for name, plan in plans.items():
                model.decoding_plan = plan
                before = resources.model_work.snapshot()
                answers[name] = generate_candidate(
                    "free", record["question"], sources, invoke
                ).candidate
                seconds[name] += resources.model_work.snapshot().minus(before).decode_seconds
            refusals += answers["none"] == REFUSAL
            changed = [name for name, answer in answers.items() if answer != answers["none"]]
            if changed:
                differing[record["id"]] = changed
    finally:
        model.decoding_plan = chosen
    return {
        "results": str(results),
        "questions": len(generated),
        "refusals": refusals,
        "max_draft_tokens_default": lookup_decoding.MAX_DRAFT_TOKENS,
        "decode_seconds_by_plan": {k: round(v, 2) for k, v in seconds.items()},
        "answers_differing_from_no_guesses": differing,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--context-tokens", type=int, default=900)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--results", type=Path, help="an evaluation's results.jsonl (part two)")
    parser.add_argument("--index", help="the index that evaluation searched (part two)")
    parser.add_argument("--limit", type=int, default=8)
    args = parser.parse_args()

    from citeguard.llm import lookup_decoding
    from citeguard.llm.local_llama import load_local_llama, model_runtime

    model = load_local_llama()
    llama = model.llama
    costs = pass_costs(model, args.context_tokens, args.repeats)
    one, batch = costs["1"], costs[str(1 + lookup_decoding.MAX_DRAFT_TOKENS)]
    result: dict[str, Any] = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "threads": llama.n_threads,
        **model_runtime(),
        "context_tokens": args.context_tokens,
        "pass_ms_by_tokens": costs,
        "draft_pass_in_one_token_passes": round(batch / one, 2),
        "guesses_checked": lookup_decoding.drafts_pay(one, batch),
        "refusal_drafts": lookup_decoding.batched_tokens_cost_less(one, batch),
    }
    if args.results and args.index:
        result["first_drafts"] = decoding_plans_on_questions(args.results, args.index, args.limit)
    llama.reset()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
