"""The citation grammar admits exactly the documented answer shapes.

The GBNF text is translated into a Python regular expression by a small converter below
(the grammar is non-recursive, hence regular), so these tests check the grammar string that
llama.cpp actually receives, not a separate description of it.
"""

from __future__ import annotations

import re

import pytest

from citeguard.generate.grammar import (
    REFUSAL_SENTENCE,
    citation_answer_grammar,
    selection_grammar,
    without_closing_periods,
    yes_no_grammar,
)

_TOKEN = re.compile(
    r'\s*(?:(?P<lit>"(?:\\.|[^"\\])*")|(?P<cls>\[(?:\\.|[^\]\\])*\])'
    r"|(?P<name>[a-zA-Z][a-zA-Z0-9-]*)|(?P<op>[()|*+?]))"
)


def _unescape(literal: str) -> str:
    body = literal[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), body)


def gbnf_to_regex(grammar: str) -> re.Pattern[str]:
    """Translate a non-recursive GBNF grammar (the subset used here) to a compiled regex."""
    rules: dict[str, str] = {}
    for line in grammar.strip().splitlines():
        name, _, body = line.partition("::=")
        rules[name.strip()] = body.strip()

    def expand(name: str, depth: int = 0) -> str:
        assert depth < 50, "grammar is recursive"
        body = rules[name]
        out = []
        pos = 0
        while pos < len(body):
            match = _TOKEN.match(body, pos)
            assert match, f"cannot tokenize {body[pos:]!r}"
            pos = match.end()
            if match["lit"]:
                out.append(re.escape(_unescape(match["lit"])))
            elif match["cls"]:
                out.append(match["cls"])
            elif match["name"]:
                out.append(f"(?:{expand(match['name'], depth + 1)})")
            else:
                out.append("(?:" if match["op"] == "(" else match["op"])
        return "".join(out)

    return re.compile(expand("root"))


def admits(grammar: str, text: str) -> bool:
    return gbnf_to_regex(grammar).fullmatch(text) is not None


@pytest.fixture(scope="module")
def g2() -> str:
    return citation_answer_grammar(k=2, max_sentences=3)


@pytest.mark.parametrize(
    "text",
    [
        REFUSAL_SENTENCE,
        "Rent is $1,450.00 per month [1].",
        "Rent is due on the first day of each month [2]. A late fee of $75 applies [1][2].",
        "The deposit (two months' rent) is returned within 30 days [1]. It may be reduced "
        "for damage [2]. Interest is not paid [1].",
        "Section 4.2 of the US lease applies [2].",
    ],
)
def test_admits_documented_shapes(g2: str, text: str) -> None:
    assert admits(g2, text)


@pytest.mark.parametrize(
    "text",
    [
        "Rent is $1,450 per month [0].",  # marker below range
        "Rent is $1,450 per month [3].",  # marker above k
        "Rent is $1,450 per month [n].",  # placeholder
        "Rent is $1,450 per month [1-2].",  # range
        "Rent is $1,450 per month [1, 2].",  # list
        "Rent is $1,450 per month.",  # no marker
        "Rent is $1,450 per month [1]",  # no final period
        "Rent is $1,450 per month[1].",  # no space before the marker
        "Rent is due. It is $1,450 [1].",  # a sentence that ends without a marker
        "Rent is [1] due monthly [1].",  # marker inside the text
        "Rent is due\nmonthly [1].",  # newline
        "Is rent due? Yes [1].",
        "A [1]. B [1]. C [2]. D [2].",  # more sentences than max_sentences=3
        "The document does not contain sufficient information.",  # a near-refusal
        REFUSAL_SENTENCE + " Rent is due [1].",  # refusal plus answer
        "",
    ],
)
def test_rejects_other_text(g2: str, text: str) -> None:
    assert not admits(g2, text)


def test_no_period_inside_words_and_at_most_three_markers(g2: str) -> None:
    assert not admits(g2, "The late fee is $75 for any late payment._source: [2].")
    assert not admits(g2, "The fee does not grow with the days late.14.1 [2].")
    assert admits(g2, "The fee of $1,450.00 is set by Section 14.1, clause 3.2.1 [2].")
    assert not admits(g2, "Section 4.2 of the U.S lease applies [2].")
    assert admits(g2, "The fee is $75 [1][2][1].")
    assert not admits(g2, "The fee is $75 [1][2][1][2].")


def test_lower_case_abbreviations_keep_their_periods(g2: str) -> None:
    assert admits(g2, "The pool is open from 8:00 a.m. to 9:00 p.m. daily [1].")
    assert admits(g2, "Quiet hours end at 9:00 a.m. [1]. Pets (e.g., dogs) are allowed [2].")
    assert not admits(g2, "The pool closes at 9:00 p.m [1].")  # half an abbreviation
    assert not admits(g2, "See Exhibit A.B. for the fees [1].")
    assert not admits(g2, "The code is a.b.c.d. here [1].")


