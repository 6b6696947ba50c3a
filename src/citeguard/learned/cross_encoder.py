"""A cross-encoder: (first text, second text) -> probability, offline (CPU by default).

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

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.index.embedder import resolve_embedding_model_path
from citeguard.learned.saved_model import (
    WEIGHTS_FILE,
    DescribedThresholds,
    load_trained_weights,
    read_description,
    write_description,
)

EMBEDDINGS_PREFIX = "bert.embeddings."
"""Parameters under this prefix are the base model's, never trained nor saved."""


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


class CrossEncoder(DescribedThresholds):
    """A saved cross-encoder, loaded for scoring (thread-safe).

    ``device`` is a torch device name: ``"cpu"`` (what the graph uses) or, for training
    and benchmarks on a machine with one, ``"cuda"``.

    Raises:
        ModelUnavailableError: the folder lacks a file, the weights' sha256 differs from
            the one written with them, or they do not fit the base model.
    """

    def __init__(self, folder: Path, batch_size: int = 32, device: str = "cpu") -> None:
        import torch

        from citeguard.index.bert_encoder import BertPairClassifier, plain_bert_model

        self.description = read_description(folder)
        base = str(self.description["base_model"])
        base_folder = resolve_embedding_model_path(base)
        self.tokenizer: Any = None
        self.model: Any
        if device == "cpu" and plain_bert_model(base_folder):
            # The same logits without importing transformers (index/bert_encoder.py).
            self.model = BertPairClassifier(base_folder)
        else:
            self.tokenizer, self.model = base_classifier(base)
        load_trained_weights(self.model, folder, EMBEDDINGS_PREFIX, self.description)
        self.model.to(device)
        self.device = device
        self.max_length = int(self.description.get("max_length", 256))
        self.batch_size = batch_size
        self._torch = torch
        self._lock = threading.Lock()

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(label 1) for each (first, second) pair (the longer text is cut to fit)."""
        out: list[float] = []
        with self._lock, self._torch.inference_mode():
            for i in range(0, len(pairs), self.batch_size):
                logits = self._logits(pairs[i : i + self.batch_size]).squeeze(-1)
                out.extend(self._torch.sigmoid(logits).float().cpu().tolist())
        return np.asarray(out, dtype=np.float64)

    def _logits(self, batch: Sequence[tuple[str, str]]) -> Any:
        """The model's logits for a batch of pairs, the longer text of a pair cut to fit."""
        firsts = [first for first, _ in batch]
        seconds = [second for _, second in batch]
        if self.tokenizer is None:  # a BertPairClassifier
            return self.model(self.model.tokenizer.pair_features(firsts, seconds, self.max_length))
        encoded = self.tokenizer(
            firsts,
            seconds,
            truncation="longest_first",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        ).to(self.device)
        return self.model(**encoded).logits
