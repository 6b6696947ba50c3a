"""A bi-encoder pair scorer: (question, passage) -> P(answers) from a fine-tuned embedder.

The question and the passage are embedded apart by a sentence embedder (the bundled MiniLM,
fine-tuned), and their cosine becomes a probability through a fitted line:
P = sigmoid(scale * cosine + bias). It starts from what the embedder already knows about
meaning (general sentence pairs), which the cross-encoder had to learn from the pairs
alone; on cuad-train's held-out questions the untrained embedder's cosine already told
answerable from unanswerable questions better than the trained cross-encoder did
(``docs/results.md``, "The evidence scorer: training and what it separates").

Saved like the cross-encoder (``learned/cross_encoder.py``): the transformer layers in
float16 without the untrained word-piece embeddings (``encoder.safetensors``), and
``model.json`` with ``"architecture": "bi-encoder"``, the line's ``scale`` and ``bias``,
the thresholds and the weights' sha256.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.index.embedder import resolve_embedding_model_path
from citeguard.index.stored_passage_vectors import StoredPassageVectors
from citeguard.learned.saved_model import (
    WEIGHTS_FILE,
    DescribedThresholds,
    load_trained_weights,
    read_description,
    write_description,
)

ARCHITECTURE = "bi-encoder"
EMBEDDINGS_PREFIX = "embeddings."
"""Parameters of the embedder's transformer under this prefix are never trained nor saved."""
INITIAL_SCALE = 10.0
INITIAL_BIAS = -5.0
"""The line's start: cosine 0.5 maps to P = 0.5, cosine 0.8 to 0.95."""
CACHED_TEXTS = 20_000
"""Embeddings kept for texts scored before (~30 MB at 384 dimensions): the passages of
some hundred documents' retrieved chunks."""


def base_embedder(base_model: str, max_length: int, device: str = "cpu") -> Any:
    """The bundled sentence embedder as a ``SentenceTransformer``, quietly loaded on
    ``device`` (a torch device name), reading at most ``max_length`` pieces: for training,
    whose forward pass applies dropout. Scoring reads the same weights without
    sentence-transformers (:class:`BiEncoderScorer`)."""
    from citeguard.index.bert_encoder import quiet_sentence_transformer

    model = quiet_sentence_transformer(resolve_embedding_model_path(base_model), device)
    model.max_seq_length = max_length
    return model


def transformer_of(model: Any) -> Any:
    """The BERT layers inside a sentence encoder, their parameters named as in
    ``transformers``' models: a :class:`~citeguard.index.bert_encoder.BertSentenceEncoder`'s
    ``bert``, a ``SentenceTransformer``'s auto model."""
    from citeguard.index.bert_encoder import BertSentenceEncoder

    if isinstance(model, BertSentenceEncoder):
        return model.bert
    return model[0].auto_model


class TrainableBiEncoder:
    """The bi-encoder under training: the embedder (embeddings frozen) and the line."""

    def __init__(self, base_model: str, max_length: int, device: str = "cpu") -> None:
        import torch

        self.model = base_embedder(base_model, max_length, device)
        for name, parameter in transformer_of(self.model).named_parameters():
            if name.startswith(EMBEDDINGS_PREFIX):
                parameter.requires_grad_(False)
        self.scale = torch.nn.Parameter(torch.tensor(INITIAL_SCALE, device=device))
        self.bias = torch.nn.Parameter(torch.tensor(INITIAL_BIAS, device=device))
        self.device = device
        self._torch = torch

    def load(self, folder: Path) -> None:
        """Continue from a saved bi-encoder: its trained layers and its line.

        Raises:
            citeguard.errors.ModelUnavailableError: the folder holds no matching model.
        """
        description = read_description(folder)
        load_trained_weights(transformer_of(self.model), folder, EMBEDDINGS_PREFIX, description)
        with self._torch.no_grad():
            self.scale.fill_(float(description.get("scale", INITIAL_SCALE)))
            self.bias.fill_(float(description.get("bias", INITIAL_BIAS)))

    def encoder_parameters(self) -> list[Any]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def line_parameters(self) -> list[Any]:
        return [self.scale, self.bias]

    def train(self) -> None:
        self.model.train()

    def _embed(self, texts: Sequence[str]) -> Any:
        # ``preprocess`` since sentence-transformers 6 (``tokenize`` warns there).
        prepare = getattr(self.model, "preprocess", None) or self.model.tokenize
        features = {
            name: value.to(self.device) if hasattr(value, "to") else value
            for name, value in prepare(list(texts)).items()
        }
        vectors = self.model(features)["sentence_embedding"]
        return self._torch.nn.functional.normalize(vectors, dim=-1)

    def logits(self, firsts: Sequence[str], seconds: Sequence[str]) -> Any:
        """scale * cosine + bias for each (first, second) pair."""
        cosine = (self._embed(firsts) * self._embed(seconds)).sum(-1)
        return self.scale * cosine + self.bias

    def save(
        self, folder: Path, base_model: str, max_length: int, about: dict[str, Any]
    ) -> dict[str, Any]:
        """Write the trained layers (float16, without embeddings) and ``model.json``."""
        from safetensors.torch import save_file

        folder.mkdir(parents=True, exist_ok=True)
        tensors = {
            name: tensor.detach().to("cpu").half().contiguous()
            for name, tensor in transformer_of(self.model).state_dict().items()
            if not name.startswith(EMBEDDINGS_PREFIX)
        }
        save_file(tensors, str(folder / WEIGHTS_FILE))
        return write_description(
            folder,
            {
                "architecture": ARCHITECTURE,
                "base_model": base_model,
                "max_length": max_length,
                "scale": float(self.scale.detach()),
                "bias": float(self.bias.detach()),
                **about,
            },
        )


