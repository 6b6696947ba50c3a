"""A BERT sentence encoder in plain PyTorch: what the bundled MiniLM and the evidence scorer
run on at question time, without importing sentence-transformers or transformers.

Importing those two libraries took 4.5-5.6 s of the 7-9 s a fresh process needed to have
MiniLM and the scorer ready on 2 cores (``docs/benchmarks.md``, "Start-up"), in each
``citeguard ask`` and ``citeguard ingest``. A sentence-transformers folder whose pipeline
is a BERT encoder, mean pooling and (optionally) a normalisation needs neither: its
``tokenizer.json`` is read by Hugging Face's Rust ``tokenizers``, its ``model.safetensors``
by ``safetensors``, and the forward pass below is BERT's, operation for operation as
``transformers`` computes it with its default ``sdpa`` attention, so the vectors are
bitwise those of ``SentenceTransformer.encode`` (``tests/test_bert_encoder.py`` compares
them). The support verifier, a BERT pair classifier, runs the same way
(:class:`BertPairClassifier`). Any other folder (MPNet, another pooling) is loaded by
sentence-transformers as before (:func:`load_sentence_encoder`). Training keeps
sentence-transformers' and transformers' modules: they apply dropout, which inference
does not.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as functional
from torch import nn

logger = logging.getLogger(__name__)

POSITION_IDS_BUFFER = "embeddings.position_ids"
"""A buffer some saved BERT weights hold and the forward pass below does not need."""


def plain_bert_model(folder: Path) -> bool:
    """Whether ``folder`` holds a BERT encoder this module runs: ``config.json`` of a BERT
    encoder with absolute positions and gelu, ``tokenizer.json`` and ``model.safetensors``."""
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return (
        config.get("model_type") == "bert"
        and not config.get("is_decoder")
        and config.get("position_embedding_type", "absolute") == "absolute"
        and config.get("hidden_act", "gelu") == "gelu"
        and (folder / "tokenizer.json").is_file()
        and (folder / "model.safetensors").is_file()
    )


def plain_bert_folder(folder: Path) -> bool:
    """Whether ``folder`` is a sentence-transformers model this module runs: a BERT
    encoder (:func:`plain_bert_model`), then mean pooling, then at most a normalisation."""
    if not plain_bert_model(folder):
        return False
    try:
        modules = json.loads((folder / "modules.json").read_text())
    except (OSError, ValueError):
        return False
    kinds = [str(module.get("type", "")).rsplit(".", 1)[-1] for module in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return False
    pooling_path = folder / str(modules[1].get("path", "")) / "config.json"
    try:
        pooling = json.loads(pooling_path.read_text())
    except (OSError, ValueError):
        return False
    modes = {key for key, value in pooling.items() if key.startswith("pooling_mode") and value}
    return modes == {"pooling_mode_mean_tokens"}


def load_sentence_encoder(folder: Path, device: str = "cpu") -> Any:
    """The sentence encoder of a sentence-transformers ``folder``: a
    :class:`BertSentenceEncoder` where :func:`plain_bert_folder` holds and its weights
    load on the CPU, else a ``SentenceTransformer``. Both offer ``encode``, a forward call
    on tokenized ``features``, ``tokenizer``, ``max_seq_length`` and
    ``get_embedding_dimension``."""
    if device == "cpu" and plain_bert_folder(folder):
        try:
            return BertSentenceEncoder(folder)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            logger.info("reading %s with sentence-transformers (%s)", folder, exc)
    from transformers.utils import logging as transformers_logging

    # Long inputs are windowed by the embedder; the tokenizer's length warning would only
    # mislead.
    transformers_logging.set_verbosity_error()
    return quiet_sentence_transformer(folder, device)


def quiet_sentence_transformer(folder: Path, device: str = "cpu") -> Any:
    """A ``SentenceTransformer`` of ``folder`` on ``device``, loaded without its "Loading
    weights" bar, which would clutter the CLI's answers. The bar's switch is scoped, so an
    embedding application keeps its own setting."""
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    bars_were_on = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        return SentenceTransformer(str(folder), device=device)
    finally:
        if bars_were_on:
            transformers_logging.enable_progress_bar()


class WordPieces:
    """A folder's ``tokenizer.json``, called the way the embedder calls a Hugging Face fast
    tokenizer (the same Rust tokenizer underneath, so the same pieces and offsets)."""

    model_input_names = ("input_ids", "token_type_ids", "attention_mask")

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(path))
        # tokenizer.json may carry a fixed padding and truncation; both are done by callers.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        cls_id = self._tokenizer.token_to_id("[CLS]")
        sep_id = self._tokenizer.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise ValueError(f"{path} has no [CLS] or [SEP] token")
        self.cls_token_id: int = cls_id
        self.sep_token_id: int = sep_id
        self.pad_token = "[PAD]"
        self.pad_token_id: int = self._tokenizer.token_to_id(self.pad_token) or 0
        self.model_max_length = 1_000_000
        """Unused: kept so code written for a Hugging Face tokenizer may set it."""
        self._pair_tokenizers: dict[int, Any] = {}
        self._lock = threading.Lock()

    def __call__(
        self,
        texts: str | Sequence[str],
        add_special_tokens: bool = True,
        truncation: bool = False,
        return_offsets_mapping: bool = False,
    ) -> dict[str, Any]:
        """``input_ids`` (and ``offset_mapping``, character ranges per piece) of one text
        or of each of ``texts``; nothing is truncated (``truncation`` must be False)."""
        if truncation:
            raise ValueError("WordPieces does not truncate; cut the pieces yourself")
        single = isinstance(texts, str)
        batch = [texts] if isinstance(texts, str) else list(texts)
        encodings = self._tokenizer.encode_batch(batch, add_special_tokens=add_special_tokens)
        ids = [encoding.ids for encoding in encodings]
        result: dict[str, Any] = {"input_ids": ids[0] if single else ids}
        if return_offsets_mapping:
            offsets = [encoding.offsets for encoding in encodings]
            result["offset_mapping"] = offsets[0] if single else offsets
        return result

    def pair_features(
        self, firsts: Sequence[str], seconds: Sequence[str], max_length: int
    ) -> dict[str, Any]:
        """The inputs for text pairs, ``[CLS]`` first ``[SEP]`` second ``[SEP]``, as a
        Hugging Face fast tokenizer makes them with ``truncation="longest_first"`` and
        ``padding=True``: the longer text loses pieces from its end, one at a time, until
        the pair fits ``max_length``; the second text's pieces are of token type 1."""
        encodings = self._pair_tokenizer(max_length).encode_batch(
            list(zip(firsts, seconds, strict=True))
        )
        return {
            name: torch.tensor([getattr(encoding, field) for encoding in encodings])
            for name, field in (
                ("input_ids", "ids"),
                ("token_type_ids", "type_ids"),
                ("attention_mask", "attention_mask"),
            )
        }

    def _pair_tokenizer(self, max_length: int) -> Any:
        """A copy of the tokenizer that truncates pairs to ``max_length`` and pads, made
        once per length: a tokenizer whose settings change between calls is not safe to
        share between threads, and copying one costs ~25 ms."""
        from tokenizers import Tokenizer

        with self._lock:
            pairs = self._pair_tokenizers.get(max_length)
            if pairs is None:
                pairs = Tokenizer.from_str(self._tokenizer.to_str())
                pairs.enable_truncation(max_length, strategy="longest_first")
                pairs.enable_padding(pad_id=self.pad_token_id, pad_token=self.pad_token)
                self._pair_tokenizers[max_length] = pairs
            return pairs

    def features(self, texts: Sequence[str], max_length: int) -> dict[str, Any]:
        """The model's inputs for ``texts``: ``[CLS]`` pieces ``[SEP]``, each cut to
        ``max_length`` pieces as sentence-transformers cuts them (the pieces' end, not the
        ``[SEP]``), padded to the longest, with their attention mask."""
        rows = []
        for ids in self(texts, add_special_tokens=False)["input_ids"]:
            rows.append([self.cls_token_id, *ids[: max_length - 2], self.sep_token_id])
        width = max(len(row) for row in rows)
        input_ids = np.full((len(rows), width), self.pad_token_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, row in enumerate(rows):
            input_ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        return {
            "input_ids": torch.from_numpy(input_ids),
            "token_type_ids": torch.zeros((len(rows), width), dtype=torch.long),
            "attention_mask": torch.from_numpy(mask),
        }


class BertLayers(nn.Module):
    """BERT's layers under the parameter names of ``transformers``' ``BertModel``
    (``embeddings.word_embeddings.weight``, ``encoder.layer.0.attention.self.query.weight``
    ..., ``pooler.dense.weight``), so saved weights, the shipped models' included, load by
    name; a call gives the last hidden states, computed as ``transformers`` computes them
    with ``sdpa`` attention in evaluation mode.

    Raises:
        ValueError, KeyError: ``config`` (a ``config.json``) is not a BERT encoder's.
    """

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        if config.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"activation {config.get('hidden_act')!r} is not BERT's gelu")
        hidden = int(config["hidden_size"])
        inner = int(config["intermediate_size"])
        eps = float(config.get("layer_norm_eps", 1e-12))
        self.heads = int(config["num_attention_heads"])
        self.head_size = hidden // self.heads
        self.hidden_size = hidden

        def holder(**children: nn.Module) -> Any:
            module = nn.Module()
            for name, child in children.items():
                module.add_module(name, child)
            return module

        def layer() -> nn.Module:
            return holder(
                attention=holder(
                    self=holder(
                        query=nn.Linear(hidden, hidden),
                        key=nn.Linear(hidden, hidden),
                        value=nn.Linear(hidden, hidden),
                    ),
                    output=holder(
                        dense=nn.Linear(hidden, hidden), LayerNorm=nn.LayerNorm(hidden, eps)
                    ),
                ),
                intermediate=holder(dense=nn.Linear(hidden, inner)),
                output=holder(dense=nn.Linear(inner, hidden), LayerNorm=nn.LayerNorm(hidden, eps)),
            )

        self.embeddings: Any = holder(
            word_embeddings=nn.Embedding(
                int(config["vocab_size"]), hidden, padding_idx=config.get("pad_token_id")
            ),
            position_embeddings=nn.Embedding(int(config["max_position_embeddings"]), hidden),
            token_type_embeddings=nn.Embedding(int(config.get("type_vocab_size", 2)), hidden),
            LayerNorm=nn.LayerNorm(hidden, eps),
        )
        layers = nn.ModuleList(layer() for _ in range(int(config["num_hidden_layers"])))
        self.encoder: Any = holder(layer=layers)
        self.pooler: Any = holder(dense=nn.Linear(hidden, hidden))

    def load_weights(self, path: Path) -> None:
        """The base weights of a ``model.safetensors`` (a ``bert.`` prefix allowed).

        Raises:
            RuntimeError: they do not fit these layers.
        """
        from safetensors.torch import load_file

        weights = load_file(str(path))
        if weights and all(name.startswith("bert.") for name in weights):
            weights = {name.removeprefix("bert."): tensor for name, tensor in weights.items()}
        missing, unexpected = self.load_state_dict(weights, strict=False)
        unexpected = [name for name in unexpected if name != POSITION_IDS_BUFFER]
        if missing or unexpected:
            raise RuntimeError(
                f"{path.parent} does not hold BERT weights: missing {missing[:3]}, "
                f"unexpected {unexpected[:3]}"
            )

    def forward(self, features: dict[str, Any]) -> torch.Tensor:
        """The last hidden states for ``input_ids``, ``attention_mask`` and (zeros if
        absent) ``token_type_ids``."""
        input_ids = features["input_ids"]
        attention_mask = features["attention_mask"]
        batch, length = input_ids.shape
        embeddings = self.embeddings
        positions = torch.arange(length).unsqueeze(0)
        hidden = embeddings.word_embeddings(input_ids) + embeddings.token_type_embeddings(
            features.get("token_type_ids", torch.zeros_like(input_ids))
        )
        hidden = embeddings.LayerNorm(hidden + embeddings.position_embeddings(positions))
        # transformers gives sdpa no mask when nothing is padded, else a boolean one.
        mask = (
            None
            if bool(attention_mask.all())
            else attention_mask.bool()[:, None, None, :].expand(batch, 1, length, length)
        )
        shape = (batch, length, self.heads, self.head_size)
        for layer in self.encoder.layer:
            heads = layer.attention.self
            attended = functional.scaled_dot_product_attention(
                heads.query(hidden).view(shape).transpose(1, 2),
                heads.key(hidden).view(shape).transpose(1, 2),
                heads.value(hidden).view(shape).transpose(1, 2),
                attn_mask=mask,
                dropout_p=0.0,
                scale=self.head_size**-0.5,
                is_causal=False,
            )
            attended = attended.transpose(1, 2).contiguous().reshape(batch, length, -1)
            out = layer.attention.output
            hidden = out.LayerNorm(out.dense(attended) + hidden)
            inner = functional.gelu(layer.intermediate.dense(hidden))
            hidden = layer.output.LayerNorm(layer.output.dense(inner) + hidden)
        return hidden


