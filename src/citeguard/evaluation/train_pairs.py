"""Training pairs for the evidence scorer: (question, passage) -> does this passage answer it?

Built from any dataset in the project's format (``docs/`` + ``questions.jsonl`` with gold
character spans), reproducibly from a seed:

- **passages**: each document cut into runs of whole sentences of at most ``passage_words``
  words (about what the generator is shown of a source);
- **positives**: passages that hold most of a gold span (or most of the passage is gold);
- **hard negatives**: the passages of the same document that share the most words with the
  question but hold no gold text, and for an unanswerable question (the category is absent
  from this document) its most similar passages: same-topic text that does not answer,
  which is exactly what makes refusal hard; plus a few random passages of the document;
- **mined negatives** (optional, ``mined_negatives`` with ``mine_with``): the passages a
  trained scorer rates highest for the question that hold no gold text, the scorer's own
  mistakes, so a continued step learns what the last one confused with an answer;
- **phrasings**: every question is asked in several wordings (the dataset's own, a
  description of its category when ``categories.json`` gives one, and generic templates),
  so nothing learned depends on one wording; one wording (the category description) is held
  out of training and used only to measure how the scorer does on wording it never saw;
- **named questions** (optional, ``named_questions``): a share of the training pairs ask
  their question naming the document ("As for Vertex: ..."), with one of the names the
  document uses often and the dataset's other documents rarely. Users name the party or
  the service they ask about; passages of that document that only share the name are
  still negatives, so the scorer learns that a shared name is not evidence;
- **split by document**: a document's pairs are all in training or all in validation.
"""

from __future__ import annotations

import functools
import json
import logging
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from citeguard.evaluation.dataset import (
    QUESTIONS_FILE,
    Question,
    dataset_docs_dir,
    load_questions,
)
from citeguard.learned.evidence import PairScorer
from citeguard.text.passages import Passage, passages
from citeguard.text.tokens import STOPWORDS, token_set

logger = logging.getLogger(__name__)

GENERIC_TEMPLATES = (
    "What does the contract say about {topic}?",
    "Is there anything in this document on {topic}?",
)
"""Wordings of our own, filled with a category's name in lower case."""

NAMED_TEMPLATES = (
    "As for {name}: {question}",
    "{question} I am asking about {name}.",
    "In the case of {name}, {question_lower}",
)
"""How a training question is asked naming its document (``named_questions``). The
question benches' own naming ("For NAME, ...", ``bench/bench_questions.py``) is not among
them, so what they measure is a wording training never saw."""

WORD_PATTERN = re.compile(r"[A-Za-z0-9&]+")
"""A word, as :func:`document_names` counts them."""

NAME_PATTERN = re.compile(r"\b[A-Z][A-Za-z0-9&]*[a-z][A-Za-z0-9&]*\b")
"""A capitalized word with a lower-case letter: "Vertex", "GitHub", not "LLC" or "A"."""

OPENING_CHARACTERS = 2000
"""How much of a document is its opening, where its title and a contract's parties stand."""


@dataclass(frozen=True)
class Pair:
    """One training example."""

    question: str
    passage: str
    label: int
    """1: the passage answers the question; 0: it does not."""
    doc: str
    question_id: str
    wording: str
    """Which wording of the question: "dataset", "description" or "template-N"."""


@dataclass(frozen=True)
class PairSettings:
    """How pairs are drawn; stored with the trained weights."""

    passage_words: int = 80
    hard_negatives: int = 3
    random_negatives: int = 2
    validation_share: float = 0.1
    seed: int = 13
    claim_edits: tuple[str, ...] = ("number", "roles", "negation", "relabel", "other-clause")
    """The verifier's variants made of each supported claim, by name
    (``citeguard.evaluation.verifier_pairs.CLAIM_EDITS``); the default is the set the
    shipped verifier's first two steps were trained on, so their pairs stay reproducible."""
    mined_negatives: int = 0
    """Scorer pairs: this many more negatives per question, the non-answering passages
    that the ``mine_with`` scorer rates highest for it (0: none, the pairs as before)."""
    mine_with: str | None = None
    """The trained model folder that mines (usually the one a continued step starts
    from): a scorer's, for ``mined_negatives``; a verifier's, whose misjudged training
    pairs a verifier step trains on before its seeded draw of the rest."""
    named_questions: float = 0.0
    """Scorer pairs: the share of training pairs whose question names its document (one
    of :func:`document_names`, in a :data:`NAMED_TEMPLATES` wording); 0: none, the pairs
    as before. Validation pairs are never named, so their metrics stay comparable."""


