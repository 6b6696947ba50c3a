"""The independent judge of a delivered answer: ALCE-style citation recall and precision.

An entailment judge (a function P(supported | claim, evidence), the local model in runs)
reads each sentence of the answer against the sources it cites. Kept apart from the
other metrics because it is the one that reads the answer with a model, however the
graph validated it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from citeguard.text.citations import parse_citations, strip_citations
from citeguard.text.sentences import split_sentences
from citeguard.validate.checks import is_verbatim

JudgeFn = Callable[[str, str], float]

JUDGE_THRESHOLD = 0.5
"""The independent judge returns P(supported); a claim counts as supported at >= 0.5, the
decision boundary of a probability. It is deliberately not tied to the validator's
thresholds (the judge validation level has its own ``judge_threshold``)."""


def cited_sources(answer: str, n_sources: int) -> list[int]:
    """Valid source numbers ([1]..[n_sources]) the answer cites, in order, without repeats."""
    seen: list[int] = []
    for marker in parse_citations(answer, n_sources):
        if marker.valid and marker.sources[0] not in seen:
            seen.append(marker.sources[0])
    return seen


@dataclass
class SentenceJudgement:
    claim: str
    cited: list[int]
    supported: bool
    """The judge finds the claim supported by all its cited sources together (ALCE
    citation recall of the sentence; False when nothing is cited)."""
    precise: list[bool]
    """Per cited source: False when it is irrelevant (ALCE: alone it does not support the
    claim, and the other cited sources support it without it)."""


@dataclass
class CitationJudgement:
    sentences: list[SentenceJudgement]
    recall: float
    """Share of sentences supported by their citations."""
    precision: float
    """Share of citations that are relevant (0 for citations of unsupported sentences)."""
    unsupported: bool
    """Some sentence is not supported by its cited evidence."""
    judge_calls: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def judge_citations(
    answer: str,
    source_texts: Sequence[str],
    judge: JudgeFn,
    threshold: float = JUDGE_THRESHOLD,
) -> CitationJudgement:
    """ALCE-style citation recall and precision of one answer with an entailment judge.

    Recall: a sentence is supported when the judge says its cited sources, joined, support
    it. Precision: a citation of a supported sentence is relevant unless (ALCE's rule) it
    alone does not support the sentence while the remaining citations still do; citations
    of unsupported sentences are not relevant. A response with no judgeable sentence
    (no words) scores recall 0 and precision 0.
    """
    cache: dict[tuple[str, tuple[int, ...]], bool] = {}

    def entails(claim: str, sources: Sequence[int]) -> bool:
        key = (claim, tuple(sources))
        if key not in cache:
            evidence = "\n\n".join(source_texts[n - 1] for n in sources)
            cache[key] = judge(claim, evidence) >= threshold
        return cache[key]

    judgements: list[SentenceJudgement] = []
    for sentence in split_sentences(answer):
        claim = strip_citations(sentence.text)
        if not re.search(r"\w", claim):
            continue
        cited = cited_sources(sentence.text, len(source_texts))
        supported = bool(cited) and entails(claim, cited)
        precise: list[bool] = []
        for n in cited:
            if not supported:
                precise.append(False)
            elif len(cited) == 1 or entails(claim, [n]):
                precise.append(True)
            else:
                rest = [m for m in cited if m != n]
                precise.append(not entails(claim, rest))
        judgements.append(SentenceJudgement(claim, cited, supported, precise))
    n_citations = sum(len(j.precise) for j in judgements)
    return CitationJudgement(
        sentences=judgements,
        recall=sum(j.supported for j in judgements) / len(judgements) if judgements else 0.0,
        precision=sum(sum(j.precise) for j in judgements) / n_citations if n_citations else 0.0,
        unsupported=not judgements or any(not j.supported for j in judgements),
        judge_calls=len(cache),
    )


def unsupported_only_quotes(judgement: CitationJudgement, source_texts: Sequence[str]) -> bool:
    """The judge rejected some sentence, and every sentence it rejected stands word for word
    in its cited sources (``validate.checks.is_verbatim``).

    A diagnostic beside ``judge_unsupported``, which it does not change: the local 1.5B
    judge rejects some exact quotes of the very source it is shown, and a reader of the
    unsupported rate should be able to tell those from claims the source does not make.
    """
    rejected = [j for j in judgement.sentences if not j.supported]
    return bool(rejected) and all(
        j.cited
        and all(0 < n <= len(source_texts) for n in j.cited)
        and is_verbatim(j.claim, "\n\n".join(source_texts[n - 1] for n in j.cited))
        for j in rejected
    )