def test_a_sentence_may_close_with_its_own_period_which_is_taken_out(g2: str) -> None:
    # Copying "September 30." the model wrote "September 30.0 [1]." when "." was only
    # admitted inside a number.
    assert admits(g2, "The pool is open through September 30. [1].")
    assert not admits(g2, "The pool is open. Through September 30 [1].")
    assert without_closing_periods("Open through September 30. [1]. Closed in winter. [1][2].") == (
        "Open through September 30 [1]. Closed in winter [1][2]."
    )
    assert without_closing_periods("Quiet hours start at 11:00 p.m. [1].") == (
        "Quiet hours start at 11:00 p.m. [1]."
    )
    # Other models ignore the grammar; an upper case abbreviation keeps its period too.
    assert without_closing_periods("The law of the U.S. applies [2].") == (
        "The law of the U.S. applies [2]."
    )
    assert without_closing_periods("It is governed by the law of the U.S. [2].") == (
        "It is governed by the law of the U.S. [2]."
    )


def test_numbers_carry_at_most_three_dot_groups(g2: str) -> None:
    # An unbounded run of ".5" groups let the model loop until its token limit.
    assert admits(g2, "See Section 8.1.1.1 of the lease [1].")
    assert not admits(g2, "See Section 8.1.1.1.1 of the lease [1].")
    assert not admits(g2, "Insurance of $10,000,000.00.00.00.00 applies [2].")


def test_marker_range_follows_k() -> None:
    grammar = citation_answer_grammar(k=12)
    assert admits(grammar, "Late fees apply [12][1].")
    assert admits(grammar, "Late fees apply [10].")
    assert not admits(grammar, "Late fees apply [13].")
    assert not admits(grammar, "Late fees apply [01].")


def test_max_sentences_is_exact() -> None:
    grammar = citation_answer_grammar(k=1, max_sentences=4)
    four = " ".join(["Rent is due [1]."] * 4)
    assert admits(grammar, four)
    assert not admits(grammar, four + " Rent is due [1].")
    assert admits(citation_answer_grammar(k=1, max_sentences=1), "Rent is due [1].")
    assert not admits(citation_answer_grammar(k=1, max_sentences=1), "A [1]. B [1].")


@pytest.mark.parametrize(("k", "n"), [(0, 4), (3, 0), (-1, 1)])
def test_invalid_arguments_raise(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        citation_answer_grammar(k, max_sentences=n)


def test_yes_no_grammar() -> None:
    assert admits(yes_no_grammar(), "Yes")
    assert admits(yes_no_grammar(), "No")
    assert not admits(yes_no_grammar(), "Maybe")


@pytest.fixture(scope="module")
def llama_vocab():  # type: ignore[no-untyped-def]
    """The real model's vocabulary alone (0.3 s): llama.cpp's grammar parser needs one."""
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from citeguard.errors import ModelUnavailableError
    from citeguard.llm.weights import resolve_gguf_path

    try:
        path = resolve_gguf_path()
    except ModelUnavailableError as exc:
        pytest.skip(f"local model weights are not installed: {exc}")
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    yield llama_cpp, llama_cpp.llama_model_get_vocab(model)
    llama_cpp.llama_model_free(model)


@pytest.mark.integration
def test_llama_cpp_parses_the_grammars(llama_vocab) -> None:  # type: ignore[no-untyped-def]
    # LlamaGrammar.from_string does not parse in llama-cpp-python 0.3.x: build the sampler.
    llama_cpp, vocab = llama_vocab
    grammars = [citation_answer_grammar(k) for k in (1, 4, 12)] + [
        yes_no_grammar(),
        selection_grammar(["1.1", "1.2", "2.1"]),
        selection_grammar([]),
        citation_answer_grammar(4, allowed=[2, 3]),
    ]
    for grammar in [*grammars, "root ::= undefined-rule"]:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        assert bool(sampler) == (grammar in grammars), grammar
        if sampler:
            llama_cpp.llama_sampler_free(sampler)


def test_selection_grammar_admits_only_valid_ids() -> None:
    grammar = selection_grammar(["1.1", "1.2", "2.1", "2.10"], max_ids=3)
    for text in ("none", "1.1", "2.10", "1.2, 2.1", "1.1, 1.2, 2.1"):
        assert admits(grammar, text), text
    for text in ("3.1", "1.3", "0.1", "1.1,1.2", "1.1, 1.2, 2.1, 2.10", "None", "1.1 none", ""):
        assert not admits(grammar, text), text
    assert admits(selection_grammar([]), "none")
    assert not admits(selection_grammar([]), "1.1")


def test_citation_grammar_can_restrict_the_cited_sources() -> None:
    grammar = citation_answer_grammar(4, allowed=[2, 3])
    assert admits(grammar, "Rent is due monthly [2].")
    assert admits(grammar, "Rent is due monthly [3][2].")
    assert not admits(grammar, "Rent is due monthly [1].")
    assert not admits(grammar, "Rent is due monthly [4].")
    assert admits(grammar, REFUSAL_SENTENCE)