def holds_gold(passage: Passage, spans: Sequence[tuple[int, int]]) -> bool:
    """Most of a gold span lies in the passage, or most of the passage is gold."""
    for start, end in spans:
        overlap = min(end, passage.end) - max(start, passage.start)
        if overlap > 0 and overlap >= 0.5 * min(end - start, passage.end - passage.start):
            return True
    return False


def wordings(question: Question, categories: dict[str, dict[str, str]]) -> dict[str, str]:
    """The question's wordings by name: the dataset's, the category description, templates."""
    out = {"dataset": question.question}
    category = str(question.extra.get("category") or "")
    described = categories.get(category, {})
    if described.get("cuad_description"):
        out["description"] = described["cuad_description"]
    if category:
        topic = category.lower()
        for number, template in enumerate(GENERIC_TEMPLATES):
            out[f"template-{number}"] = template.format(topic=topic)
    return out


def load_categories(dataset: Path) -> dict[str, dict[str, str]]:
    """The dataset's ``categories.json`` (its categories' descriptions), or none."""
    path = dataset / "categories.json"
    loaded: dict[str, dict[str, str]] = json.loads(path.read_text()) if path.exists() else {}
    return loaded


HELD_OUT_WORDING = "description"
"""Never used for training: validation pairs in this wording measure unseen phrasing."""


@functools.lru_cache(maxsize=200_000)
def _tokens(text: str) -> frozenset[str]:
    """Token sets of passages and questions, computed once: every question of a document
    is compared with each of its passages."""
    return frozenset(token_set(text))


def _overlap(question: str, passage: Passage) -> int:
    return len(_tokens(question) & _tokens(passage.text))


def question_pairs(
    question: Question,
    document: list[Passage],
    asked: dict[str, str],
    settings: PairSettings,
    rng: random.Random,
    training: bool,
    mined: Sequence[float] | None = None,
) -> list[Pair]:
    """The pairs one question makes with its document's passages.

    ``mined``: a trained scorer's score of each of ``document``'s passages for the
    question; its best-scored non-answering passages are added as negatives.
    """
    spans = [(s.start, s.end) for s in question.gold_spans if s.start is not None and s.end]
    spans = [(start, end) for start, end in spans if end is not None]
    gold = [p for p in document if question.answerable and holds_gold(p, spans)]
    others = [p for p in document if p not in gold]
    ranked = sorted(others, key=lambda p: -_overlap(question.question, p))
    hard = ranked[: settings.hard_negatives]
    rest = ranked[settings.hard_negatives :]
    chosen = hard + rng.sample(rest, min(settings.random_negatives, len(rest)))
    if mined is not None and settings.mined_negatives > 0:
        by_score = sorted(range(len(document)), key=lambda i: -mined[i])
        mistakes = [document[i] for i in by_score if document[i] not in gold]
        chosen += [p for p in mistakes if p not in chosen][: settings.mined_negatives]
    names = [name for name in asked if not (training and name == HELD_OUT_WORDING)]
    doc = question.doc or ""

    def pair(passage: Passage, label: int) -> Pair:
        name = rng.choice(names)
        return Pair(asked[name], passage.text, label, doc, question.id, name)

    return [pair(p, 1) for p in gold] + [pair(p, 0) for p in chosen]


def document_names(
    texts: Mapping[str, str], per_document: int = 3, max_share: float = 0.05
) -> dict[str, list[str]]:
    """Each document's own names: capitalized words used at least 3 times that it hardly
    ever writes in lower case and that at most ``max_share`` of the documents use so (none
    other when there are fewer than 20): "Vertex", "GitHub", and not "Agreement" (in most
    contracts), "Section" or "Error" (also written "error"). Those in the document's
    opening (its title, a contract's parties) come first, then the most used.
    """
    counts: dict[str, Counter[str]] = {}
    for doc, text in texts.items():
        words = Counter(WORD_PATTERN.findall(text))
        counts[doc] = Counter(
            {
                word: n
                for word, n in words.items()
                if NAME_PATTERN.fullmatch(word) and words[word.lower()] * 10 <= n
            }
        )
    spread: Counter[str] = Counter()
    for counted in counts.values():
        spread.update(counted.keys())
    allowed = max(1, int(max_share * len(texts)))
    out: dict[str, list[str]] = {}
    for doc, counted in counts.items():
        opening = set(WORD_PATTERN.findall(texts[doc][:OPENING_CHARACTERS]))
        own = [
            (word not in opening, -n, word)
            for word, n in counted.items()
            if n >= 3 and spread[word] <= allowed and word.lower() not in STOPWORDS
        ]
        out[doc] = [word for _, _, word in sorted(own)[:per_document]]
    return out


