"""Embedding-model plumbing; all but the last test need no model weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeguard.errors import ModelUnavailableError
from citeguard.index.embedder import (
    SentenceTransformerEmbedder,
    _model_root,
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
