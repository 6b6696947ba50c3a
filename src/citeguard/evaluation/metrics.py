"""The paper's evaluation metrics, as pure functions (definitions in docs/metrics.md).

Two layers:

* per question, :func:`score_result` turns a question and the graph's final state into
  plain scores (booleans, fractions or None where the metric does not apply); the
  independent entailment judge runs in :func:`~citeguard.evaluation.citation_judge.judge_citations`;
* per run, :func:`summarize` aggregates those scores into the summary.json metrics.

Nothing here calls a model except through the ``judge`` and ``embed`` functions it is
given, so every metric can be tested on hand-built cases.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from citeguard.evaluation.citation_judge import (
    CitationJudgement,
    cited_sources,
    unsupported_only_quotes,
)
from citeguard.evaluation.dataset import GoldSpan, Question
from citeguard.evaluation.matching import covered_fraction, covered_share, span_overlaps
from citeguard.graph.context import Context
from citeguard.text.citations import parse_citations, strip_citations
from citeguard.validate.validator import validate_answer

EmbedFn = Callable[[Sequence[str]], np.ndarray]

SPAN_MIN_SHARE = 0.5
"""A gold span "overlaps" a chunk when at least half of its normalized characters form one
common run with the chunk (see citeguard.evaluation.matching)."""

STAGES = ("retrieval", "generation", "validation")

PAPER_LEVEL = Context().validation_settings(level="paper")
"""The paper-level validator with the default thresholds, whatever a run used: the
evidence-support metric is measured the same way for every run."""

# --------------------------------------------------------------------------- retrieval


def span_hit(gold_spans: Sequence[str], chunk_texts: Sequence[str]) -> bool:
    """Whether some gold span overlaps some chunk (hit@k over the retrieved chunks)."""
    return any(
        span_overlaps(span, text, SPAN_MIN_SHARE) for span in gold_spans for text in chunk_texts
    )


def page_hit(gold_pages: Iterable[int], chunk_pages: Iterable[tuple[int, int]]) -> bool:
    """Whether a gold page lies in some chunk's (first, last) PDF page range."""
    gold = set(gold_pages)
    return any(page in gold for first, last in chunk_pages for page in range(first, last + 1))


def context_recall(gold_spans: Sequence[str], chunk_texts: Sequence[str]) -> float:
    """Share of all gold span characters (normalized) found in the given chunks."""
    from citeguard.evaluation.matching import normalize_for_matching

    lengths = [len(normalize_for_matching(span)) for span in gold_spans]
    total = sum(lengths)
    if total == 0:
        return 0.0
    found = sum(
        length * covered_fraction(span, chunk_texts)
        for span, length in zip(gold_spans, lengths, strict=True)
    )
    return found / total


# --------------------------------------------------------------------------- answers

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def answer_tokens(text: str) -> list[str]:
    """SQuAD-style tokens: citations removed, lower case, no punctuation or articles."""
    text = strip_citations(text).lower().translate(_PUNCTUATION)
    return _ARTICLES.sub(" ", text).split()


def token_f1(prediction: str, reference: str) -> float:
    """Harmonic mean of token precision and recall (bag of tokens, as in SQuAD)."""
    predicted, gold = answer_tokens(prediction), answer_tokens(reference)
    if not predicted or not gold:
        return float(predicted == gold)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def best_token_f1(prediction: str, references: Sequence[str]) -> float:
    """The best F1 over several references (0.0 for none)."""
    return max((token_f1(prediction, r) for r in references), default=0.0)


# --------------------------------------------------------------------------- citations


def citation_valid(answer: str, n_sources: int) -> bool:
    """At least one citation marker, and every marker is a single [n] with 1 <= n <= k.

    Placeholders ("[date]") are not citation markers and are ignored here.
    """
    markers = [m for m in parse_citations(answer, n_sources) if m.kind != "placeholder"]
    return bool(markers) and all(m.valid for m in markers)