def named_question(question: str, name: str, template: str) -> str:
    """``question`` asked naming ``name`` in ``template`` (one of :data:`NAMED_TEMPLATES`)."""
    question_lower = question[:1].lower() + question[1:] if question[1:2].islower() else question
    return template.format(name=name, question=question, question_lower=question_lower)


def name_training_pairs(
    pairs: Sequence[Pair], names: Mapping[str, Sequence[str]], share: float, seed: int
) -> list[Pair]:
    """``pairs`` with about ``share`` of them asking their question naming their document.

    A seeded generator of its own, so the pairs' other draws are those of unnamed training.
    A pair whose document has no name of its own stays as it is.
    """
    rng = random.Random(seed + 1)
    out: list[Pair] = []
    for pair in pairs:
        own = names.get(pair.doc) or []
        if own and rng.random() < share:
            template = rng.choice(NAMED_TEMPLATES)
            asked = named_question(pair.question, rng.choice(own), template)
            pair = replace(pair, question=asked, wording=pair.wording + "+named")
        out.append(pair)
    return out


def validation_documents(questions: Sequence[Question], settings: PairSettings) -> set[str]:
    """The documents held out for validation: a seeded share of them, at least one."""
    docs = sorted({q.doc for q in questions if q.doc})
    shuffled = docs[:]
    random.Random(settings.seed).shuffle(shuffled)
    n_validation = max(1, round(len(docs) * settings.validation_share)) if len(docs) > 1 else 0
    return set(shuffled[:n_validation])


def build_pairs(
    dataset: str | Path, settings: PairSettings | None = None, miner: PairScorer | None = None
) -> tuple[list[Pair], list[Pair]]:
    """(training pairs, validation pairs) for a dataset, split by document.

    ``miner`` scores passages for the mined negatives (default: the ``mine_with`` folder's
    scorer, loaded when ``mined_negatives`` asks for them).
    """
    settings = settings or PairSettings()
    root = Path(dataset)
    questions = [q for q in load_questions(root / QUESTIONS_FILE, unique_ids=False) if q.doc]
    categories = load_categories(root)
    rng = random.Random(settings.seed)
    validation_docs = validation_documents(questions, settings)
    folder = dataset_docs_dir(root)
    cut: dict[str, list[Passage]] = {}
    for question in questions:
        doc = question.doc or ""
        if doc not in cut:
            cut[doc] = passages((folder / doc).read_text(encoding="utf-8"), settings.passage_words)
    mined = None
    if settings.mined_negatives > 0:
        mined = mined_scores(questions, cut, miner or load_miner(settings))
    train: list[Pair] = []
    validation: list[Pair] = []
    for number, question in enumerate(questions):
        doc = question.doc or ""
        is_validation = doc in validation_docs
        pairs = question_pairs(
            question,
            cut[doc],
            wordings(question, categories),
            settings,
            rng,
            not is_validation,
            mined[number] if mined is not None else None,
        )
        (validation if is_validation else train).extend(pairs)
    if settings.named_questions > 0:
        texts = {doc: " ".join(p.text for p in cut_doc) for doc, cut_doc in cut.items()}
        names = document_names(texts)
        train = name_training_pairs(train, names, settings.named_questions, settings.seed)
    return train, validation


def load_miner(settings: PairSettings, device: str = "cpu") -> PairScorer:
    """The ``mine_with`` folder's trained scorer, on ``device`` (a torch device name).

    Raises:
        ValueError: ``mined_negatives`` is set without ``mine_with``.
        citeguard.errors.ModelUnavailableError: the scorer does not load.
    """
    if not settings.mine_with:
        raise ValueError("mined_negatives needs mine_with: the scorer folder that mines them")
    from citeguard.learned.shipped import load_pair_model

    return load_pair_model(Path(settings.mine_with), device)


def mined_scores(
    questions: Sequence[Question], cut: dict[str, list[Passage]], scorer: PairScorer
) -> list[list[float]]:
    """Each question's scores of its document's passages (in the dataset's wording).

    One batch per document, so a bi-encoder embeds each passage once.
    """
    by_doc: dict[str, list[int]] = {}
    for number, question in enumerate(questions):
        by_doc.setdefault(question.doc or "", []).append(number)
    out: list[list[float]] = [[] for _ in questions]
    for done, (doc, numbers) in enumerate(sorted(by_doc.items()), start=1):
        texts = [p.text for p in cut[doc]]
        pairs = [(questions[n].question, text) for n in numbers for text in texts]
        scores = scorer.scores(pairs).tolist() if pairs else []
        for row, number in enumerate(numbers):
            out[number] = scores[row * len(texts) : (row + 1) * len(texts)]
        logger.info("mining negatives: %d of %d documents scored", done, len(by_doc))
    return out