class BiEncoderScorer(DescribedThresholds):
    """A saved bi-encoder, loaded for scoring (thread-safe) on ``device`` (a torch device
    name; the graph uses the CPU).

    Raises:
        citeguard.errors.ModelUnavailableError: a file is missing, the weights' sha256
            differs from the one written with them, or they do not fit the base model.
    """

    def __init__(self, folder: Path, batch_size: int = 32, device: str = "cpu") -> None:
        import torch

        from citeguard.index.bert_encoder import load_sentence_encoder

        self.description = read_description(folder)
        self.max_length = int(self.description.get("max_length", 128))
        self.model = load_sentence_encoder(
            resolve_embedding_model_path(str(self.description["base_model"])), device
        )
        self.model.max_seq_length = self.max_length
        load_trained_weights(
            transformer_of(self.model), folder, EMBEDDINGS_PREFIX, self.description
        )
        self.model.eval()
        self.scale = float(self.description.get("scale", INITIAL_SCALE))
        self.bias = float(self.description.get("bias", INITIAL_BIAS))
        self.batch_size = batch_size
        self._torch = torch
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.texts_embedded = 0
        """How many texts this scorer has embedded (not read from its cache) so far."""

    def scores(
        self,
        pairs: Sequence[tuple[str, str]],
        stored: StoredPassageVectors | None = None,
    ) -> np.ndarray:
        """P(the second text answers the first) for each pair; each distinct text is
        embedded once (a question is paired with every passage of its sources), and a text
        embedded for an earlier call is not embedded again (:meth:`_vectors`).

        ``stored``: the passage vectors kept beside the index the passages come from; the
        second texts (the passages, never the questions) are read from it when there, and
        kept in it when embedded here.
        """
        if not pairs:
            return np.zeros(0)
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        passages = {passage for _, passage in pairs} if stored is not None else set()
        vectors = self._vectors(texts, stored, passages)
        row = {text: i for i, text in enumerate(texts)}
        first = vectors[[row[a] for a, _ in pairs]]
        second = vectors[[row[b] for _, b in pairs]]
        cosine = (first * second).sum(axis=1).astype(np.float64)
        return 1.0 / (1.0 + np.exp(-(self.scale * cosine + self.bias)))

    @property
    def dimension(self) -> int:
        """The length of the unit vectors it embeds texts into."""
        # BertSentenceEncoder's name, else sentence-transformers' (older releases).
        measure = getattr(self.model, "get_embedding_dimension", None)
        if measure is None:
            measure = self.model.get_sentence_embedding_dimension
        return int(measure())

    @property
    def weights_sha256(self) -> str:
        """Its weights' sha256 as ``model.json`` gives it ("" when not given)."""
        return str(self.description.get("weights_sha256", ""))

    def forget_embedded_texts(self) -> None:
        """Empty the cache of embedded texts, as a new process starts (for benchmarks)."""
        with self._lock:
            self._cache.clear()

    def _vectors(
        self,
        texts: Sequence[str],
        stored: StoredPassageVectors | None = None,
        storable: Collection[str] = (),
    ) -> np.ndarray:
        """The unit embeddings of distinct ``texts``, one row each.

        A passage's embedding does not depend on the question it is paired with (the two
        are embedded apart), so the passages of a document's chunks, scored again for each
        question asked of it, are read from a bounded cache of the most recently embedded
        texts (:data:`CACHED_TEXTS`) instead of being embedded again; texts of
        ``storable`` not in that cache are then looked up in ``stored``, and every one of
        them is kept there (the store skips those it already holds).
        """
        with self._lock:
            missing = [text for text in texts if text not in self._cache]
            if missing and stored is not None:
                for text, vector in stored.find([t for t in missing if t in storable]).items():
                    self._cache[text] = vector
                missing = [text for text in missing if text not in self._cache]
            if missing:
                with self._torch.inference_mode():
                    fresh = self.model.encode(
                        missing,
                        batch_size=self.batch_size,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                        show_progress_bar=False,
                    )
                for text, vector in zip(missing, fresh, strict=True):
                    self._cache[text] = vector
                self.texts_embedded += len(missing)
            if stored is not None:
                # Also those embedded before, in memory: the store may be newer than they.
                stored.keep({t: self._cache[t] for t in texts if t in storable})
            for text in texts:
                self._cache.move_to_end(text)
            rows = np.stack([self._cache[text] for text in texts])
            while len(self._cache) > CACHED_TEXTS:
                self._cache.popitem(last=False)
        return rows


class BiEncoderWithStoredPassages(DescribedThresholds):
    """A :class:`BiEncoderScorer` that reads and keeps its passages' vectors in ``stored``
    (the store beside one index), with the scorer's own thresholds."""

    def __init__(self, scorer: BiEncoderScorer, stored: StoredPassageVectors) -> None:
        self.scorer = scorer
        self.stored = stored
        self.description = scorer.description

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The scorer's scores, its passage vectors read from and kept in the store."""
        return self.scorer.scores(pairs, self.stored)
