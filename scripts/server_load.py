"""Load test: concurrent runs against a running CiteGuard LangGraph server (localhost only).

    langgraph dev --no-browser --no-reload --port 2024 &       # with an index built
    python scripts/server_load.py --url http://127.0.0.1:2024 -n 50 --duration 60

``-n`` clients run side by side. Each asks a question (``runs.wait``), waits for the
result, and asks the next one, until ``--duration`` seconds have passed; runs already
started then finish. The questions cycle through the bundled sample questions (answerable
and not) plus questions about nothing in the documents, which are refused before the model
is called, so the mix has answered, model-refused and quickly refused runs. The server
serves one model: runs beyond what it can do at once wait in the server's queue, so
latency grows with the load while no run fails.

Prints one JSON line per run and a summary (runs, errors, statuses, latency percentiles,
runs per minute); ``--out`` also writes the summary to a file. Exit status 1 when any run
failed. Bounded: at most 50 clients, each run with a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from langgraph_sdk import get_client

SAMPLE_QUESTIONS = (
    Path(__file__).resolve().parents[1] / "src/citeguard/sample_corpus/questions.jsonl"
)
OFF_TOPIC_QUESTIONS = (
    "What is the boiling point of mercury in kelvin?",
    "Who won the 1998 football world cup final?",
    "How many moons does Jupiter have?",
)
"""Nothing in a lease answers these: retrieval finds no support and the run is refused
before the model is asked."""

MAX_CLIENTS = 50


def sample_questions() -> list[str]:
    lines = SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def question_mix() -> list[str]:
    """The sample questions interleaved with off-topic ones (one in three runs)."""
    mix: list[str] = []
    for i, question in enumerate(sample_questions()):
        mix.append(question)
        if i % 2 == 1:
            mix.append(OFF_TOPIC_QUESTIONS[(i // 2) % len(OFF_TOPIC_QUESTIONS)])
    return mix


async def one_run(client: Any, question: str, timeout: float) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(
            client.runs.wait(None, "citeguard", input={"question": question}), timeout
        )
        ok = isinstance(result, dict) and result.get("status") in ("answered", "refused")
        outcome = {
            "status": result.get("status") if isinstance(result, dict) else None,
            "refusal_reason": result.get("refusal_reason") if isinstance(result, dict) else None,
            "error": None if ok else f"unexpected output: {str(result)[:300]}",
        }
    except Exception as exc:  # a load test reports every failure instead of stopping
        outcome = {"status": None, "refusal_reason": None, "error": f"{type(exc).__name__}: {exc}"}
    return {"question": question, "seconds": round(time.perf_counter() - started, 2), **outcome}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


async def run_load(
    url: str, clients: int, duration: float, timeout: float, questions: list[str]
) -> dict[str, Any]:
    """``clients`` concurrent askers for ``duration`` seconds (0: one run each); the summary
    of every run (see the module docstring)."""
    client = get_client(url=url, timeout=timeout + 10)
    runs: list[dict[str, Any]] = []
    started = time.perf_counter()
    counter = iter(range(1_000_000))

    async def asker() -> None:
        while True:
            question = questions[next(counter) % len(questions)]
            runs.append(await one_run(client, question, timeout))
            if time.perf_counter() - started >= duration:
                return

    await asyncio.gather(*(asker() for _ in range(clients)))
    total = time.perf_counter() - started
    seconds = [r["seconds"] for r in runs]
    statuses = {s: sum(r["status"] == s for r in runs) for s in ("answered", "refused")}
    reasons: dict[str, int] = {}
    for r in runs:
        if r["refusal_reason"]:
            reasons[r["refusal_reason"]] = reasons.get(r["refusal_reason"], 0) + 1
    return {
        "clients": clients,
        "duration_s": duration,
        "runs": len(runs),
        "completed": sum(r["error"] is None for r in runs),
        "errors": [r["error"] for r in runs if r["error"]],
        "statuses": statuses,
        "refusal_reasons": reasons,
        "latency_s": {
            "min": min(seconds),
            "p50": percentile(seconds, 0.5),
            "p95": percentile(seconds, 0.95),
            "max": max(seconds),
        },
        "total_seconds": round(total, 1),
        "runs_per_minute": round(60 * len(runs) / total, 2),
        "runs_detail": runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default="http://127.0.0.1:2024")
    parser.add_argument("-n", type=int, default=10, help=f"concurrent clients (1-{MAX_CLIENTS})")
    parser.add_argument(
        "--duration", type=float, default=0.0, help="seconds to keep asking (0: one run each)"
    )
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--question", help="ask this question every time (default: the mix)")
    parser.add_argument("--out", type=Path, help="also write the summary here (JSON)")
    args = parser.parse_args()
    host = urlparse(args.url).hostname
    if host not in {"127.0.0.1", "localhost", "::1"}:
        parser.error("this load script only targets a server on localhost")
    if not 1 <= args.n <= MAX_CLIENTS:
        parser.error(f"-n must be between 1 and {MAX_CLIENTS}")
    questions = [args.question] if args.question else question_mix()
    summary = asyncio.run(run_load(args.url, args.n, args.duration, args.timeout, questions))
    for run in summary.pop("runs_detail"):
        print(json.dumps(run), flush=True)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n", encoding="utf-8")
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