def cites_gold(
    answer: str,
    evidence: Sequence[Mapping[str, Any]],
    gold_spans: Sequence[str],
    gold_pages: Sequence[int] = (),
) -> bool | None:
    """Whether a chunk the answer cites holds gold evidence.

    With gold spans: a cited chunk overlaps a span. Without spans but with gold pages: a
    cited chunk lies on a gold page. Without either: None (cannot tell).
    """
    chunks = [evidence[n - 1] for n in cited_sources(answer, len(evidence))]
    if gold_spans:
        return span_hit(gold_spans, [str(c["text"]) for c in chunks])
    if gold_pages:
        return page_hit(gold_pages, [_page_range(c) for c in chunks])
    return None


def quotes_gold(
    citations: Sequence[Mapping[str, Any]],
    gold_spans: Sequence[str],
    gold_pages: Sequence[int] = (),
    min_share: float = 0.5,
) -> bool | None:
    """Whether a quote the answer shows with its citations holds gold evidence: stricter
    than :func:`cites_gold`, which accepts any cited chunk holding a gold span, however much
    else the chunk holds (a true sentence about damage the warranty excludes, quoted from the
    chunk that also states what to do about damage on delivery).

    With gold spans: a quote holds at least ``min_share`` of a span (a date or a name found
    whole), or at least ``min_share`` of the quote lies in a span (a sentence of a longer
    clause). Without spans but with gold pages: a quote is on a gold page. Without either,
    or without quotes (a record from before citations were kept): None (cannot tell).
    """
    quotes = [c for c in citations if str(c.get("quote", "")).strip()]
    if not quotes:
        return None
    if gold_spans:
        return any(
            covered_share(span, str(c["quote"])) >= min_share
            or covered_share(str(c["quote"]), span) >= min_share
            for span in gold_spans
            for c in quotes
        )
    if gold_pages:
        return any(c.get("pdf_page") in gold_pages for c in quotes)
    return None


def evidence_supported(
    answer: str, source_texts: Sequence[str], question: str, embed: EmbedFn | None
) -> bool:
    """Every sentence passes the paper-level validator (valid citation and lexical overlap
    >= 0.10 or cosine >= 0.40), re-run on the delivered answer whatever level the run used."""
    result = validate_answer(answer, source_texts, question, PAPER_LEVEL, embed=embed)
    return bool(result.sentences) and all(s.supported for s in result.sentences)


# --------------------------------------------------------------------------- one question


def _page_range(chunk: Mapping[str, Any]) -> tuple[int, int]:
    pages = chunk.get("pdf_pages") or (0, 0)
    return int(pages[0]), int(pages[-1])


def _texts(chunks: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(c.get("text", "")) for c in chunks]


def _same_document(chunk: Mapping[str, Any], question: Question) -> bool:
    """Gold pages belong to the question's document (matched by stem: .txt vs .pdf)."""
    if not question.doc:
        return True
    return Path(str(chunk.get("doc", ""))).stem == Path(question.doc).stem


def span_texts(spans: Sequence[GoldSpan]) -> list[str]:
    return [s.text for s in spans if s.text.strip()]


def score_result(
    question: Question,
    state: Mapping[str, Any],
    *,
    embed: EmbedFn | None = None,
    judgement: CitationJudgement | None = None,
) -> dict[str, Any]:
    """Per-question scores from the graph's final state (None: the metric does not apply).

    Args:
        question: the labelled question.
        state: the graph's full final state (answer, status, retrieved, evidence, ...).
        embed: embedding function for the paper-level re-validation (evidence support).
        judgement: the independent judge's verdict on the delivered answer (None when the
            question was refused or the run has no judge).
    """
    evidence = list(state.get("evidence") or [])
    answer = str(state.get("answer") or "")
    answered = state.get("status") == "answered"
    scores = gold_scores(question, state)
    if answered:
        scores["citation_valid"] = citation_valid(answer, len(evidence))
        scores["evidence_supported"] = evidence_supported(
            answer, _texts(evidence), question.question, embed
        )
    else:
        scores["citation_valid"] = scores["evidence_supported"] = None
    if answered and judgement is not None:
        scores["citation_recall"] = judgement.recall
        scores["citation_precision"] = judgement.precision
        scores["judge_unsupported"] = judgement.unsupported
        scores["judge_unsupported_quotes_only"] = unsupported_only_quotes(
            judgement, _texts(evidence)
        )
    else:
        scores["citation_recall"] = scores["citation_precision"] = None
        scores["judge_unsupported"] = scores["judge_unsupported_quotes_only"] = None

    regenerated = int(state.get("regenerations") or 0) > 0
    scores["regenerated"] = regenerated
    scores["regeneration_accepted"] = regenerated and bool(
        (state.get("last_validation") or {}).get("passed")
    )
    return scores


