"""Embedding-model plumbing; the tests that build a SentenceTransformerEmbedder need the
bundled MiniLM weights, the others none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from citeguard import cpu_features
from citeguard.errors import ModelUnavailableError
from citeguard.index import embedder as embedder_module
from citeguard.index.embedder import (
    SentenceTransformerEmbedder,
    _model_root,
    reads_in_bfloat16,
    resolve_embedding_model_path,
)


def test_model_root_is_the_sentence_transformers_folder_not_a_submodule(tmp_path: Path) -> None:
    root = tmp_path / "unzipped" / "all-mpnet-base-v2"
    (root / "1_Pooling").mkdir(parents=True)
    (root / "1_Pooling" / "config.json").write_text("{}")
    (root / "config.json").write_text("{}")
    (root / "modules.json").write_text("[]")
    assert _model_root(tmp_path / "unzipped") == root


def test_unknown_embedding_model_names_the_known_ones() -> None:
    with pytest.raises(ModelUnavailableError, match="all-MiniLM-L6-v2"):
        resolve_embedding_model_path("no-such-model")


@pytest.mark.parametrize("bars_on", [True, False])
def test_loading_the_embedder_draws_no_progress_bar_and_keeps_the_setting(
    bars_on: bool, capfd: pytest.CaptureFixture[str]
) -> None:
    from transformers.utils import logging as transformers_logging

    if bars_on:
        transformers_logging.enable_progress_bar()
    else:
        transformers_logging.disable_progress_bar()
    try:
        embedder = SentenceTransformerEmbedder()
        # The CLI prints answers to stdout and logs to stderr: neither gets a load bar.
        captured = capfd.readouterr()
        assert "Loading weights" not in captured.err + captured.out
        assert transformers_logging.is_progress_bar_enabled() is bars_on
        assert embedder.dimension == 384
    finally:
        transformers_logging.enable_progress_bar()


def test_amx_bfloat16_units_are_read_from_the_cpu_flags(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor : 0\nflags : fpu avx512f amx_tile amx_int8\n")
    assert not cpu_features.cpu_has_amx_bf16(cpu_features.cpu_flags(cpuinfo))
    cpuinfo.write_text("processor : 0\nflags : fpu avx512f amx_tile amx_bf16 amx_int8\n")
    assert cpu_features.cpu_has_amx_bf16(cpu_features.cpu_flags(cpuinfo))


@pytest.mark.parametrize(
    ("setting", "has_amx_bf16", "expected"),
    [
        ("", True, True),
        ("auto", False, False),
        ("1", False, True),
        ("0", True, False),
    ],
)
def test_bfloat16_reading_follows_the_setting_then_the_cpu(
    setting: str,
    has_amx_bf16: bool,
    expected: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEGUARD_EMBED_BF16", setting)
    monkeypatch.setattr(embedder_module, "cpu_has_amx_bf16", lambda: has_amx_bf16)
    assert reads_in_bfloat16() is expected


def test_bfloat16_reading_gives_the_float32_vectors_within_rounding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = ["The tenant pays rent on the first day of each month.", "notice " * 300]
    spans = [[(0, 10), (11, 40)], [(0, 50)]]
    monkeypatch.setenv("CITEGUARD_EMBED_BF16", "0")
    plain = SentenceTransformerEmbedder()
    monkeypatch.setenv("CITEGUARD_EMBED_BF16", "1")
    halved = SentenceTransformerEmbedder()
    assert not plain.reads_bfloat16 and halved.reads_bfloat16
    for one, other in [
        (plain.embed_documents(texts), halved.embed_documents(texts)),
        (plain.embed_with_spans(texts, spans)[0], halved.embed_with_spans(texts, spans)[0]),
        (plain.embed_with_spans(texts, spans)[1][0], halved.embed_with_spans(texts, spans)[1][0]),
    ]:
        assert other.dtype == np.float32
        cosines = (one * other).sum(axis=1) / (
            np.linalg.norm(one, axis=1) * np.linalg.norm(other, axis=1)
        )
        assert cosines.min() > 0.999


@pytest.mark.parametrize("bfloat16", [True, False])
def test_bfloat16_reading_runs_on_a_thread_of_its_own(
    bfloat16: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oneDNN's AMX kernels release the tile state of their thread, which kills llama.cpp's
    next AMX product on that thread: bfloat16 forward passes never run on the caller's."""
    import threading

    monkeypatch.setenv("CITEGUARD_EMBED_BF16", "1" if bfloat16 else "0")
    embedder = SentenceTransformerEmbedder()
    forward = embedder.sentence_transformer.forward
    threads: list[int] = []

    def recording_forward(*args: object, **kwargs: object) -> object:
        threads.append(threading.get_ident())
        return forward(*args, **kwargs)

    monkeypatch.setattr(embedder.sentence_transformer, "forward", recording_forward)
    embedder.embed_documents(["The rent is due on the first day of the month."])
    embedder.embed_with_spans(["The rent is due monthly."], [[(0, 8)]])
    assert len(threads) == 2
    caller = threading.get_ident()
    assert all((thread != caller) is bfloat16 for thread in threads)
