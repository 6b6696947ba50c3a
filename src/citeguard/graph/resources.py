"""What the nodes use (index, embedder, chat model, judge, draft store), built once per process.

Nodes never build models themselves, and keep no state of their own: they ask the
``Resources`` they were built with (``make_*(resources)``). The default builds the real
components lazily on first use and keeps them for the life of the process (one model load
per CLI run or server process). Tests pass a ``Resources`` holding scripted fakes.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from langchain_core.runnables.config import var_child_runnable_config

from citeguard.errors import IndexStoreError, ModelUnavailableError
from citeguard.graph.access import ServerAccess
from citeguard.graph.context import Context
from citeguard.graph.drafts import DraftStore
from citeguard.index.embedding_cache import CachedEmbed
from citeguard.index.searcher import Searcher, StoredChunkVectors, StoredScorerPassages
from citeguard.learned.evidence import CachedPairScorer, best_passage_score
from citeguard.llm.model_work import WorkCounter, work_counter_of
from citeguard.validate.validator import JudgeFn, RelevanceFn

if TYPE_CHECKING:
    from citeguard.generate.trimming import StoredVectors
    from citeguard.learned.bi_encoder import BiEncoderScorer
    from citeguard.learned.evidence import PairScorer
    from citeguard.learned.shipped import LearnedKind
    from citeguard.llm.judge import LocalJudge
    from citeguard.validate.settings import ValidationSettings


@dataclass(frozen=True)
class _ScorerWithStore:
    """The evidence scorer as runs over one searcher's index use it: reading and keeping
    its passage vectors in that index (:meth:`Resources.evidence_scorer`)."""

    searcher: Searcher
    model: BiEncoderScorer
    scorer: CachedPairScorer


class Resources:
    """Lazily built components, optionally replaced by injected ones, and the draft store.

    Args:
        chat_model: a LangChain chat model to use for every ``model`` setting (tests).
        searcher: an object with ``search(query, **settings) -> list[SearchHit]`` (tests).
        embed: a function mapping texts to normalized vectors (tests).
        judge: P(supported | claim, evidence) function for the "judge" level (tests).
        relevance: P(evidence answers question | question, evidence) function for the
            judge level's relevance check (tests).
        drafts: where candidates wait for validation, outside graph state; default: a new
            store owned by these resources (so graphs with other resources never share it).
        model_work: where the local model's work for these resources is counted (its chat
            model and judge); default: the injected chat model's own counter (its ``work``),
            else a new one, so graphs with other resources never share it.
        access: for served graphs, the operator's policy (asked at each run) on which
            indexes a run may name (``citeguard.graph.access``); None: any index.
        evidence_scorer: (question, passage) -> P(answers) with its thresholds; default:
            the trained scorer shipped with the package (tests pass fakes).
        support_verifier: (claim, evidence) -> P(supported) with its threshold; default:
            the trained verifier shipped with the package.
    """

    def __init__(
        self,
        chat_model: Any | None = None,
        searcher: Searcher | None = None,
        embed: Callable[[Sequence[str]], np.ndarray] | None = None,
        judge: JudgeFn | None = None,
        relevance: RelevanceFn | None = None,
        drafts: DraftStore | None = None,
        model_work: WorkCounter | None = None,
        access: Callable[[], ServerAccess | None] | None = None,
        evidence_scorer: PairScorer | None = None,
        support_verifier: PairScorer | None = None,
    ) -> None:
        self._chat_model = chat_model
        self._searcher = searcher
        self._embed = embed
        self._judge = judge
        self._relevance = relevance
        self.drafts = drafts if drafts is not None else DraftStore()
        if model_work is None:
            model_work = work_counter_of(chat_model) or WorkCounter()
        self.model_work = model_work
        self._access = access
        self._evidence_scorer = evidence_scorer
        self._support_verifier = support_verifier
        self._learned_cache: dict[str, CachedPairScorer] = {}
        self._stored_scorers: dict[int, _ScorerWithStore] = {}
        self._local_judge: LocalJudge | None = None
        self._lock = threading.Lock()
        self._searchers: dict[tuple[str, str], tuple[int, Searcher]] = {}
        self._chat_models: dict[str, Any] = {}
        self._cached_embeds: dict[int, tuple[Any, CachedEmbed]] = {}

    # -- retrieval -------------------------------------------------------------------
    def index_dir(self, ctx: Context) -> Path:
        """The index folder a run reads: ``ctx.index_dir`` as the access policy allows it.

        Raises:
            AccessDeniedError: a served run named an index the operator did not allow.
        """
        from citeguard.index.store import resolve_index_dir

        policy = self._access() if self._access is not None else None
        chosen = policy.index_dir(ctx.index_dir) if policy is not None else ctx.index_dir
        return resolve_index_dir(chosen)

    def searcher(self, ctx: Context) -> Searcher:
        """The searcher given at construction, else the hybrid searcher over
        ``ctx.index_dir``, reloaded when the index changes on disk."""
        index_dir = self.index_dir(ctx)  # the access check comes first, fakes or not
        if self._searcher is not None:
            return self._searcher
        from citeguard.index.search import load_index

        key = (str(index_dir), ctx.embedding_model or "")
        stamp = _index_stamp(index_dir)
        with self._lock:
            cached = self._searchers.get(key)
            if cached is None or cached[0] != stamp:
                self._searchers[key] = (stamp, load_index(index_dir, ctx.embedding_model))
            return self._searchers[key][1]

    # -- embeddings ------------------------------------------------------------------
    def embed(self, ctx: Context) -> Callable[[Sequence[str]], np.ndarray]:
        if self._embed is not None:
            return self._embed
        # The index's own query embedder: one model in memory, and the same vector space.
        # Remembered per embedder: a regeneration, and the next question about the same
        # document, validate against the same sources.
        embedder = self.searcher(ctx).embedder
        with self._lock:
            cached = self._cached_embeds.get(id(embedder))
            if cached is None or cached[0] is not embedder:
                cached = (embedder, CachedEmbed(embedder.embed_documents))
                self._cached_embeds[id(embedder)] = cached
            return cached[1]

    def embed_for_sources(
        self, ctx: Context, evidence: Sequence[dict[str, Any]]
    ) -> Callable[[Sequence[str]], np.ndarray]:
        """:meth:`embed`, already holding the index's stored vectors of the evidence chunks.

        Validation embeds each whole source (several windows of the embedding model, ~0.4 s
        for four chunks on 2 cores); ingest embedded the same texts with the same function,
        so the index's vectors are used instead. A source whose text is not the chunk as
        indexed is embedded as before; nothing is taken with an injected ``embed``.
        """
        embed = self.embed(ctx)
        if self._embed is not None or not isinstance(embed, CachedEmbed):
            return embed
        searcher = self.searcher(ctx)
        if not isinstance(searcher, StoredChunkVectors):
            return embed
        for item in evidence:
            found = searcher.stored_chunk_vector(str(item.get("chunk_id", "")))
            if found is not None and found[0] == item.get("text"):
                embed.remember(found[0], found[1])
        return embed

    def stored_sentence_vectors(self, ctx: Context) -> StoredVectors | None:
        """The index's sentence vectors by chunk id (None when they cannot be used).

        They are in the index's vector space, so not with an injected ``embed``.
        """
        searcher = self.searcher(ctx)
        if self._embed is not None or not isinstance(searcher, StoredChunkVectors):
            return None
        return searcher.stored_sentence_vectors

    # -- generation ------------------------------------------------------------------
    def invoker(self, ctx: Context) -> Callable[[list[tuple[str, str]], str | None], str]:
        """A function (messages, grammar) -> reply text for the run's chat model.

        The grammar (GBNF) constrains the local llama.cpp model per call; other models
        ignore it. The call runs without the graph's callbacks, so raw tokens and drafts
        never reach a client in any stream mode: "messages" and the server's "events"
        (astream_events) are fed by callbacks. Only validated text is streamed, by the
        validate node. The ``nostream`` tag is a second guard for messages mode. (Tracers
        such as LangSmith do not see these calls either.)
        """
        local = self._chat_model is None and _is_local(ctx.model)
        base = (
            self._chat_model if self._chat_model is not None else self._real_chat_model(ctx.model)
        )

        def invoke(messages: list[tuple[str, str]], grammar: str | None) -> str:
            model = base.bind(grammar=grammar) if (local and grammar) else base
            tagged = model.with_config(tags=["nostream", "citeguard:generator"])
            reply = _without_run_callbacks(lambda: tagged.invoke(messages))
            return message_text(reply).strip()

        return invoke

    def _real_chat_model(self, spec: str) -> Any:
        with self._lock:
            if spec not in self._chat_models:
                from citeguard.llm.providers import build_chat_model

                self._chat_models[spec] = build_chat_model(spec, work=self.model_work)
            return self._chat_models[spec]

    # -- trained models ---------------------------------------------------------------
    def evidence_scorer(self, ctx: Context | None = None) -> PairScorer | None:
        """The evidence scorer (None when the shipped one cannot load: warned once).

        With ``ctx``, a bi-encoder scorer reads and keeps the vectors of the passages it
        embeds in the run's index, when its searcher keeps them (``StoredScorerPassages``),
        so that a new process does not embed a document's passages again.
        """
        model = self._learned("scorer", self._evidence_scorer)
        if ctx is None or model is None:
            return model
        from citeguard.learned.bi_encoder import BiEncoderScorer, BiEncoderWithStoredPassages

        inner = model.scorer
        if not isinstance(inner, BiEncoderScorer) or not inner.weights_sha256:
            return model
        try:
            searcher = self.searcher(ctx)
        except IndexStoreError:
            return model  # no index yet: the search says so
        if not isinstance(searcher, StoredScorerPassages):
            return model
        with self._lock:
            known = self._stored_scorers.get(id(searcher))
            if known is not None and known.searcher is searcher and known.model is inner:
                return known.scorer
            stored = searcher.scorer_passage_vectors(inner.weights_sha256[:12], inner.dimension)
            if stored is None:
                return model
            scorer = CachedPairScorer(BiEncoderWithStoredPassages(inner, stored))
            # One per searcher: an ingest's new generation gets a searcher, and a store, of
            # its own; the entries of searchers no longer served go.
            live = {id(s) for _, s in self._searchers.values()}
            self._stored_scorers = {
                key: entry for key, entry in self._stored_scorers.items() if key in live
            }
            self._stored_scorers[id(searcher)] = _ScorerWithStore(searcher, inner, scorer)
            return scorer

    def support_verifier(self) -> PairScorer | None:
        """The support verifier (None when the shipped one cannot load: warned once)."""
        return self._learned("verifier", self._support_verifier)

    def _learned(self, kind: LearnedKind, injected: PairScorer | None) -> CachedPairScorer | None:
        """The injected or shipped ``kind``, behind one score cache per resources."""
        from citeguard.learned.shipped import shipped_model

        model = injected if injected is not None else shipped_model(kind)
        if model is None:
            return None
        with self._lock:
            cached = self._learned_cache.get(kind)
            if cached is None or cached.scorer is not model:
                cached = self._learned_cache[kind] = CachedPairScorer(model)
            return cached

    def _learned_judges(self, ctx: Context) -> tuple[PairScorer, PairScorer] | None:
        """(verifier, scorer) when the run's judge is the trained models and both load."""
        if ctx.support_judge != "verifier":
            return None
        verifier, scorer = self.support_verifier(), self.evidence_scorer(ctx)
        if verifier is None or scorer is None:
            return None  # the fallback: the local model judges (the warning said so)
        return verifier, scorer

    # -- judge -----------------------------------------------------------------------
    def judge(self, ctx: Context) -> JudgeFn | None:
        if ctx.validation_level != "judge":
            return None
        learned = self._learned_judges(ctx)
        if learned is not None:
            verifier = learned[0]
            return lambda claim, evidence: best_passage_score(verifier, claim, evidence)
        if self._judge is not None:
            return self._judge
        return self.local_support_probability

    def relevance(self, ctx: Context) -> RelevanceFn | None:
        if ctx.validation_level != "judge" or not ctx.relevance_check:
            return None
        learned = self._learned_judges(ctx)
        if learned is not None:
            scorer = learned[1]
            return lambda question, evidence: best_passage_score(scorer, question, evidence)
        if self._relevance is not None:
            return self._relevance
        return self.local_answers_question_probability

    def judged_settings(self, ctx: Context, settings: ValidationSettings) -> ValidationSettings:
        """``settings`` with the trained models' own thresholds when they judge the run."""
        learned = self._learned_judges(ctx) if settings.level == "judge" else None
        if learned is None:
            return settings
        verifier, scorer = learned
        return replace(
            settings,
            judge_threshold=verifier.threshold,
            relevance_threshold=scorer.recall_threshold,
        )

    def local_support_probability(self, claim: str, evidence: str) -> float:
        """The judge level's judge: the local model's P(the evidence supports the claim).

        The judge level is the default, and it needs the local model even when another chat
        model writes the answers; when the local model is missing, the error says how to
        validate without it.
        """
        return _with_local_model_hint(
            lambda: self.local_judge().support_probability(claim, evidence)
        )

    def local_answers_question_probability(self, question: str, evidence: str) -> float:
        """The relevance check's judge: the local model's P(the evidence answers the question)."""
        return _with_local_model_hint(
            lambda: self.local_judge().answers_question_probability(question, evidence)
        )

    def local_judge(self) -> LocalJudge:
        """The local model's judge, counting into :attr:`model_work` (loaded on first use).

        Raises:
            ModelUnavailableError: the local model or llama-cpp-python is not installed.
        """
        judge = self._local_judge
        if judge is None:
            from citeguard.llm.judge import local_judge

            built = local_judge(work=self.model_work)  # the model loads outside the lock
            with self._lock:
                if self._local_judge is None:
                    self._local_judge = built
                judge = self._local_judge
        return judge


