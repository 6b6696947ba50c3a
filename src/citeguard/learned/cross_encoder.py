"""A cross-encoder: (first text, second text) -> probability, on CPU, offline.

The word-piece embeddings are not trained (they stay the bundled base model's), so a saved
model holds only what training changed: the transformer layers, the pooler and the head.
That is half of MiniLM's parameters, and in float16 about 22 MB per model. Loading puts
the base model's embeddings back, then the saved weights over everything else.

Files of a saved model (one folder):

- ``encoder.safetensors``: the trained weights in float16, embeddings left out;
- ``model.json``: the base model's name, the maximum input length, and what training wrote
  about the model (its threshold, metrics and the weights' sha256).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.errors import ModelUnavailableError
from citeguard.index.embedder import resolve_embedding_model_path

WEIGHTS_FILE = "encoder.safetensors"
DESCRIPTION_FILE = "model.json"
EMBEDDINGS_PREFIX = "bert.embeddings."
"""Parameters under this prefix are the base model's, never trained nor saved."""


def file_sha256(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def base_classifier(base_model: str) -> tuple[Any, Any]:
    """(tokenizer, one-logit sequence classifier) built on a bundled base model."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    base = resolve_embedding_model_path(base_model)
    verbosity = transformers_logging.get_verbosity()
    bar = transformers_logging.is_progress_bar_enabled()
    # "Newly initialized head" is expected here, and a bar for a 90 MB load is noise.
    transformers_logging.set_verbosity_error()
    transformers_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(base))
        model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1)
    finally:
        transformers_logging.set_verbosity(verbosity)
        if bar:
            transformers_logging.enable_progress_bar()
    return tokenizer, model


def freeze_embeddings(model: Any) -> None:
    """Keep the base model's embeddings as they are during training."""
    for name, parameter in model.named_parameters():
        if name.startswith(EMBEDDINGS_PREFIX):
            parameter.requires_grad_(False)


def save_cross_encoder(
    model: Any, folder: Path, base_model: str, max_length: int, about: dict[str, Any]
) -> dict[str, Any]:
    """Write the trained weights (float16, without embeddings) and ``model.json``.

    Returns:
        What ``model.json`` holds, with the weights' sha256 and size added.
    """
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    tensors = {
        name: tensor.detach().to("cpu").half().contiguous()
        for name, tensor in model.state_dict().items()
        if not name.startswith(EMBEDDINGS_PREFIX)
    }
    save_file(tensors, str(folder / WEIGHTS_FILE))
    return write_description(folder, {"base_model": base_model, "max_length": max_length, **about})


def write_description(folder: Path, description: dict[str, Any]) -> dict[str, Any]:
    """Write ``model.json``: ``description`` with the saved weights' sha256 and size."""
    weights = folder / WEIGHTS_FILE
    described = {
        **description,
        "weights_sha256": file_sha256(weights),
        "weights_bytes": weights.stat().st_size,
    }
    (folder / DESCRIPTION_FILE).write_text(json.dumps(described, indent=2) + "\n")
    return described


def read_description(folder: Path) -> dict[str, Any]:
    """A saved model's ``model.json``, once its weights are found to match their sha256.

    Raises:
        ModelUnavailableError: a file is missing or the weights differ from the ones
            described.
    """
    weights = folder / WEIGHTS_FILE
    described = folder / DESCRIPTION_FILE
    if not weights.is_file() or not described.is_file():
        raise ModelUnavailableError(f"no trained model in {folder}")
    description: dict[str, Any] = json.loads(described.read_text())
    expected = description.get("weights_sha256")
    if expected and file_sha256(weights) != expected:
        raise ModelUnavailableError(f"{weights} does not match its sha256 in {described}")
    return description


def describe_cross_encoder(folder: Path, about: dict[str, Any]) -> dict[str, Any]:
    """Add ``about`` (thresholds, metrics ...) to a saved model's ``model.json``; the
    weights are left as saved. Returns the whole description."""
    path = folder / DESCRIPTION_FILE
    description = {**json.loads(path.read_text()), **about}
    path.write_text(json.dumps(description, indent=2) + "\n")
    return description


def load_trained_weights(
    module: Any, folder: Path, untrained_prefix: str, description: dict[str, Any]
) -> None:
    """Put a saved model's weights over ``module`` (a freshly loaded base model) and set it
    to evaluation mode; only parameters under ``untrained_prefix`` may be absent.

    Raises:
        ModelUnavailableError: the weights do not fit the base model.
    """
    from safetensors.torch import load_file

    weights = folder / WEIGHTS_FILE
    trained = {name: tensor.float() for name, tensor in load_file(str(weights)).items()}
    missing, unexpected = module.load_state_dict(trained, strict=False)
    untrained = [name for name in missing if not name.startswith(untrained_prefix)]
    if untrained or unexpected:
        raise ModelUnavailableError(
            f"{weights} does not fit {description['base_model']}: "
            f"missing {untrained[:3]}, unexpected {list(unexpected)[:3]}"
        )
    module.eval()


class CrossEncoder:
    """A saved cross-encoder, loaded for scoring (thread-safe, CPU).

    Raises:
        ModelUnavailableError: the folder lacks a file, the weights' sha256 differs from
            the one written with them, or they do not fit the base model.
    """

    def __init__(self, folder: Path, batch_size: int = 32) -> None:
        self.description = read_description(folder)
        import torch

        self.tokenizer, self.model = base_classifier(str(self.description["base_model"]))
        load_trained_weights(self.model, folder, EMBEDDINGS_PREFIX, self.description)
        self.max_length = int(self.description.get("max_length", 256))
        self.batch_size = batch_size
        self._torch = torch
        self._lock = threading.Lock()

    @property
    def threshold(self) -> float:
        """The decision threshold fitted for precision when the model was trained (0.5 if
        none): the scorer's "this passage answers", the verifier's "supported"."""
        return float(self.description.get("threshold", 0.5))

    @property
    def recall_threshold(self) -> float:
        """The threshold fitted to keep most positives (``threshold`` if none): below it,
        a passage is taken not to answer."""
        return float(self.description.get("recall_threshold", self.threshold))

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(label 1) for each (first, second) pair (the longer text is cut to fit)."""
        out: list[float] = []
        with self._lock, self._torch.inference_mode():
            for i in range(0, len(pairs), self.batch_size):
                batch = pairs[i : i + self.batch_size]
                encoded = self.tokenizer(
                    [first for first, _ in batch],
                    [second for _, second in batch],
                    truncation="longest_first",
                    max_length=self.max_length,
                    padding=True,
                    return_tensors="pt",
                )
                logits = self.model(**encoded).logits.squeeze(-1)
                out.extend(self._torch.sigmoid(logits).tolist())
        return np.asarray(out, dtype=np.float64)
