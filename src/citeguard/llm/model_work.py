"""How much reading and writing the local model has done: tokens and the seconds they took.

On a CPU nearly all of a question's time is the local model evaluating prompt tokens and
decoding answer tokens, and the machine's speed at both drifts by 20% between runs
(``bench/results/model_speed.jsonl``). Seconds alone therefore cannot tell whether a change
made questions cheaper or the machine faster; token counts can, because they do not depend
on the machine. Whoever runs the local model holds a :class:`WorkCounter` and passes it to
each call (the chat model's ``work``, the judge's ``work``; a graph's ``Resources`` gives one
counter to both), and the evaluation harness records the difference over each question. A
counter per owner, not per process: two graphs with their own resources in one process keep
their own counts, even where they share the loaded model.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, fields, replace


@dataclass(frozen=True)
class WorkCounts:
    """Totals of local-model work (each count only grows)."""

    prompt_tokens: int = 0
    """Prompt tokens evaluated (tokens restored from the KV cache are not counted)."""
    prompt_seconds: float = 0.0
    """Seconds spent evaluating them."""
    reused_tokens: int = 0
    """Prompt tokens taken from the KV cache instead of evaluated."""
    decoded_tokens: int = 0
    """Tokens generated."""
    decode_seconds: float = 0.0
    """Seconds spent generating them."""
    calls: int = 0
    """Model calls (generation and judge)."""

    def minus(self, earlier: WorkCounts) -> WorkCounts:
        """The work done since ``earlier`` (a snapshot of the same counter)."""
        return WorkCounts(
            **{f.name: getattr(self, f.name) - getattr(earlier, f.name) for f in fields(self)}
        )

    def to_json(self) -> dict[str, int | float]:
        return asdict(self)


class WorkCounter:
    """Thread-safe running totals; :meth:`snapshot` before and after a stretch of work."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals = WorkCounts()

    def add_prompt(self, evaluated: int, reused: int, seconds: float) -> None:
        """Count one call's prompt: ``evaluated`` new tokens in ``seconds``."""
        with self._lock:
            t = self._totals
            self._totals = replace(
                t,
                prompt_tokens=t.prompt_tokens + evaluated,
                prompt_seconds=t.prompt_seconds + seconds,
                reused_tokens=t.reused_tokens + reused,
                calls=t.calls + 1,
            )

    def add_decode(self, tokens: int, seconds: float) -> None:
        """Count ``tokens`` generated in ``seconds`` (after the call's prompt)."""
        with self._lock:
            t = self._totals
            self._totals = replace(
                t,
                decoded_tokens=t.decoded_tokens + tokens,
                decode_seconds=t.decode_seconds + seconds,
            )

    def snapshot(self) -> WorkCounts:
        with self._lock:
            return self._totals


def work_counter_of(model: object) -> WorkCounter | None:
    """The counter a chat model adds its work to (its ``work`` attribute), if it has one."""
    work = getattr(model, "work", None)
    return work if isinstance(work, WorkCounter) else None
