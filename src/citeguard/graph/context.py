"""Run-time settings for the answer graph (LangGraph ``context_schema``): the one definition
of every setting a run can change.

Every field has a default, so a run without context uses the paper's configuration with
the local models. A field's description is its documentation everywhere: the server shows
it in /assistants/{id}/schemas, and ``citeguard ask`` and ``citeguard eval`` show it as the
help of the option generated from the field (:func:`add_context_options`). The validator's
settings are built from a Context (:meth:`Context.validation_settings`), so a threshold has
its default here only.
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, cast, get_args, get_origin, get_type_hints

from citeguard.errors import InvalidSettingError
from citeguard.generate.strategies import GenerationStrategy
from citeguard.index.fusion import DEFAULT_ALPHA, FusionMethod
from citeguard.index.search import SearchMode
from citeguard.learned.evidence import OVERLAPPING_ANSWER_PASSAGES
from citeguard.validate.settings import ValidationLevel, ValidationSettings

RetrievalMode = SearchMode
SupportJudge = Literal["llm", "verifier"]
RunValidationLevel = Literal[ValidationLevel, "off"]
"""The validator's levels, and "off" (accepted only by the evaluation harness)."""


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


@dataclass(frozen=True)
class Context:
    """Settings for one run of the answer graph."""

    model: str = field(
        default="local",
        metadata=_doc(
            '"local" (Qwen2.5-Coder-1.5B GGUF through llama.cpp, offline) or a LangChain '
            '"provider:model" string such as "ollama:qwen2.5:7b".'
        ),
    )
    embedding_model: str | None = field(
        default=None,
        metadata=_doc(
            "Embedding model for queries and validation; default: the one the index was built "
            "with (all-MiniLM-L6-v2 or all-mpnet-base-v2). A different one is an error."
        ),
    )
    index_dir: str | None = field(
        default=None,
        metadata=_doc("Index folder; default $CITEGUARD_INDEX or ./.citeguard."),
    )
    top_k: int = field(default=8, metadata=_doc("Candidates retrieved by hybrid search."))
    context_k: int = field(
        default=4, metadata=_doc("Retrieved chunks passed to the generator as sources [1]..[k].")
    )
    opening_source: bool = field(
        default=True,
        metadata=_doc(
            "For questions about the document's date, effective date or parties, pass the "
            "document's opening chunk (where contracts, leases and policies state them) as the "
            "last source when retrieval did not rank it among the first context_k."
        ),
    )
    source_words: int = field(
        default=120,
        metadata=_doc(
            "Free strategy: show the model at most this many words of each source, its "
            "sentences most similar to the question (a prompt under half as long, so a "
            "faster answer on a CPU, at the same accuracy); validation still checks the "
            "whole source. 0 = whole sources."
        ),
    )
    alpha: float = field(
        default=DEFAULT_ALPHA,
        metadata=_doc("Weight of the dense score in alpha*dense + (1-alpha)*lexical fusion."),
    )
    retrieval_mode: RetrievalMode = field(
        default="hybrid", metadata=_doc("hybrid, dense (embeddings only) or lexical (BM25 only).")
    )
    fusion: FusionMethod = field(
        default="minmax",
        metadata=_doc(
            "minmax (the paper's normalized weighted sum) or rrf (reciprocal rank fusion)."
        ),
    )
    rerank: bool = field(
        default=False,
        metadata=_doc(
            "Heuristic reranker (query overlap + legal cue words); off in the paper's final system."
        ),
    )
    scorer_rerank: bool = field(
        default=False,
        metadata=_doc(
            "Retrieve scorer_rerank_pool chunks instead of top_k and, after retrieval's "
            "first, order them by the trained evidence scorer (the best passage's "
            "P(answers the question)) before the sources are chosen; without the scorer, "
            "top_k in retrieval order. The scorer's thresholds are fitted for the setting "
            "it ships with (model.json: question_calibration)."
        ),
    )
    scorer_rerank_pool: int = field(
        default=24,
        metadata=_doc(
            "Chunks retrieved for the evidence scorer to reorder with scorer_rerank: a "
            "larger pool than top_k puts the answering chunk among the sources more often "
            "(docs/results.md, 'Scorer variants not shipped')."
        ),
    )
    scorer_source_rescue: bool = field(
        default=True,
        metadata=_doc(
            "When no source has a passage at the trained evidence scorer's refusal floor (the "
            "question would be refused before any model call) but another retrieved chunk "
            "has one at its answer threshold, that chunk takes the place of the "
            "lowest-scored source after retrieval's first: an answering clause ranked just "
            "below the sources is shown instead of refused."
        ),
    )
    scorer_sufficiency: bool = field(
        default=True,
        metadata=_doc(
            "Refuse before any model call when no source has a passage that the trained "
            "evidence scorer rates at least its refusal threshold (fitted on cuad-train); "
            "a passage at it lets the question through whatever words it shares with the "
            "sources."
        ),
    )
    scorer_answer: bool = field(
        default=True,
        metadata=_doc(
            "When the model refuses, or its answers fail validation, while a source has a "
            "passage that the evidence scorer rates at least its answer threshold: answer with "
            "that passage's own sentences, cited and validated like any answer. With the local "
            "model's relevance check on the quote, from the thresholds calibration fitted with "
            "it (a weaker passage's quote must then satisfy a stricter check)."
        ),
    )
    scorer_passages_overlap: bool = field(
        default=OVERLAPPING_ANSWER_PASSAGES,
        metadata=_doc(
            "Choose the passage a passage answer quotes among passages of whole sentences "
            "that start at every sentence, not only among passages laid side by side, so a "
            "clause that side-by-side passages cut in two is found whole. Thresholds still "
            "read the best side-by-side passage's score, the one calibration fitted them on; "
            "when that passage's quote differs and the first quote fails validation, it is "
            "quoted and validated next."
        ),
    )
    passage_first: bool = field(
        default=False,
        metadata=_doc(
            "With scorer_answer and the local model's relevance check on the quote: when a "
            "source's passage scores at least the evidence scorer's passage-first threshold "
            "(fitted on cuad-train, where 19 in 20 such quotes hold the answer), "
            "answer with that passage's own sentences before asking the model; validated "
            "like any answer, and when it fails the model is asked as usual. Saves the "
            "model's reading of the sources for the questions the scorer is surest of. Off "
            "by default: on leases and terms of service the scorer, trained on contracts, "
            "is sure of sentences beside the answer, which the model's own answer avoids."
        ),
    )
    min_dense_score: float = field(
        default=0.20,
        metadata=_doc(
            "Sufficiency floor: evidence is insufficient when no retrieved chunk has a cosine "
            "similarity to the question of at least this value."
        ),
    )
    min_question_coverage: float = field(
        default=0.25,
        metadata=_doc(
            "Sufficiency floor: share of the question's content words that must occur in the "
            "retrieved evidence."
        ),
    )
    generation_strategy: GenerationStrategy = field(
        default="free",
        metadata=_doc(
            "free (the paper's cite-as-you-write), evidence-first (select source sentences, "
            "then write from them) or extractive (the selected sentences are the answer)."
        ),
    )
    validation_level: RunValidationLevel = field(
        default="judge",
        metadata=_doc(
            "paper (the paper's lexical/semantic thresholds), strict (paper + content-word, "
            "number and best-source checks), judge (strict, then a judge asked whether the "
            "cited source supports each sentence: the local model, which must then be "
            "installed whatever model writes the answers, or the trained verifier, see "
            "support_judge). "
            '"off" delivers the first candidate unchecked and is accepted only by the evaluation '
            "harness."
        ),
    )
    lexical_threshold: float = field(
        default=0.10, metadata=_doc("Minimum |Ts & Te| / |Ts| token overlap with cited evidence.")
    )
    semantic_threshold: float = field(
        default=0.40, metadata=_doc("Minimum embedding cosine between sentence and cited evidence.")
    )
    support_judge: SupportJudge = field(
        default="llm",
        metadata=_doc(
            "Judge level: who judges. llm: the local model, for support and relevance. "
            "verifier: the trained support verifier for support and the trained evidence "
            "scorer for relevance, each at its own fitted threshold; no local model is "
            "needed, whatever model writes the answers."
        ),
    )
    judge_threshold: float = field(
        default=0.5,
        metadata=_doc(
            "Minimum entailment-judge P(supported) at the judge level; also the minimum "
            "P(answers the question) of the relevance check."
        ),
    )
    judge_evidence_words: int = field(
        default=0,
        metadata=_doc(
            "Judge level: 0 = the judge reads each cited source whole; N = only the source's "
            "sentences sharing most of the claim's words, at most N words (faster, about a "
            "second per 100 words on a CPU, but more lenient: short evidence lets through "
            "answers the whole-source judge rejects)."
        ),
    )
    relevance_check: bool = field(
        default=True,
        metadata=_doc(
            "Judge level: also ask the local model whether a cited source answers the "
            "question, and regenerate or refuse when none does. Catches a supported answer "
            "to something else (a late fee given for an early-termination fee); about half "
            "a second per answer, since the judge has just read the same sources."
        ),
    )
    passage_relevance_reads_quote: bool = field(
        default=True,
        metadata=_doc(
            "Relevance check of the passage answer (scorer_answer): ask whether the quoted "
            "sentences answer the question, rather than the whole cited source they come "
            "from, whose other clauses dilute the judge's reading."
        ),
    )
    passage_relevance_with_scorer: bool = field(
        default=True,
        metadata=_doc(
            "Relevance check of the passage answer (scorer_answer): the mean of the local "
            "model's and the evidence scorer's P(the quote answers the question), not the "
            "local model's alone. The two err apart: the 1.5B model doubts right quotes "
            "asked in everyday words, the scorer knows contracts. The shipped scorer's "
            "thresholds are fitted with this check (model.json: question_calibration); "
            "with it off, calibrate a copy with --no-passage-relevance-with-scorer."
        ),
    )
    challenge_refusals: bool = field(
        default=False,
        metadata=_doc(
            "Regenerate once when the model refuses although one source holds most of the "
            "question's key terms. Off by default: with the bundled 1.5B model such "
            "regenerations refuse again, at about a second each; a stronger model may make "
            "use of it."
        ),
    )
    max_regenerations: int = field(
        default=1, metadata=_doc("Validation-guided regenerations before refusing (paper: 1).")
    )

    def __post_init__(self) -> None:
        """Reject bad settings when the run starts, not deep inside the graph."""
        for name, kind in _field_types().items():
            if get_origin(kind) is Literal and getattr(self, name) not in get_args(kind):
                raise InvalidSettingError(
                    f"{name}={getattr(self, name)!r}: choose one of {', '.join(get_args(kind))}"
                )
        if not isinstance(self.model, str) or not self.model:
            raise InvalidSettingError(f"model={self.model!r}: must be a non-empty string")
        counts = {
            "top_k": 1,
            "context_k": 1,
            "scorer_rerank_pool": 1,
            "max_regenerations": 0,
            "source_words": 0,
            "judge_evidence_words": 0,
        }
        for name, least in counts.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InvalidSettingError(f"{name}={value!r}: must be an integer >= {least}")
        for name in (
            "alpha",
            "min_dense_score",
            "min_question_coverage",
            "lexical_threshold",
            "semantic_threshold",
            "judge_threshold",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidSettingError(f"{name}={value!r}: must be a number")
            if not 0.0 <= value <= 1.0 and name != "min_dense_score":
                raise InvalidSettingError(f"{name}={value!r}: must be between 0 and 1")
        for name in (
            "rerank",
            "opening_source",
            "scorer_rerank",
            "scorer_source_rescue",
            "scorer_sufficiency",
            "scorer_answer",
            "scorer_passages_overlap",
            "passage_first",
            "passage_relevance_reads_quote",
            "passage_relevance_with_scorer",
        ):
            if not isinstance(getattr(self, name), bool):
                raise InvalidSettingError(f"{name}={getattr(self, name)!r}: must be true or false")

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None) -> Context:
        """Build from a dict, ignoring unknown keys' absence and rejecting unknown names."""
        if not values:
            return cls()
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InvalidSettingError(
                f"unknown setting(s): {', '.join(unknown)}; known: {sorted(known)}"
            )
        return cls(**{k: v for k, v in values.items() if v is not None})

    def uses_evidence_scorer(self) -> bool:
        """Whether retrieval scores the sources' passages with the trained evidence scorer."""
        return (
            self.scorer_rerank
            or self.scorer_source_rescue
            or self.scorer_sufficiency
            or self.scorer_answer
        )

    def judges_passage_quote(self) -> bool:
        """Whether a passage answer's quote meets the local model's relevance check, the
        check the scorer's passage answer threshold is fitted with (``citeguard
        calibrate``); without it the passage answer waits for the answer threshold."""
        return (
            self.validation_level == "judge"
            and self.relevance_check
            and self.passage_relevance_reads_quote
            and self.support_judge == "llm"
        )

    def with_overrides(self, **values: Any) -> Context:
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    def validation_settings(self, level: ValidationLevel | None = None) -> ValidationSettings:
        """The validator's settings for this run: its thresholds, at ``level``.

        Args:
            level: the validator's level; default the run's ``validation_level``.

        Raises:
            InvalidSettingError: the level is not one the validator has ("off": what to do
                then is for the caller, such as the evaluation harness, to decide).
        """
        chosen = level or self.validation_level
        if chosen not in get_args(ValidationLevel):
            raise InvalidSettingError(
                f"validation_level={chosen!r}: the validator's levels are "
                f"{', '.join(get_args(ValidationLevel))}"
            )
        return ValidationSettings(
            level=cast(ValidationLevel, chosen),
            lexical_threshold=self.lexical_threshold,
            semantic_threshold=self.semantic_threshold,
            judge_threshold=self.judge_threshold,
            relevance_threshold=self.judge_threshold,
            judge_evidence_words=self.judge_evidence_words,
            relevance_check=self.relevance_check,
            challenge_refusals=self.challenge_refusals,
        )


