"""Run one blocking call while the terminal shows that it is working, and for how long."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def run_with_elapsed(work: Callable[[], T], description: str, show: bool = True) -> T:
    """``work()``, run in a worker thread while a ``description: 0:07`` line counts seconds.

    For one-time steps of many seconds that report no progress of their own (a C call), so
    that a user does not take them for a hang. Exceptions from ``work`` are re-raised here.
    """
    if not show:
        return work()
    from tqdm.auto import tqdm

    outcome: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=target, name=description, daemon=True)
    with tqdm(desc=description, bar_format="{desc}: {elapsed}") as line:
        worker.start()
        while worker.is_alive():
            worker.join(0.5)
            line.refresh()
    if failure:
        raise failure[0]
    return outcome[0]
