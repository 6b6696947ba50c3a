"""The local model's work counter: running totals and differences between snapshots."""

from __future__ import annotations

import threading

import pytest

from citeguard.llm.model_work import WorkCounter, WorkCounts


def test_counts_add_up_and_snapshots_subtract() -> None:
    counter = WorkCounter()
    start = counter.snapshot()
    assert start == WorkCounts()
    counter.add_prompt(evaluated=900, reused=600, seconds=8.0)
    counter.add_decode(tokens=40, seconds=2.0)
    middle = counter.snapshot()
    counter.add_prompt(evaluated=120, reused=1500, seconds=1.0)
    counter.add_decode(tokens=30, seconds=1.5)
    end = counter.snapshot()
    assert end == WorkCounts(
        prompt_tokens=1020,
        prompt_seconds=9.0,
        reused_tokens=2100,
        decoded_tokens=70,
        decode_seconds=3.5,
        calls=2,
    )
    assert end.minus(middle) == WorkCounts(120, 1.0, 1500, 30, 1.5, 1)
    assert end.minus(start) == end
    assert middle.to_json()["prompt_tokens"] == 900


def test_a_snapshot_does_not_change_with_later_work() -> None:
    counter = WorkCounter()
    counter.add_prompt(evaluated=10, reused=0, seconds=0.1)
    taken = counter.snapshot()
    counter.add_prompt(evaluated=10, reused=0, seconds=0.1)
    assert taken.prompt_tokens == 10 and counter.snapshot().prompt_tokens == 20


def test_concurrent_additions_are_all_counted() -> None:
    counter = WorkCounter()

    def work() -> None:
        for _ in range(1000):
            counter.add_prompt(evaluated=1, reused=2, seconds=0.001)
            counter.add_decode(tokens=1, seconds=0.001)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    totals = counter.snapshot()
    assert (totals.prompt_tokens, totals.reused_tokens, totals.decoded_tokens) == (4000, 8000, 4000)
    assert totals.calls == 4000
    assert totals.decode_seconds == pytest.approx(4.0)


def test_each_resources_counts_its_own_local_model_work(monkeypatch: pytest.MonkeyPatch) -> None:
    from citeguard.graph.resources import Resources
    from citeguard.llm import judge
    from citeguard.llm.local_llama import LocalLlama
    from citeguard.llm.providers import build_chat_model

    # The judge is built on the shared loaded model; no weights are needed to check whose
    # counter it adds to.
    monkeypatch.setattr(judge, "load_local_llama", lambda *args: LocalLlama(object()))
    first, second = Resources(), Resources()
    assert first.model_work is not second.model_work
    assert first.local_judge().work is first.model_work
    assert second.local_judge().work is second.model_work
    # A chat model built for a graph counts into the counter it is given.
    chat_model = build_chat_model("local", work=first.model_work)
    assert getattr(chat_model, "work", None) is first.model_work
    # Resources around an injected model that counts its own work read that counter.
    assert Resources(chat_model=chat_model).model_work is first.model_work
    assert Resources(chat_model=object()).model_work is not first.model_work
