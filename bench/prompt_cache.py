"""Time per question with and without llama.cpp's prompt (KV) cache (not a test).

    python bench/prompt_cache.py ../shared/data/cuad-dev --limit 8 [--strategy free]

Runs the same questions twice through ``citeguard eval`` (the graph the CLI and server use,
local model, no judge, no generation cache), each run in its own process:

- ``off``: ``CITEGUARD_PROMPT_CACHE_MB=0``, every model call evaluates its whole prompt;
- ``on``: the default, the fixed prefix (instructions + worked examples) and any other
  shared prefix are evaluated once and reused.

The answers are the same (greedy decoding); only time differs. Writes a JSON file with
seconds per question and per generation stage (p50, mean) for both runs.
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

RESULTS = Path(__file__).resolve().parent / "results" / "prompt_cache.json"


def run_eval(
    dataset: str, out: Path, limit: int, strategy: str, cache_on: bool, cache_dir: Path | None
) -> None:
    env = dict(os.environ)
    if cache_on:
        env.pop("CITEGUARD_PROMPT_CACHE_MB", None)
    else:
        env["CITEGUARD_PROMPT_CACHE_MB"] = "0"
    command = [
        sys.executable,
        "-m",
        "citeguard.cli",
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
    parser.add_argument("--out", type=Path, default=RESULTS, help="JSON result file")
    parser.add_argument("--cache-dir", type=Path, help="citeguard eval's index cache")
    args = parser.parse_args(argv)

    report: dict[str, Any] = {
        "dataset": args.dataset,
        "strategy": args.strategy,
        "threads": os.environ.get("CITEGUARD_LLAMA_THREADS") or os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        # "off" first: the index is built (and cached) before either run is timed.
        for label, cache_on in (("off", False), ("on", True)):
            out = Path(tmp) / label
            run_eval(args.dataset, out, args.limit, args.strategy, cache_on, args.cache_dir)
            report[label] = summarize_run(out)
    same = report["off"].pop("answers") == report["on"].pop("answers")
    report["same_answers"] = same
    report["speedup_p50"] = round(
        report["off"]["seconds_per_question"]["p50"] / report["on"]["seconds_per_question"]["p50"],
        2,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