class BertSentenceEncoder(nn.Module):
    """A plain BERT sentence-transformers folder (:func:`plain_bert_folder`) for inference:
    ``bert`` holds the weights under ``BertModel``'s names, ``tokenizer`` is
    :class:`WordPieces`, and ``encode`` / a call on ``features`` give what
    ``SentenceTransformer`` gives, bit for bit.

    Raises:
        ValueError, KeyError, OSError: the folder's files do not describe such a model.
        RuntimeError: its weights do not fit the layers.
    """

    def __init__(self, folder: Path) -> None:
        super().__init__()
        config = json.loads((folder / "config.json").read_text())
        self.bert = BertLayers(config)
        self.bert.load_weights(folder / "model.safetensors")
        self.dimension = self.bert.hidden_size
        self.eval()
        self.tokenizer = WordPieces(folder / "tokenizer.json")
        settings_path = folder / "sentence_bert_config.json"
        settings = json.loads(settings_path.read_text()) if settings_path.is_file() else {}
        self.max_seq_length = int(
            settings.get("max_seq_length") or config.get("max_position_embeddings", 512)
        )
        modules = json.loads((folder / "modules.json").read_text())
        self.normalizes = len(modules) == 3

    def get_embedding_dimension(self) -> int:
        return self.dimension

    def forward(self, features: dict[str, Any]) -> dict[str, Any]:
        """BERT's last hidden states (``token_embeddings``) and their mean over the real
        pieces (``sentence_embedding``, made unit length where the folder normalizes)."""
        attention_mask = features["attention_mask"]
        hidden = self.bert(features)
        weights = attention_mask.unsqueeze(-1).expand(hidden.size()).to(hidden.dtype)
        pooled = torch.sum(hidden * weights, 1) / torch.clamp(weights.sum(1), min=1e-9)
        if self.normalizes:
            pooled = functional.normalize(pooled, p=2, dim=1)
        return {
            "token_embeddings": hidden,
            "sentence_embedding": pooled,
            "attention_mask": attention_mask,
        }

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = 32,
        normalize_embeddings: bool = False,
        convert_to_numpy: bool = True,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """One vector per text, as ``SentenceTransformer.encode`` makes it: texts read
        longest first (by characters) in batches of ``batch_size``, returned in their
        order. ``convert_to_numpy`` is always true here."""
        from tqdm.auto import tqdm

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        order = np.argsort([-len(text) for text in texts])
        vectors: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * len(texts)
        starts = range(0, len(texts), batch_size)
        with torch.inference_mode():
            for start in tqdm(starts, desc="Batches", disable=not show_progress_bar):
                batch = order[start : start + batch_size]
                features = self.tokenizer.features([texts[i] for i in batch], self.max_seq_length)
                pooled = self(features)["sentence_embedding"]
                if normalize_embeddings:
                    pooled = functional.normalize(pooled, p=2, dim=1)
                for row, i in enumerate(batch):
                    vectors[i] = pooled[row].float().numpy()  # bfloat16 under autocast
        return np.stack(vectors)