def _with_local_model_hint(call: Callable[[], float]) -> float:
    try:
        return call()
    except ModelUnavailableError as exc:
        raise ModelUnavailableError(
            f"{exc}. The judge validation level (the default) checks every sentence with the "
            "local model; choose support judge 'verifier' (the trained verifier) or validation "
            "level 'strict' to validate without it."
        ) from exc


def _without_run_callbacks(call: Callable[[], Any]) -> Any:
    """Run ``call`` outside the current run's callback context.

    Inside a graph node, LangChain passes the run's callback manager (stream handlers,
    astream_events, tracers) to every runnable through a context variable, and explicit
    ``callbacks=[]`` is merged into it rather than replacing it. Clearing the variable in a
    copied context is what detaches the call.
    """

    def detached() -> Any:
        var_child_runnable_config.set(None)
        return call()

    return contextvars.copy_context().run(detached)


def message_text(message: Any) -> str:
    """The plain text of a chat model's reply (content may be a string or a list of parts)."""
    content = getattr(message, "content", message)
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)
    return str(content)


def _is_local(spec: str) -> bool:
    return spec == "local" or spec.startswith("local:")


def _index_stamp(index_dir: Path) -> int:
    """Changes whenever an ingest switches the index to a new generation."""
    pointer = index_dir / "CURRENT"
    try:
        return pointer.stat().st_mtime_ns
    except OSError:
        return -1


_default: Resources | None = None


def default_resources() -> Resources:
    """The process-wide real resources (one model load per process)."""
    global _default
    if _default is None:
        _default = Resources()
    return _default


_served: Resources | None = None


def served_resources() -> Resources:
    """The real resources of the graphs the LangGraph server serves: the operator's access
    policy, read from the environment at each run, limits which indexes runs may name."""
    global _served
    if _served is None:
        _served = Resources(access=ServerAccess.from_environment)
    return _served
