"""Time per question with and without one speed-up of the local model (not a test).

    python bench/prompt_cache.py ../shared/data/cuad-dev --limit 8 [--strategy free]
    python bench/prompt_cache.py ../shared/data/cuad-dev --limit 8 --toggle lookup

Runs the same questions twice through ``citeguard eval`` (the graph the CLI and server use,
local model, no judge, no generation cache), each run in its own process, with the
speed-up off and then on (the default). ``--toggle``:

- ``prompt_cache`` (default): ``CITEGUARD_PROMPT_CACHE_MB=0`` makes every model call
  evaluate its whole prompt; on, the fixed prefix (instructions + worked examples) and any
  other shared prefix are evaluated once and reused (KV snapshots);
- ``lookup``: ``CITEGUARD_LOOKUP_DECODING=0`` decodes one token per forward pass through
  llama-cpp-python; on (the default, "auto"), CiteGuard's own greedy loop, which checks
  drafts copied from the prompt several tokens per pass where the CPU makes that faster
  (set ``CITEGUARD_LOOKUP_DECODING=1`` before running to force drafts).

Greedy decoding picks the same tokens either way, up to llama.cpp's floating-point
differences between a batch of tokens and one token at a time, which can flip a near tie;
the JSON result counts the answers that are identical. It also holds seconds per question
and per generation stage (p50, mean) for both runs. Run it on idle cores: a second process
using the CPUs at the same time slows llama.cpp's threads many times over.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from citeguard import environment

RESULTS_DIR = Path(__file__).resolve().parent / "results"
TOGGLES = {
    "prompt_cache": environment.PROMPT_CACHE_MB.name,
    "lookup": environment.LOOKUP_DECODING.name,
}


def run_eval(
    dataset: str,
    out: Path,
    limit: int,
    strategy: str,
    env_var: str,
    speedup_on: bool,
    cache_dir: Path | None,
) -> None:
    env = dict(os.environ)
    if speedup_on:
        if env.get(env_var) == "0":
            env.pop(env_var)  # the default; a value that turns it on (lookup's "1") is kept
    else:
        env[env_var] = "0"
    command = [
        sys.executable,
        "-m",
        "citeguard.serve.cli",
        "eval",
        dataset,
        "--out",
        str(out),
        "--limit",
        str(limit),
        "--strategy",
        strategy,
        "--no-judge",
        "--no-generation-cache",
        "--no-progress",
    ]
    if cache_dir is not None:
        command += ["--cache-dir", str(cache_dir)]
    subprocess.run(command, env=env, check=True)


def stats(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "mean": round(statistics.fmean(values), 2),
    }


def summarize_run(out: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line]
    rows = [row for row in rows if not row.get("error")]
    return {
        "questions": len(rows),
        "seconds_per_question": stats([row["seconds"] for row in rows]),
        "generation_seconds": stats([row["timings"]["generation"] for row in rows]),
        "answers": {row["id"]: row["answer"] for row in rows},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--limit", type=int, default=8, help="questions (8)")
    parser.add_argument("--strategy", default="free", help="generation strategy (free)")
    parser.add_argument(
        "--toggle", choices=sorted(TOGGLES), default="prompt_cache", help="what to switch off"
    )
    parser.add_argument("--out", type=Path, help="JSON result file (bench/results/<toggle>.json)")
    parser.add_argument("--cache-dir", type=Path, help="citeguard eval's index cache")
    args = parser.parse_args(argv)

    out_file = args.out or RESULTS_DIR / f"{args.toggle}.json"
    report: dict[str, Any] = {
        "toggle": args.toggle,
        "dataset": args.dataset,
        "strategy": args.strategy,
        "threads": environment.llama_threads(),
        "date": time.strftime("%Y-%m-%d"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        # "off" first: the index is built (and cached) before either run is timed.
        for label, speedup_on in (("off", False), ("on", True)):
            out = Path(tmp) / label
            run_eval(
                args.dataset,
                out,
                args.limit,
                args.strategy,
                TOGGLES[args.toggle],
                speedup_on,
                args.cache_dir,
            )
            report[label] = summarize_run(out)
    off, on = report["off"].pop("answers"), report["on"].pop("answers")
    report["same_answers"] = sum(off[key] == on.get(key) for key in off)
    report["different_answers"] = sorted(key for key in off if off[key] != on.get(key))
    report["speedup_p50"] = round(
        report["off"]["seconds_per_question"]["p50"] / report["on"]["seconds_per_question"]["p50"],
        2,
    )
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