@functools.cache
def _field_types() -> dict[str, Any]:
    """Context's fields and their types (resolved once: the annotations are strings)."""
    return get_type_hints(Context)


def context_of(runtime: Any) -> Context:
    """The run's Context, or the defaults when the run was given none."""
    ctx = getattr(runtime, "context", None)
    if ctx is None:
        return Context()
    if isinstance(ctx, Context):
        return ctx
    if isinstance(ctx, dict):
        return Context.from_mapping(ctx)
    return ctx


# ------------------------------------------------------------------ command-line options


@dataclass(frozen=True)
class ContextOption:
    """How a command shows one Context field; the help is the field's description."""

    name: str
    """The Context field."""
    flag: str | None = None
    """Default: ``--`` and the field's name with dashes. A boolean field named by a
    ``--no-...`` flag gets only that flag, which turns it off; any other boolean gets
    ``--flag/--no-flag``."""
    choices: tuple[str, ...] | None = None
    """Default: every value of the field's ``Literal`` type."""
    metavar: str | None = None


def add_context_options(
    parser: argparse._ActionsContainer, options: Sequence[ContextOption]
) -> None:
    """Add one option per Context field in ``options``, in that order.

    An option left out of the command line is None in the parsed arguments, so that
    :func:`context_overrides` passes only what the user set and every default stays the
    Context's.
    """
    defaults = Context()
    types = _field_types()
    for option in options:
        name = option.name
        kind = types[name]
        value = getattr(defaults, name)
        description = next(f for f in fields(Context) if f.name == name).metadata["description"]
        flag = option.flag or "--" + name.replace("_", "-")
        kwargs: dict[str, Any] = {"dest": name, "default": None}
        if kind is bool:
            shown = "on" if value else "off"
            if flag.startswith("--no-"):
                kwargs.update(action="store_const", const=False)
                shown += "; this flag turns it off"
            else:
                kwargs.update(action=argparse.BooleanOptionalAction)
        else:
            if get_origin(kind) is Literal:
                kwargs["choices"] = list(option.choices or get_args(kind))
            elif kind in (int, float):
                kwargs["type"] = kind
            shown = value
        if option.metavar:
            kwargs["metavar"] = option.metavar
        text = description if value is None else f"{description} (default: {shown})"
        parser.add_argument(flag, help=text.replace("%", "%%"), **kwargs)


def context_overrides(args: argparse.Namespace, options: Sequence[ContextOption]) -> dict[str, Any]:
    """The Context fields of ``options`` that the command line set."""
    values = {option.name: getattr(args, option.name) for option in options}
    return {name: value for name, value in values.items() if value is not None}