def gold_scores(question: Question, state: Mapping[str, Any]) -> dict[str, Any]:
    """The scores that compare the final state with the labels (retrieval, correctness,
    hallucination, token F1): no model needed, so finished runs can be re-scored."""
    retrieved = list(state.get("retrieved") or [])
    evidence = list(state.get("evidence") or [])
    answer = str(state.get("answer") or "")
    answered = state.get("status") == "answered"
    gold = span_texts(question.gold_spans)
    has_gold = question.answerable and bool(gold)
    has_pages = question.answerable and bool(question.gold_pages)

    scores: dict[str, Any] = {
        "answerable": question.answerable,
        "answered": answered,
        "hit": span_hit(gold, _texts(retrieved)) if has_gold else None,
        "page_hit": (
            page_hit(
                question.gold_pages,
                [_page_range(c) for c in retrieved if _same_document(c, question)],
            )
            if has_pages
            else None
        ),
        "context_recall": context_recall(gold, _texts(evidence)) if has_gold else None,
    }

    grounded: bool | None = None
    quoted: bool | None = None
    if question.answerable and answered:
        grounded = cites_gold(answer, evidence, gold, question.gold_pages)
        quoted = quotes_gold(state.get("citations") or [], gold, question.gold_pages)
    if question.answerable:
        correct = answered and grounded is not False
        correct_quoted = answered and grounded is not False and quoted is not False
    else:
        correct = correct_quoted = not answered
    scores["grounded"] = grounded
    scores["correct"] = correct
    scores["quoted_gold"] = quoted
    scores["correct_quoted"] = correct_quoted
    scores["token_f1"] = (
        token_f1(answer if answered else "", question.reference_answer)
        if question.answerable and question.reference_answer.strip()
        else None
    )
    scores["token_f1_gold_spans"] = (
        best_token_f1(answer if answered else "", gold) if has_gold else None
    )
    # Wrong: an answer to an unanswerable question, or one citing no gold evidence.
    scores["hallucination"] = ((not question.answerable) or grounded is False) if answered else None
    return scores


def rescore(record: Mapping[str, Any], question: Question) -> dict[str, Any]:
    """A results line with its label-dependent scores recomputed by today's metric code.

    The model-dependent scores (evidence support, judge verdicts, regeneration) are kept
    as recorded. Error lines are returned unchanged.
    """
    if record.get("error") or "scores" not in record:
        return dict(record)
    return {**record, "scores": {**record["scores"], **gold_scores(question, record)}}


# --------------------------------------------------------------------------- a run


