"""Scripted stand-ins for the graph's heavy parts (index, embedder, chat model)."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from citeguard.documents import Chunk, SearchHit
from citeguard.graph.resources import Resources

DIM = 256


def bag_of_words_embed(texts: Sequence[str]) -> np.ndarray:
    """Deterministic normalized bag-of-words vectors: cosine = shared vocabulary."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            slot = int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM
            out[row, slot] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.maximum(norms, 1e-12)


def make_chunk(doc: str, text: str, page: int, start: int = 0) -> Chunk:
    return Chunk(
        chunk_id=f"{doc}:{page:04d}",
        doc=doc,
        text=text,
        pdf_pages=(page, page),
        printed_pages=(str(page), str(page)),
        char_start=start,
        char_end=start + len(text),
    )


class ListSearcher:
    """Returns the given chunks for every query, scored by the fake embedding."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = list(chunks)
        self.queries: list[str] = []

    def search(self, query: str, k: int = 8, docs: Sequence[str] | None = None, **_: Any):
        self.queries.append(query)
        chunks = [c for c in self.chunks if not docs or c.doc in docs]
        if not chunks:
            return []
        q = bag_of_words_embed([query])[0]
        vectors = bag_of_words_embed([c.text for c in chunks])
        dense = vectors @ q
        order = np.argsort(-dense)[:k]
        return [
            SearchHit(
                chunk=chunks[i],
                score=float(dense[i]),
                dense_score=float(dense[i]),
                lexical_score=float(dense[i]) * 10,
                rank=r,
            )
            for r, i in enumerate(order)
        ]

    def opening_hit(self, doc: str, query: str, mode: str = "hybrid") -> SearchHit | None:
        """The document's first chunk, as ``HybridSearcher.opening_hit`` returns it."""
        chunks = sorted((c for c in self.chunks if c.doc == doc), key=lambda c: c.char_start)
        if not chunks:
            return None
        return SearchHit(chunk=chunks[0], score=0.0, dense_score=0.0, lexical_score=0.0)


class ScriptedChatModel(GenericFakeChatModel):
    """A fake chat model that replays scripted replies and records every prompt."""

    prompts: list[Any] = []

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any):
        self.prompts.append(messages)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted_model(replies: Iterable[str]) -> ScriptedChatModel:
    model = ScriptedChatModel(messages=iter([AIMessage(content=r) for r in replies]))
    model.prompts = []
    return model


LEASE_CHUNKS = [
    make_chunk(
        "lease.pdf",
        "Tenant shall pay monthly rent of $1,250 on the first day of each month. "
        "A late fee of $50 is charged when rent is paid after the fifth day of the month.",
        page=2,
        start=100,
    ),
    make_chunk(
        "lease.pdf",
        "Landlord shall return the security deposit of $1,500 within 30 days after the "
        "tenant moves out, less any deductions for damage beyond normal wear and tear.",
        page=3,
        start=900,
    ),
    make_chunk(
        "lease.pdf",
        "Tenant may keep one cat or one small dog with the written consent of Landlord.",
        page=4,
        start=1500,
    ),
]


class InertScorer:
    """An evidence scorer that never refuses or quotes: every passage scores between its
    refusal floor and its answer threshold. Unit tests of other paths inject it, so that the
    default ``scorer_sufficiency`` and ``scorer_answer`` neither refuse nor quote. Its
    passages reach its floor, so they also override the sufficiency word rules: a test of
    those rules turns ``scorer_sufficiency`` off."""

    threshold = 1.0
    recall_threshold = 0.0
    passage_answer_threshold = 1.0
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return np.full(len(pairs), 0.5)


INERT_SCORER = InertScorer()


def fake_resources(
    replies: Iterable[str], chunks: Sequence[Chunk] = LEASE_CHUNKS, access: Any = None
) -> Resources:
    return Resources(
        chat_model=scripted_model(replies),
        searcher=ListSearcher(chunks),
        embed=bag_of_words_embed,
        judge=lambda claim, evidence: 0.9,
        relevance=lambda question, evidence: 0.9,
        access=access,
        evidence_scorer=INERT_SCORER,
    )


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load_example(name: str) -> ModuleType:
    """Import examples/<name>.py as a module (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
