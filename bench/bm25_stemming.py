"""Does stemming the BM25 half of hybrid retrieval put more gold among a question's sources?

    python bench/bm25_stemming.py DATASET --index DIR [--validation-split] [--wordings]
        [--stemmer light|snowball]

BM25 matches words as written ("transferring" does not match "transfer"). For every
answerable question, with the sources the graph's defaults give it
(``calibrate_scorer.question_sources``: the search, then the graph's choice of sources),
this counts the questions whose sources hold a gold span, and whose first source does,
first with BM25 as shipped, then with BM25 rebuilt in memory over stemmed tokens (queries
stemmed the same way). ``--stemmer light`` is the validator's inflectional stemmer
(``text.tokens.stem``); ``snowball`` is NLTK's English Snowball stemmer (needs ``nltk``,
not a dependency). ``--wordings`` asks each question in every wording the dataset's
``categories.json`` gives (``train_pairs.wordings``: as written, the held-out description,
the generic templates). No model is called. Writes bench/results/bm25_stemming.json.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path

from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, source_texts

import citeguard.index.search as search_module
from citeguard.evaluation.dataset import Question
from citeguard.evaluation.question_thresholds import passage_holds_gold
from citeguard.evaluation.train_pairs import load_categories, wordings
from citeguard.index.bm25 import BM25Index, tokenize
from citeguard.index.search import HybridSearcher, load_index
from citeguard.text.tokens import stem

OUT = Path("bench/results/bm25_stemming.json")


def stemmer_named(name: str) -> Callable[[str], str]:
    """The word stemmer ``name`` (light or snowball)."""
    if name == "light":
        return stem
    from nltk.stem.snowball import EnglishStemmer

    snowball: Callable[[str], str] = EnglishStemmer().stem
    return snowball


def gold_in_sources(
    searcher: HybridSearcher, questions: list[Question], indexed: set[str]
) -> dict[str, tuple[bool, bool]]:
    """Per question id: (a source holds a gold span, the first source does)."""
    found: dict[str, tuple[bool, bool]] = {}
    for q in questions:
        sources = source_texts(searcher, q, indexed)
        gold = [s.text for s in q.gold_spans]
        held = [passage_holds_gold(text, gold) for text in sources]
        found[q.id] = (any(held), bool(held and held[0]))
    return found


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    parser.add_argument("--wordings", action="store_true", help="every wording of each question")
    parser.add_argument("--stemmer", choices=("light", "snowball"), default="light")
    args = parser.parse_args(argv)
    searcher = load_index(args.index)
    indexed = set(searcher.documents)
    questions = [q for q in bench_questions(args) if q.answerable and q.gold_spans]
    if args.wordings:
        categories = load_categories(args.dataset)
        questions = [
            dataclasses.replace(q, id=f"{q.id}|{name}", question=text)
            for q in questions
            for name, text in wordings(q, categories).items()
        ]
    shipped = gold_in_sources(searcher, questions, indexed)

    word_stem = stemmer_named(args.stemmer)

    def stemmed_tokens(text: str) -> list[str]:
        return [word_stem(token) for token in tokenize(text)]

    searcher.bm25 = BM25Index.from_tokens(stemmed_tokens(c.text) for c in searcher.chunks)
    search_module.tokenize = stemmed_tokens  # the query side of the same searcher
    stemmed = gold_in_sources(searcher, questions, indexed)

    def count(found: dict[str, tuple[bool, bool]], which: int) -> int:
        return sum(held[which] for held in found.values())

    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/bm25_stemming.py " + " ".join(argv),
            "stemmer": args.stemmer,
            "question_wordings": len(questions),
            "gold_among_sources": {"shipped": count(shipped, 0), "stemmed": count(stemmed, 0)},
            "gold_in_first_source": {"shipped": count(shipped, 1), "stemmed": count(stemmed, 1)},
            "gained": sorted(i for i in shipped if stemmed[i][0] and not shipped[i][0]),
            "lost": sorted(i for i in shipped if shipped[i][0] and not stemmed[i][0]),
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
