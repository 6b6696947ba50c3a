"""Send N concurrent runs/wait calls to a running CiteGuard LangGraph server (localhost only).

    langgraph dev --no-browser --no-reload --port 2024 &       # with an index built
    python scripts/server_load.py --url http://127.0.0.1:2024 -n 10

Prints one line per run (latency, status, refusal reason or error) and a summary as JSON:
all answered?, errors, total wall time. Bounded: at most 50 runs, each with a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from langgraph_sdk import get_client

SAMPLE_QUESTIONS = (
    Path(__file__).resolve().parents[1] / "src/citeguard/sample_corpus/questions.jsonl"
)


def sample_questions() -> list[str]:
    lines = SAMPLE_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


async def one_run(client: Any, question: str, timeout: float) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(
            client.runs.wait(None, "citeguard", input={"question": question}), timeout
        )
        outcome = {
            "status": result.get("status"),
            "refusal_reason": result.get("refusal_reason"),
            "error": None if "status" in result else f"unexpected output: {result}",
        }
    except Exception as exc:  # a load test reports every failure instead of stopping
        outcome = {"status": None, "refusal_reason": None, "error": f"{type(exc).__name__}: {exc}"}
    return {"question": question, "seconds": round(time.perf_counter() - started, 1), **outcome}


async def main_async(url: str, n: int, timeout: float, same: str | None) -> dict[str, Any]:
    client = get_client(url=url, timeout=timeout + 10)
    pool = sample_questions()
    questions = [same or pool[i % len(pool)] for i in range(n)]
    started = time.perf_counter()
    runs = await asyncio.gather(*(one_run(client, q, timeout) for q in questions))
    total = time.perf_counter() - started
    for run in runs:
        print(json.dumps(run), flush=True)
    return {
        "runs": n,
        "completed": sum(r["error"] is None for r in runs),
        "errors": [r["error"] for r in runs if r["error"]],
        "statuses": {s: sum(r["status"] == s for r in runs) for s in ("answered", "refused")},
        "total_seconds": round(total, 1),
        "max_run_seconds": max(r["seconds"] for r in runs),
        "min_run_seconds": min(r["seconds"] for r in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:2024")
    parser.add_argument("-n", type=int, default=10, help="concurrent runs (at most 50)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--question", help="ask this question every time (default: the sample set)")
    args = parser.parse_args()
    host = urlparse(args.url).hostname
    if host not in {"127.0.0.1", "localhost", "::1"}:
        parser.error("this load script only targets a server on localhost")
    if not 1 <= args.n <= 50:
        parser.error("-n must be between 1 and 50")
    summary = asyncio.run(main_async(args.url, args.n, args.timeout, args.question))
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
