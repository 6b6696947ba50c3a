"""How often does a passage answer's quote end on a lead-in, cut from what it leads into?

    python bench/lead_in_quotes.py DATASET --index DIR [--validation-split] [--model DIR]

A lead-in ends in a colon and is followed by what it introduces: "This Agreement may be
terminated: 1. By either Party on provision of seven (7) days written notice ...". Quoted
without that, it can state more than the document does ("This Agreement may be
terminated."), or leave out the answer itself ("... by and between: Dong-A ST Co., Ltd.").
For every question whose best passage reaches the passage answer threshold, this drafts
the quotes the graph would try (``passage_answers_of_sources``) and counts those whose
last sentence stands in its source right before a colon, listing each with the source's
next words. No chat model is called. Writes bench/results/lead_in_quotes.json.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from bench_output import write_result
from bench_questions import bench_questions, question_bench_parser, scorer_and_index, source_texts

from citeguard.generate.passage_answer import passage_answers_of_sources
from citeguard.text.citations import strip_citations

OUT = Path("bench/results/lead_in_quotes.json")
TAIL_CHARS = 40
"""How much of the quote's end is looked up in its source (quotes drop closing punctuation
and list numbers, so the whole quote is not always found there as it stands)."""


def colon_after(quote: str, source: str) -> str | None:
    """The source's next words when the quote's last sentence stands right before a colon
    there, else None."""
    last = re.split(r"(?<=\.) ", strip_citations(quote).strip())[-1].rstrip(".").strip()
    tail = last[-TAIL_CHARS:]
    text = " ".join(source.split())
    at = text.find(tail)
    if not tail or at < 0:
        return None
    after = text[at + len(tail) : at + len(tail) + 60]
    return after if re.match(r"\s*:", after) else None


def main(argv: list[str]) -> int:
    parser = question_bench_parser(__doc__, OUT)
    args = parser.parse_args(argv)
    scorer, searcher, indexed = scorer_and_index(args)
    floor = float(scorer.passage_answer_threshold)
    quotes = 0
    rows: list[dict[str, Any]] = []
    for q in bench_questions(args):
        sources = source_texts(searcher, q, indexed)
        for number, answer in passage_answers_of_sources(scorer, q.question, sources, floor):
            quotes += 1
            after = colon_after(answer.text, sources[number - 1])
            if after is not None:
                rows.append({"id": q.id, "quote": answer.text, "source_continues": after})
    write_result(
        args.out,
        {
            "dataset": str(args.dataset),
            "command": "python bench/lead_in_quotes.py " + " ".join(argv),
            "quotes": quotes,
            "ending_on_a_lead_in": len(rows),
            "rows": rows,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
