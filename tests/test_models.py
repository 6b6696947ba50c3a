"""Embedding-model plumbing that needs no model weights."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeguard.errors import ModelUnavailableError
from citeguard.models import _model_root, resolve_embedding_model_path


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
