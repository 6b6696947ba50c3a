"""How fast this machine runs the local model: prompt and decoding tokens per second.

    python bench/model_speed.py [--prompt-tokens 900] [--repeats 3] [--label before-run]

Seconds per question are nearly all the model reading its prompt, so an evaluation's
timing is only comparable with another's at the same machine speed. This measures that
speed with the settings CiteGuard loads the model with (threads from
``CITEGUARD_LLAMA_THREADS``, else every core; AMX and the Q8_0 copy where the CPU allows,
both recorded): a prompt of ``--prompt-tokens`` tokens
evaluated from an empty KV cache, then 16 single-token decoding steps, ``--repeats``
times. The median of each is appended to ``bench/results/model_speed.jsonl`` with the time
and the label, so a timing run can be bracketed by a speed check before and after. Run it
on idle cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "model_speed.jsonl"
DECODE_STEPS = 16
# Any English text works: what is measured is tokens per second, not what they say.
_TEXT = (
    "The Tenant shall pay monthly rent on the first day of each month. A late fee applies "
    "when rent is more than five days late. Either party may end this lease with sixty "
    "days' written notice delivered to the other party at the address stated above. "
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompt-tokens", type=int, default=900)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--label", default="", help="free text stored with the result")
    args = parser.parse_args()

    from citeguard.llm.local_llama import load_local_llama, model_runtime

    llama = load_local_llama().llama
    runtime = model_runtime()
    tokens: list[int] = []
    while len(tokens) < args.prompt_tokens + DECODE_STEPS:
        tokens += llama.tokenize(_TEXT.encode(), add_bos=False)
    prompt, follow = tokens[: args.prompt_tokens], tokens[args.prompt_tokens :]
    prompt_rates, decode_rates = [], []
    for _ in range(args.repeats):
        llama.reset()
        started = time.perf_counter()
        llama.eval(prompt)
        prompt_rates.append(len(prompt) / (time.perf_counter() - started))
        started = time.perf_counter()
        for token in follow[:DECODE_STEPS]:
            llama.eval([token])
        decode_rates.append(DECODE_STEPS / (time.perf_counter() - started))
    llama.reset()
    result = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "label": args.label,
        "threads": llama.n_threads,
        **runtime,
        "prompt_tokens": len(prompt),
        "prompt_tokens_per_s": round(statistics.median(prompt_rates), 1),
        "decode_tokens_per_s": round(statistics.median(decode_rates), 1),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a", encoding="utf-8") as out:
        out.write(json.dumps(result) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