class BertPairClassifier(nn.Module):
    """A BERT classifier of text pairs for inference, under the parameter names of
    ``transformers``' ``BertForSequenceClassification`` (``bert.…``, ``classifier.…``):
    the trained verifier's architecture. ``bert`` starts from the base folder's weights
    and ``classifier`` untrained, as ``from_pretrained`` leaves them; a trained model's
    weights are then put over both. A call on :meth:`WordPieces.pair_features` gives the
    logits ``transformers`` gives, bit for bit (``tests/test_bert_encoder.py``).

    Raises:
        ValueError, KeyError, OSError: ``base_folder`` is not a plain BERT model.
        RuntimeError: its weights do not fit the layers.
    """

    def __init__(self, base_folder: Path, num_labels: int = 1) -> None:
        super().__init__()
        config = json.loads((base_folder / "config.json").read_text())
        self.bert = BertLayers(config)
        self.bert.load_weights(base_folder / "model.safetensors")
        self.classifier = nn.Linear(self.bert.hidden_size, num_labels)
        self.tokenizer = WordPieces(base_folder / "tokenizer.json")
        self.eval()

    def forward(self, features: dict[str, Any]) -> torch.Tensor:
        """One row of ``num_labels`` logits per pair: the classifier over the pooler's
        tanh of the ``[CLS]`` state."""
        hidden = self.bert(features)
        return self.classifier(torch.tanh(self.bert.pooler.dense(hidden[:, 0])))