def rate(values: Iterable[bool | float | None]) -> float | None:
    """Mean of the values that apply (None entries are skipped); None when none apply."""
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (linear interpolation, as numpy's default); None for no values."""
    if not values:
        return None
    return float(np.percentile(np.asarray(values, dtype=float), q))


def _distribution(values: Sequence[float]) -> dict[str, float | None]:
    return {
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "mean": sum(values) / len(values) if values else None,
    }


SUMMARY_METRICS = (
    "hit@k",
    "page_hit@k",
    "context_recall",
    "answer_accuracy",
    "answer_accuracy_quoted",
    "token_f1",
    "token_f1_gold_spans",
    "citation_validity",
    "evidence_support_rate",
    "citation_recall",
    "citation_precision",
    "hallucination_rate",
    "unsupported_hallucination_rate",
    "unsupported_quotes_only_rate",
    "true_refusal_rate",
    "false_refusal_rate",
    "false_answer_rate",
    "regeneration_attempt_rate",
    "regeneration_accepted_rate",
)
"""The rate metrics of summary.json, in report order (each a fraction in [0, 1] or null)."""


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregate per-question records (each with "scores", "timings" and "seconds").

    Records with an "error" are counted but left out of every metric.
    """
    ok = [r for r in records if not r.get("error")]
    scores = [r["scores"] for r in ok]
    answerable = [s for s in scores if s["answerable"]]
    unanswerable = [s for s in scores if not s["answerable"]]
    answered = [s for s in scores if s["answered"]]

    def col(rows: Sequence[Mapping[str, Any]], key: str) -> list[Any]:
        return [row.get(key) for row in rows]

    summary: dict[str, Any] = {
        "n_questions": len(records),
        "n_scored": len(scores),
        "n_errors": len(records) - len(ok),
        "n_answerable": len(answerable),
        "n_unanswerable": len(unanswerable),
        "n_answered": len(answered),
        "hit@k": rate(col(answerable, "hit")),
        "page_hit@k": rate(col(answerable, "page_hit")),
        "context_recall": rate(col(answerable, "context_recall")),
        "answer_accuracy": rate(col(scores, "correct")),
        "answer_accuracy_quoted": rate(col(scores, "correct_quoted")),
        "token_f1": rate(col(answerable, "token_f1")),
        "token_f1_gold_spans": rate(col(answerable, "token_f1_gold_spans")),
        "citation_validity": rate(col(answered, "citation_valid")),
        "evidence_support_rate": rate(col(answered, "evidence_supported")),
        "citation_recall": rate(col(answered, "citation_recall")),
        "citation_precision": rate(col(answered, "citation_precision")),
        "hallucination_rate": rate(col(answered, "hallucination")),
        "unsupported_hallucination_rate": rate(col(answered, "judge_unsupported")),
        "unsupported_quotes_only_rate": rate(col(answered, "judge_unsupported_quotes_only")),
        "true_refusal_rate": rate(not s["answered"] for s in unanswerable),
        "false_refusal_rate": rate(not s["answered"] for s in answerable),
        "false_answer_rate": rate(s["answered"] for s in unanswerable),
        "regeneration_attempt_rate": rate(col(scores, "regenerated")),
        "regeneration_accepted_rate": rate(col(scores, "regeneration_accepted")),
        "seconds_per_question": _distribution([float(r["seconds"]) for r in ok]),
        "seconds_per_stage": {
            stage: _distribution([float((r.get("timings") or {}).get(stage, 0.0)) for r in ok])
            for stage in STAGES
        },
        "model_work": summarize_model_work(ok),
    }
    return summary


def summarize_model_work(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Tokens the local model read and wrote per question, and its speed over the run.

    Tokens do not depend on the machine, so they compare two runs' cost where seconds mix
    in the machine's drift; seconds per question are roughly prompt tokens / prompt speed
    plus decoded tokens / decode speed. Only questions with recorded model work count
    (None when there are none: another chat model, or answers reused from the cache).
    """
    works = [r["model_work"] for r in records if r.get("model_work")]
    if not works:
        return None

    def total(key: str) -> float:
        return float(sum(w[key] for w in works))

    def speed(tokens: str, seconds: str) -> float | None:
        return total(tokens) / total(seconds) if total(seconds) > 0 else None

    def stats(key: str) -> dict[str, float | None]:
        return _distribution([float(w[key]) for w in works])

    return {
        "n_questions": len(works),
        "prompt_tokens_per_question": stats("prompt_tokens"),
        "reused_tokens_per_question": stats("reused_tokens"),
        "decoded_tokens_per_question": stats("decoded_tokens"),
        "prompt_tokens_per_s": speed("prompt_tokens", "prompt_seconds"),
        "decode_tokens_per_s": speed("decoded_tokens", "decode_seconds"),
    }
