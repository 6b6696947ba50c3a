"""The graph paths the trained models add, with fake scorers: rerank, the scorer's
sufficiency floor, the answer from the scorer's passage, and the verifier as judge.
Also the fallback when the shipped weights cannot load (one warning)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citeguard.generate.passage_answer import (
    passage_answer,
    quote_passage,
    scored_passage_answer,
)
from citeguard.generate.prompts import REFUSAL
from citeguard.graph.answer_graph import compile_graph
from citeguard.graph.context import Context
from citeguard.graph.resources import Resources
from citeguard.learned import shipped
from graph_fakes import LEASE_CHUNKS, fake_resources, make_chunk

RENT_Q = "When is the monthly rent due?"
GOOD = "Monthly rent of $1,250 is due on the first day of each month [1]."
UNSUPPORTED = "The tenant must mow the lawn every Sunday afternoon [1]."


class KeywordScorer:
    """Scores a pair high when its second text holds the keyword; records every pair."""

    def __init__(
        self,
        keyword: str,
        high: float = 0.95,
        low: float = 0.05,
        threshold: float = 0.8,
        passage_answer_threshold: float | None = None,
        weak_passage_relevance_threshold: float | None = None,
        passage_first_threshold: float | None = None,
    ) -> None:
        self.keyword, self.high, self.low = keyword, high, low
        self.threshold = threshold
        self.recall_threshold = 0.3
        self.passage_answer_threshold = (
            threshold if passage_answer_threshold is None else passage_answer_threshold
        )
        self.weak_passage_relevance_threshold = weak_passage_relevance_threshold
        self.passage_first_threshold = passage_first_threshold
        self.pairs: list[tuple[str, str]] = []

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.pairs.extend(pairs)
        return np.array([self.high if self.keyword in second else self.low for _, second in pairs])


def run(
    replies: list[str],
    scorer: Any = None,
    verifier: Any = None,
    relevance: Any = None,
    **context: Any,
) -> tuple[dict, Resources]:
    resources = fake_resources(replies)
    if scorer is not None:
        resources._evidence_scorer = scorer
    resources._support_verifier = verifier
    if relevance is not None:
        resources._relevance = relevance
    # Each test turns on the settings it is about; the others are off, whatever the defaults.
    settings = {
        "scorer_rerank": False,
        "scorer_source_rescue": False,
        "scorer_sufficiency": False,
        "scorer_answer": False,
        **context,
    }
    result = compile_graph(resources).invoke({"question": RENT_Q}, context=Context(**settings))
    return result, resources


def prompts(resources: Resources) -> list[str]:
    return [str(p) for p in resources._chat_model.prompts]  # type: ignore[union-attr]


def test_scorer_rerank_puts_the_answering_chunk_after_retrievals_first() -> None:
    scorer = KeywordScorer("cat")
    _, resources = run([GOOD], scorer, scorer_rerank=True, context_k=2)
    prompt = prompts(resources)[0]
    # Retrieval's best hit (the rent clause) stays first; the scorer's choice comes next.
    assert prompt.index("monthly rent") < prompt.index("one cat")
    _, plain = run([GOOD], scorer, context_k=2)  # off: retrieval order, no scoring
    assert "one cat" not in prompts(plain)[0]


def test_scorer_rerank_reorders_a_pool_larger_than_top_k(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scorer reorders scorer_rerank_pool hits after retrieval's first, so a chunk
    retrieval ranks below top_k can become a source; without a scorer (weights missing)
    the search asks for top_k in retrieval order, as before."""
    searched: list[int] = []

    def recording(resources: Resources) -> Resources:
        searcher = resources._searcher
        search = searcher.search  # type: ignore[union-attr]

        def record(query: str, k: int = 8, **kwargs: Any) -> Any:
            searched.append(k)
            return search(query, k=k, **kwargs)

        searcher.search = record  # type: ignore[union-attr,method-assign]
        return resources

    settings = Context(scorer_rerank=True, top_k=2, scorer_rerank_pool=8, context_k=2)
    resources = recording(fake_resources([GOOD]))
    resources._evidence_scorer = KeywordScorer("cat")
    compile_graph(resources).invoke({"question": RENT_Q}, context=settings)
    assert searched == [8]
    assert "one cat" in prompts(resources)[0]  # not retrieval's first hit for the rent
    searched.clear()
    monkeypatch.setattr(shipped, "shipped_model", lambda kind: None)
    plain = recording(fake_resources([GOOD]))
    plain._evidence_scorer = None
    compile_graph(plain).invoke({"question": RENT_Q}, context=settings)
    assert searched == [2]
    assert "one cat" not in prompts(plain)[0]


def test_an_answering_chunk_ranked_below_the_sources_is_shown_instead_of_refused() -> None:
    """scorer_source_rescue: no source reaches the scorer's floor, but a retrieved chunk
    below them reaches its answer threshold: it takes the weakest source's place after
    retrieval's first, and the question reaches the model instead of being refused."""
    question_settings = {"scorer_sufficiency": True, "context_k": 2}
    refused, plain = run([GOOD], KeywordScorer("cat"), **question_settings)
    assert refused["refusal_reason"] == "insufficient_evidence"
    assert prompts(plain) == []
    result, resources = run(
        [GOOD], KeywordScorer("cat"), scorer_source_rescue=True, **question_settings
    )
    assert result["refusal_reason"] != "insufficient_evidence"
    prompt = prompts(resources)[0]
    assert "one cat" in prompt and "monthly rent" in prompt  # retrieval's first stays
    assert prompt.index("monthly rent") < prompt.index("one cat")


def test_no_rescue_when_a_source_answers_or_no_other_chunk_does() -> None:
    settings = {"scorer_sufficiency": True, "scorer_source_rescue": True, "context_k": 2}
    _, answered = run([GOOD], KeywordScorer("rent"), **settings)
    assert "one cat" not in prompts(answered)[0]  # a source reaches the floor: unchanged
    # Another chunk over the floor but under the answer threshold is not enough.
    refused, resources = run([GOOD], KeywordScorer("cat", high=0.5), **settings)
    assert refused["refusal_reason"] == "insufficient_evidence"
    assert prompts(resources) == []


def test_scorer_floor_refuses_before_any_model_call() -> None:
    scorer = KeywordScorer("no such words", low=0.1)
    result, resources = run([GOOD], scorer, scorer_sufficiency=True)
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "insufficient_evidence"
    assert prompts(resources) == []
    result, _ = run([GOOD], KeywordScorer("no such words", low=0.4), scorer_sufficiency=True)
    assert result["status"] == "answered"  # 0.4 is above the floor (0.3)


def test_model_refusal_becomes_the_scorers_passage_cited_and_validated() -> None:
    result, resources = run([REFUSAL], KeywordScorer("rent"), scorer_answer=True)
    assert result["status"] == "answered"
    assert "first day of each month [1]." in result["answer"]
    assert result["citations"][0]["pdf_page"] == 2
    assert result["validation"]["attempts"] == 2
    assert len(prompts(resources)) == 1


def test_failed_answers_end_in_the_passage_after_the_regeneration() -> None:
    result, resources = run([UNSUPPORTED, UNSUPPORTED], KeywordScorer("rent"), scorer_answer=True)
    assert result["status"] == "answered"
    assert "lawn" not in result["answer"]
    assert result["validation"]["regenerations"] == 1
    assert len(prompts(resources)) == 2


def test_no_passage_above_the_answer_threshold_still_refuses() -> None:
    result, _ = run([REFUSAL], KeywordScorer("rent", high=0.7), scorer_answer=True)
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "model_refused"


def test_the_passage_answer_is_drafted_from_its_own_threshold_when_its_quote_is_judged() -> None:
    scorer = KeywordScorer("rent", high=0.7, passage_answer_threshold=0.6)
    result, _ = run([REFUSAL], scorer, scorer_answer=True)
    assert result["status"] == "answered"
    assert "first day of each month [1]." in result["answer"]
    # Without the relevance check on the quote, which that threshold was fitted with, the
    # passage must reach the answer threshold (0.8).
    for unjudged in (
        {"passage_relevance_reads_quote": False},
        {"relevance_check": False},
        {"validation_level": "strict"},
    ):
        result, _ = run([REFUSAL], scorer, scorer_answer=True, **unjudged)
        assert result["status"] == "refused", unjudged
        assert result["refusal_reason"] == "model_refused"


def test_a_weaker_passage_answers_only_when_the_check_is_sure_of_its_quote() -> None:
    """Calibration may fit a stricter relevance minimum for passages scored between the
    refusal floor (0.3 here) and the passage answer threshold (0.6): such a passage's quote
    answers only when the local model's check reaches it; a strong passage's quote needs
    only the run's threshold (0.5)."""

    def run_judged(score: float, weak: float | None, relevance: float, **context: Any) -> dict:
        resources = fake_resources([REFUSAL])
        resources._evidence_scorer = KeywordScorer(
            "rent",
            high=score,
            passage_answer_threshold=0.6,
            weak_passage_relevance_threshold=weak,
        )
        resources._relevance = lambda question, evidence: relevance
        # The local model's check alone, which these thresholds are about.
        settings = {"passage_relevance_with_scorer": False, **context}
        return compile_graph(resources).invoke(
            {"question": RENT_Q}, context=Context(scorer_answer=True, **settings)
        )

    def outcome(result: dict) -> tuple[str, str | None]:
        return result["status"], result["refusal_reason"]

    # A weak passage (0.45): not drafted without a fitted minimum; with one, its quote
    # answers at 0.9 and is refused at 0.7, which a strong passage's quote passes.
    assert outcome(run_judged(0.45, None, 0.9)) == ("refused", "model_refused")
    answered = run_judged(0.45, 0.8, 0.9)
    assert answered["status"] == "answered"
    assert "first day of each month [1]." in answered["answer"]
    assert outcome(run_judged(0.45, 0.8, 0.7)) == ("refused", "validation_failed")
    assert run_judged(0.7, 0.8, 0.7)["status"] == "answered"
    # Under the floor nothing is drafted; nor from a weak passage without the local
    # model's check on the quote, which the minimum was fitted with.
    unchecked = run_judged(0.25, 0.8, 0.9, scorer_sufficiency=False)
    assert outcome(unchecked) == ("refused", "model_refused")
    assert outcome(run_judged(0.45, 0.8, 0.9, validation_level="strict")) == (
        "refused",
        "model_refused",
    )
    # The fitted minimum never lowers the run's own threshold.
    assert outcome(run_judged(0.45, 0.6, 0.7, judge_threshold=0.75)) == (
        "refused",
        "validation_failed",
    )


def test_a_passage_answer_that_fails_validation_is_refused_without_its_text() -> None:
    resources = fake_resources([REFUSAL])
    resources._evidence_scorer = KeywordScorer("rent")
    resources._relevance = lambda question, evidence: 0.1  # no source answers the question
    # The local model's check alone: averaged with the keyword scorer's 0.95 it would pass.
    result = compile_graph(resources).invoke(
        {"question": RENT_Q},
        context=Context(scorer_answer=True, passage_relevance_with_scorer=False),
    )
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "validation_failed"
    assert "1,250" not in str(result)
    # Its sentences' verdicts stay, without what it wrote: no words, no citations.
    sentences = result["validation"]["sentences"]
    assert sentences and all(s["supported"] is not None for s in sentences)
    assert not re.search(r"\[\d+\]", json.dumps(result)), "a citation of the draft leaked"


def test_the_passage_answers_relevance_is_asked_of_its_quote_when_set() -> None:
    """With passage_relevance_reads_quote the relevance judge reads the quoted sentence,
    not the whole chunk around it; a model's written answer is still judged on its sources."""
    asked: list[str] = []

    def relevance(question: str, evidence: str) -> float:
        asked.append(evidence)
        return 0.9

    chunk = LEASE_CHUNKS[0].text
    for reads_quote in (True, False):
        asked.clear()
        resources = fake_resources([REFUSAL])
        resources._evidence_scorer = KeywordScorer("first day")
        resources._relevance = relevance
        context = Context(scorer_answer=True, passage_relevance_reads_quote=reads_quote)
        result = compile_graph(resources).invoke({"question": RENT_Q}, context=context)
        assert result["status"] == "answered"
        quote = "Tenant shall pay monthly rent of $1,250 on the first day of each month."
        assert asked == ([quote] if reads_quote else [chunk])
    resources = fake_resources([GOOD])
    resources._relevance = relevance
    asked.clear()
    context = Context(scorer_answer=True, passage_relevance_reads_quote=True)
    assert compile_graph(resources).invoke({"question": RENT_Q}, context=context)["answer"]
    assert asked == [chunk]


def test_the_passage_answers_relevance_is_averaged_with_the_scorer_when_set() -> None:
    """With passage_relevance_with_scorer the quote's relevance is the mean of the local
    model's (0.4 here, under the run's 0.5) and the scorer's (0.9): it answers; without
    the setting the local model's doubt refuses it. A model's own answer is still judged
    by the local model alone."""

    def run_with(with_scorer: bool, replies: list[str]) -> dict:
        resources = fake_resources(replies)
        resources._evidence_scorer = KeywordScorer("first day", high=0.9)
        resources._relevance = lambda question, evidence: 0.4
        context = Context(scorer_answer=True, passage_relevance_with_scorer=with_scorer)
        return compile_graph(resources).invoke({"question": RENT_Q}, context=context)

    averaged = run_with(True, [REFUSAL])
    assert averaged["status"] == "answered"
    assert "first day of each month [1]." in averaged["answer"]
    assert averaged["validation"]["relevance_score"] == pytest.approx((0.4 + 0.9) / 2)
    alone = run_with(False, [REFUSAL])
    assert (alone["status"], alone["refusal_reason"]) == ("refused", "validation_failed")
    # The model's answer (not a passage answer) at the local model's 0.4: refused, its
    # regeneration too, and the passage answer then drafted is averaged and answers.
    written = run_with(True, [GOOD, GOOD])
    assert written["answer"] != GOOD
    assert "first day of each month [1]." in written["answer"]


def test_the_passage_answers_relevance_reads_the_quote_under_its_heading_line() -> None:
    """The heading line is not delivered, but the relevance check reads the quote under it:
    "Our servers are located in the European Union" answers "Where is my data stored?"
    because it stands under "9. Where your data is stored"."""
    policy = make_chunk(
        "policy.pdf",
        "8. Your rights\n\nYou may ask for a copy of your data.\n\n"
        "9. Where your data is stored\n\nOur servers are located in the European Union.",
        page=2,
        start=0,
    )
    read: list[str] = []

    def relevance(question: str, text: str) -> float:
        read.append(text)
        return 0.9 if "stored" in text else 0.1

    resources = fake_resources([REFUSAL], chunks=[policy])
    resources._evidence_scorer = KeywordScorer("European", threshold=0.5)
    resources._relevance = relevance
    result = compile_graph(resources).invoke(
        {"question": "Where is my data stored?"},
        context=Context(scorer_answer=True, passage_relevance_with_scorer=False),
    )
    assert result["status"] == "answered"
    assert result["answer"] == "Our servers are located in the European Union [1]."
    assert read == ["9. Where your data is stored. Our servers are located in the European Union."]


def test_the_passage_answers_quotes_need_no_support_judge_but_the_models_words_do() -> None:
    asked: list[str] = []

    def doubting_judge(claim: str, evidence: str) -> float:
        asked.append(claim)
        return 0.1

    resources = fake_resources([REFUSAL])
    resources._evidence_scorer = KeywordScorer("rent")
    resources._judge = doubting_judge
    result = compile_graph(resources).invoke(
        {"question": RENT_Q}, context=Context(scorer_answer=True)
    )
    assert result["status"] == "answered"  # its sentences stand word for word in source [1]
    assert asked == []
    # The model's own sentence, the same claim in other words, is still judged.
    resources = fake_resources([GOOD])
    resources._evidence_scorer = KeywordScorer("no passage holds this")
    resources._judge = doubting_judge
    result = compile_graph(resources).invoke(
        {"question": RENT_Q}, context=Context(scorer_answer=True, scorer_sufficiency=False)
    )
    assert result["status"] == "refused" and asked


def test_the_verifier_judges_at_its_own_threshold_instead_of_the_llm_judge() -> None:
    verifier = KeywordScorer("rent", high=0.45, threshold=0.4)  # below the LLM's 0.5
    scorer = KeywordScorer("rent", high=0.45)
    resources = fake_resources([GOOD])
    resources._judge = lambda claim, evidence: pytest.fail("the LLM judge was asked")
    resources._relevance = lambda question, evidence: pytest.fail("the LLM judge was asked")
    resources._evidence_scorer, resources._support_verifier = scorer, verifier
    result = compile_graph(resources).invoke(
        {"question": RENT_Q}, context=Context(support_judge="verifier")
    )
    assert result["status"] == "answered"
    assert any(GOOD.removesuffix(" [1].") in claim for claim, _ in verifier.pairs)
    assert any(question == RENT_Q for question, _ in scorer.pairs)
    rejecting = KeywordScorer("rent", high=0.35, threshold=0.4)
    result, _ = run([GOOD, GOOD], scorer, rejecting, support_judge="verifier")
    assert result["status"] == "refused"


def test_passage_answer_quotes_whole_sentences_each_cited() -> None:
    text = "12. Payment. Rent is due on the first day of each month. A late fee of $50 applies."
    answer = passage_answer(text, 3)
    assert answer == (
        "Payment. Rent is due on the first day of each month [3]. A late fee of $50 applies [3]."
    ) or answer.endswith("A late fee of $50 applies [3].")
    assert "12" not in answer.split("[3]")[0][:3]
    assert passage_answer("", 1) == ""


def test_passage_answer_leaves_no_dangling_connective_or_cut_sentence() -> None:
    from citeguard.validate.checks import ends_mid_phrase, is_verbatim

    listing = (
        "(a) Property insurance covering all stock; "
        "(b) Liability insurance with a limit of $1,000,000 for each accident; and"
    )
    answer = passage_answer(listing, 1)
    assert answer.endswith("for each accident [1].")
    assert is_verbatim(answer.removesuffix(" [1]."), listing)
    cut = "Rent is due on the first day of each month. The Tenant shall pay a late fee of"
    answer = passage_answer(cut, 2)
    assert answer == "Rent is due on the first day of each month [2]."
    assert not ends_mid_phrase(answer.removesuffix(" [2]."))


def test_missing_weights_fall_back_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(shipped, "SHIPPED_WEIGHTS", tmp_path)
    shipped.shipped_model.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="citeguard.learned.shipped"):
            assert shipped.shipped_model("verifier") is None
            assert shipped.shipped_model("verifier") is None
            resources = fake_resources([GOOD])
            resources._evidence_scorer = None  # the shipped one, missing here
            asked: list[str] = []
            resources._judge = lambda claim, evidence: asked.append(claim) or 0.9
            result = compile_graph(resources).invoke(
                {"question": RENT_Q}, context=Context(support_judge="verifier")
            )
        # The default scorer settings fall back too: no floor refusal, no passage answer.
        assert result["status"] == "answered"
        assert asked  # the fallback: the LLM judge judged
        warnings = [r for r in caplog.records if "could not be loaded" in r.getMessage()]
        assert len(warnings) == 2  # one per model (verifier, scorer), not one per call
    finally:
        shipped.shipped_model.cache_clear()


def test_a_users_own_weights_replace_the_shipped_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "scorer").mkdir()
    monkeypatch.setenv("CITEGUARD_LEARNED_WEIGHTS", str(tmp_path))
    assert shipped.shipped_folder("scorer") == tmp_path / "scorer"
    assert shipped.shipped_folder("verifier") == shipped.SHIPPED_WEIGHTS / "verifier"
    monkeypatch.delenv("CITEGUARD_LEARNED_WEIGHTS")
    assert shipped.shipped_folder("scorer") == shipped.SHIPPED_WEIGHTS / "scorer"


def test_passage_sentences_join_what_the_page_broke_and_keep_headings_apart() -> None:
    from citeguard.generate.passage_pieces import passage_sentences

    passage = (
        "A Participant will not be liable to any other\n\nParticipant, for any mistake. "
        "This Agreement is effective as of Dec. 8, 2005 by and between A and B.\n\n"
        "11. Landlord's Entry\n\nThe Landlord may enter the Premises."
    )
    assert passage_sentences(passage) == [
        "A Participant will not be liable to any other Participant, for any mistake",
        "This Agreement is effective as of Dec. 8, 2005 by and between A and B",
        "11. Landlord's Entry",
        "The Landlord may enter the Premises",
    ]
    # Pieces the validator's splitter would cut apart again stay apart: each sentence of
    # the answer must carry its own citation.
    assert passage_sentences("This Agreement is effective as of _Dec. 8, 2005 by A and B.") == [
        "This Agreement is effective as of _Dec",
        "8, 2005 by A and B",
    ]


def test_a_heading_run_into_its_first_subsection_is_not_quoted() -> None:
    from citeguard.generate.passage_pieces import passage_sentences

    passage = (
        "5. TERM AND TERMINATION 5.1 This Agreement shall commence on the Effective Date and "
        "continue for five years. 1.0 Limited Technology License 1.1 iBio hereby grants to "
        "Beta a limited license. 1. The Term of the Agreement is hereby extended to "
        "January 20, 2012."
    )
    assert passage_sentences(passage) == [
        "This Agreement shall commence on the Effective Date and continue for five years",
        "iBio hereby grants to Beta a limited license",
        # A statement's own number is left out as well: it labels the statement.
        "The Term of the Agreement is hereby extended to January 20, 2012",
    ]


@pytest.mark.parametrize(
    ("sentence", "quoted"),
    [
        ("1. The Term of the Agreement is extended", "The Term of the Agreement is extended"),
        ("(a) (i) The Licensee shall pay", "The Licensee shall pay"),
        ("E) The Distributors will not compete", "The Distributors will not compete"),
        ("5.1 This Agreement shall commence", "This Agreement shall commence"),
        ("iv. Each party shall notify", "Each party shall notify"),
        ('2. "Products" means the goods', '"Products" means the goods'),
        # Not enumerators: a quantity, an initial, a year, a number in words' brackets.
        ("30 Days after delivery the fee is due", "30 Days after delivery the fee is due"),
        ("J. Smith shall sign for the Company", "J. Smith shall sign for the Company"),
        ("2.1 million dollars shall be paid", "2.1 million dollars shall be paid"),
        ("(20) years from the Effective Date", "(20) years from the Effective Date"),
    ],
)
def test_a_quoted_statement_leaves_out_its_own_list_number(sentence: str, quoted: str) -> None:
    from citeguard.generate.passage_answer import passage_answer
    from citeguard.generate.passage_pieces import without_enumerator

    assert without_enumerator(sentence) == quoted
    # In a passage answer, the quote opens where the statement does, and stays the
    # document's own words.
    answer = passage_answer(f"Preamble of the clause here. {sentence} in full.", 1)
    assert quoted in answer
    if quoted != sentence:
        assert sentence not in answer


def test_a_bulleted_list_is_quoted_with_its_bullets_and_ends_where_the_list_does() -> None:
    from citeguard.generate.passage_answer import passage_answer
    from citeguard.generate.passage_pieces import passage_sentences
    from citeguard.validate.checks import is_verbatim

    passage = (
        "Prohibited items include\n- grills\n- space heaters\n- fireworks\n\n"
        "Quiet hours start at 10 p.m."
    )
    # The items read apart, and the paragraph after the list is a sentence of its own
    # (it was run into the last item, which ends without punctuation).
    assert passage_sentences(passage) == [
        "Prohibited items include - grills - space heaters - fireworks",
        "Quiet hours start at 10 p.m",
    ]
    answer = passage_answer(passage, 1)
    first = answer.split(" [1].")[0]
    assert is_verbatim(first, passage)  # the document's text, bullets and all
    # A lead-in that ends in a colon takes its items, in lower or upper case.
    assert passage_sentences(
        "You may bring:\n• Cats\n• small dogs\n\nBirds are not allowed inside."
    ) == [
        "You may bring: • Cats • small dogs",
        "Birds are not allowed inside",
    ]


def test_a_list_item_that_needs_its_lead_in_is_never_quoted_alone() -> None:
    from citeguard.generate.passage_answer import passage_answer

    passage = (
        "You may not:\n• Share your password with anyone.\n• Use the service to send spam.\n\n"
        "We may suspend accounts that break these rules."
    )

    def on_spam(sentences: Sequence[str]) -> list[float]:
        return [0.95 if "spam" in s else 0.1 for s in sentences]

    # "Use the service to send spam" alone states the opposite of the document: the quote
    # is the best sentence that can stand alone, never the item.
    quote = passage_answer(passage, 1, on_spam, threshold=0.5)
    assert "spam" not in quote
    assert quote.startswith("You may not: • Share your password with anyone [1].")
    # Without scores, the first sentences stop before the item.
    assert passage_answer(passage, 1) == "You may not: • Share your password with anyone [1]."
    # A lettered list under such a lead-in alike ("(b)" after "shall not: (a) ...").
    contract = (
        "The Licensee shall not:\n(a) Sell the Software.\n(b) Rent the Software to anyone.\n"
        "The Licensor may audit the Licensee once a year."
    )
    assert "Rent" not in passage_answer(
        contract, 1, lambda ss: [0.9 if "Rent" in s else 0.6 for s in ss], threshold=0.5
    )
    # An item of a list with no such lead-in stands alone.
    assert "Use the service to send spam [1]." in passage_answer(
        "Our rules are short.\n• Share your password with no one.\n• Use the service to send spam.",
        1,
        on_spam,
        threshold=0.5,
    )


def test_the_rest_of_a_sentence_begun_before_the_passage_is_never_quoted() -> None:
    """A piece that opens on a lower-case word, after its own list label, is the end of a
    sentence the passage or a page break cut, or an item whose lead-in lies before it:
    alone it states nothing, or the opposite of the document."""
    from citeguard.generate.passage_pieces import without_enumerator

    def on_term(sentences: Sequence[str]) -> list[float]:
        return [0.95 if "term" in s else 0.6 for s in sentences]

    page_broken = (
        "first year of the term of the Agreement. Excite guarantees that it will deliver "
        "four million impressions during the term."
    )
    assert passage_answer(page_broken, 1, on_term, threshold=0.5) == (
        "Excite guarantees that it will deliver four million impressions during the term [1]."
    )
    # Without scores the quote starts after it.
    assert passage_answer(page_broken, 1).startswith("Excite guarantees")
    # A lettered item whose lead-in lies before the passage, opening in lower case: its
    # label stays (it is no statement's own number), and it is not quoted, first or later.
    item = "(c) in the Territory, compete with the Company. The term is two years."
    assert "compete" not in passage_answer(item, 1, on_term, threshold=0.5)
    assert passage_answer(item, 1) == "The term is two years [1]."
    assert without_enumerator("(a) the Licensee shall pay") == "(a) the Licensee shall pay"
    later = "Preamble of the clause here.\n(a) the Licensee shall pay in full."
    assert passage_answer(later, 1) == "Preamble of the clause here [1]."
    # Nothing else to quote: no passage answer.
    assert passage_answer("including, but not limited to, all court costs.", 1) == ""
    # A sentence may open on a name written in lower case, or on a labelled item in
    # capitals.
    for stands in ("iPhone users may renew the term online.", "b. In the term, TL buys ten."):
        assert passage_answer(stands, 1) == stands.rstrip(".") + " [1]."


def test_markup_is_never_quoted() -> None:
    """A Markdown file read as text keeps its HTML comments and tags: a piece that is only
    those is an instruction to a program, never an answer, however the scorer rates it."""
    from citeguard.generate.passage_pieces import passage_sentences

    def on_comment(sentences: Sequence[str]) -> list[float]:
        return [0.95 if "<" in s else 0.6 for s in sentences]

    passage = "<!-- markdownlint-disable GHD034 -->\n\nWe do not sell your personal data."
    assert passage_answer(passage, 1, on_comment, threshold=0.5) == (
        "We do not sell your personal data [1]."
    )
    assert passage_answer(passage, 1) == "We do not sell your personal data [1]."
    assert passage_answer("<!-- markdownlint-disable GHD034 -->\n<br/>\n</div>", 1) == ""
    # A statement with tags inside it is still a statement, quoted as the document has it.
    assert passage_sentences("Give <b>written</b> notice to the Landlord.") == [
        "Give <b>written</b> notice to the Landlord"
    ]
    # A comparison is no tag.
    assert passage_sentences("Rent is due if the balance is < 500 and > 100 dollars.") == [
        "Rent is due if the balance is < 500 and > 100 dollars"
    ]


def test_a_passage_that_leads_into_a_list_is_quoted_with_the_list() -> None:
    """A passage window may end on a lead-in whose list lies after it, a Markdown comment
    between them: alone the lead-in ends mid-phrase and nothing could be quoted. The
    passage is read on through the list, and the quote, comment left out, is the
    document's text word for word."""
    from citeguard.generate.passage_pieces import through_following_list
    from citeguard.validate.checks import is_verbatim

    lead_in = "Staff do not open private files without your consent, except for:"
    items = "* security reviews * support requests you make"
    text = (
        f"{lead_in}\n\n<!-- markdownlint-disable GHD034 -->\n\n{items}\n\n"
        "<!-- markdownlint-enable GHD034 -->\n\nWe keep logs for 90 days."
    )
    end = through_following_list(text, 0, len(lead_in))
    assert text[:end].endswith(items)
    assert passage_answer(text[: len(lead_in)], 1) == ""  # the window alone
    quote = passage_answer(text[:end], 1)
    assert quote == f"{lead_in} {items} [1]."
    assert is_verbatim(quote.removesuffix(" [1]."), text)
    assert not is_verbatim(f"{lead_in} * support requests you make", text)
    # Lettered items are read on too; a passage that is no lead-in ends where it did.
    lettered = "The Licensee shall not:\n(a) sell the Software;\n(b) rent it.\n\nOther text."
    assert lettered[: through_following_list(lettered, 0, 23)].endswith("(b) rent it.")
    # An item wrapped onto a second line is read whole.
    wrapped = (
        "Prohibited items include:\n- grills and\nopen flames\n- space heaters\n\nRent is due."
    )
    read = wrapped[: through_following_list(wrapped, 0, 25)]
    assert read.endswith("- space heaters")
    assert passage_answer(read, 1) == (
        "Prohibited items include: - grills and open flames - space heaters [1]."
    )
    statement = "We keep logs for 90 days.\n\n* a list after a statement"
    assert through_following_list(statement, 0, 25) == 25
    # A lead-in that a paragraph follows is read on through that paragraph's first
    # sentence (what it leads into), unless that is a heading.
    paragraph = "We share data with:\n\nOur partners, listed on our site. We keep logs."
    assert paragraph[: through_following_list(paragraph, 0, 19)].endswith("on our site.")
    facts = "It is made with reference to the following facts:\n\nRecitals\n\nA. The seller."
    assert through_following_list(facts, 0, 48) == 48
    # A list longer than LIST_MAX_WORDS is read only as far as the items that fit.
    long_list = "Prohibited:\n" + "\n".join(f"- item {i} " + "word " * 40 for i in range(5))
    read = long_list[: through_following_list(long_list, 0, 11)]
    assert "- item 2" in read and "- item 3" not in read


def test_a_lead_in_to_a_numbered_list_is_never_quoted_alone() -> None:
    """A sentence that ends in a colon with a numbered item after it ("This Agreement may
    be terminated:" / "1. By either Party ...") states more than the document alone, and
    the numbers keep it from being quoted with its items as one sentence: it is never
    quoted, on a line of its own or with the first item's number run into it, and the quote
    is another sentence. A passage window that ends on it is read on through the numbered
    items."""
    from citeguard.generate.passage_pieces import LEAD_IN, passage_pieces, through_following_list

    term = "This Agreement continues until the Warranty Period expires."
    items = "1. By either Party on seven (7) days written notice.\n2. By the Client at any time."
    for lead_in in ("This Agreement may be terminated:\n\n", "This Agreement may be terminated: "):
        passage = f"{term}\n\n{lead_in}{items}"
        kinds = dict(passage_pieces(passage))
        assert kinds["This Agreement may be terminated"] == LEAD_IN
        scores = lambda sentences: [  # noqa: E731
            0.9 if "may be terminated" in s else 0.5 if "Warranty" in s else 0.1 for s in sentences
        ]
        quote = passage_answer(passage, 1, scores, threshold=0.6)
        assert quote == f"{term.removesuffix('.')} [1]."
    # The first sentences of a passage, quoted without scores, stop before it.
    assert passage_answer(f"{term}\n\nThis Agreement may be terminated:\n\n{items}", 1) == (
        f"{term.removesuffix('.')} [1]."
    )
    # A colon that a heading follows leads into no list here: the sentence is a statement.
    facts = "It is made with reference to the following facts:\n\nRecitals\n\nA. The seller."
    assert "lead-in" not in dict(passage_pieces(facts)).values()
    window = "The occurrence of any of the following shall be an event of default:"
    text = f"{window}\n\n6.1.1.\n\nA Party fails to pay."
    assert text[: through_following_list(text, 0, len(window))].endswith("6.1.1.")


def test_a_lead_in_and_what_it_introduces_read_as_one_sentence() -> None:
    """A lead-in is quoted with what it introduces when the two read as one sentence ("by
    and between:" / "Dong-A ST Co., Ltd. ..."): a quote that ends on "by and between" states
    nothing about who the parties are. A passage window that ends on the dangling "and"
    of such a sentence is read on through the sentence's end, so the quote ends where the
    document's sentence does and is the document's text word for word."""
    from citeguard.generate.passage_pieces import passage_sentences, through_following_list
    from citeguard.validate.checks import is_verbatim

    lead_in = 'This Agreement is made as of May 1, 2018 ("Effective Date") by and between:'
    first = 'Dong-A Co., Ltd., a Korean corporation ("Dong-A") and'
    second = 'NeuroBo, Inc., a Delaware corporation ("NeuroBo").'
    text = f"{lead_in}\n\n{first}\n\n{second}\n\nRECITALS\n\nWHEREAS the parties agree."
    window = len(f"{lead_in}\n\n{first}")
    end = through_following_list(text, 0, window)
    assert text[:end].endswith(second)
    sentences = passage_sentences(text[:end])
    assert sentences == [f"{lead_in} {first} {second}".removesuffix(".")]
    quote = passage_answer(text[:end], 1)
    assert is_verbatim(quote.removesuffix(" [1]."), text)
    # A passage that ends on a finished sentence is not read on, nor one whose next
    # sentence is itself cut off by the end of the text: the quote would still end
    # mid-phrase.
    assert through_following_list(text, 0, len(text) - 26) == len(text) - 26
    cut = "(a) store the Content; and\n\n(b) publish it by any device or in"
    assert through_following_list(cut, 0, 26) == 26
    finished = "(a) store the Content; and\n\n(b) adapt the Content.\n\nOther terms."
    assert finished[: through_following_list(finished, 0, 26)].endswith("adapt the Content.")


def test_a_question_in_the_document_is_never_quoted() -> None:
    """A guide's question above its answer asks and states nothing: the answer under it is
    quoted, never the question, however the scorer rates it."""
    from citeguard.generate.passage_pieces import passage_sentences

    guide = (
        "Can I be charged for repainting?\n\n"
        "Normal wear and tear, such as faded paint, cannot be charged to the tenant."
    )
    answer = "Normal wear and tear, such as faded paint, cannot be charged to the tenant [1]."

    def on_question(sentences: Sequence[str]) -> list[float]:
        return [0.95 if s.endswith("?") else 0.6 for s in sentences]

    assert passage_answer(guide, 1, on_question, threshold=0.5) == answer
    assert passage_answer(guide, 1) == answer
    assert passage_answer("Can I be charged for repainting?", 1) == ""
    # The question is still a sentence of the passage, as the document has it.
    assert passage_sentences(guide)[0] == "Can I be charged for repainting?"


def test_a_numbered_heading_keeps_its_number_when_quoted() -> None:
    from citeguard.generate.passage_pieces import passage_sentences

    assert passage_sentences("1. Definitions\n\nThe Term means five years.") == [
        "1. Definitions",
        "The Term means five years",
    ]


def test_a_numbered_line_of_its_own_is_a_heading_in_any_case() -> None:
    from citeguard.generate.passage_pieces import passage_sentences

    passage = (
        "This policy explains what we collect.\n\n3. Who we share it with\n\n"
        "We do not sell your personal data.\n\n1. Quiet hours\n\n"
        "Quiet hours are from 10:00 p.m. to 7:00 a.m. on weekdays."
    )
    assert passage_sentences(passage) == [
        "This policy explains what we collect",
        "3. Who we share it with",
        "We do not sell your personal data",
        "1. Quiet hours",
        "Quiet hours are from 10:00 p.m. to 7:00 a.m. on weekdays",
    ]

    def on_sharing(sentences: Sequence[str]) -> list[float]:
        # The heading shares the question's words and scores best: it is still not quoted.
        return [0.99 if "share" in s else 0.9 if "sell" in s else 0.1 for s in sentences]

    assert passage_answer(passage, 1, on_sharing, threshold=0.5) == (
        "We do not sell your personal data [1]."
    )

    # The scorer reads each statement under its heading line, as the relevance check will.
    scored: list[str] = []

    def recording(sentences: Sequence[str]) -> list[float]:
        scored.extend(sentences)
        return [0.9 if "stored" in s else 0.1 for s in sentences]

    quote = quote_passage(
        "9. Where your data is stored\n\nOur servers are in the European Union.\n\n"
        "10. Changes\n\nWe will email you before a change takes effect.",
        1,
        recording,
        threshold=0.5,
    )
    assert quote.text == "Our servers are in the European Union [1]."
    assert quote.heading == "9. Where your data is stored"
    assert "9. Where your data is stored. Our servers are in the European Union" in scored
    # "10. Changes" is title-style: its statement is scored alone and not quoted here.
    assert "We will email you before a change takes effect" in scored
    assert passage_answer(passage, 1).startswith("This policy explains what we collect [1]. We")
    # A numbered line that closes with a full stop, or on an article, is no heading: a
    # page break in the middle of a sentence still joins the two pieces (and, a
    # statement, it is quoted without its number).
    assert passage_sentences("2. The Tenant shall pay to the\n\nLandlord the rent.") == [
        "The Tenant shall pay to the Landlord the rent"
    ]
    assert passage_sentences("4. Pets are allowed.\n\nDogs must be leashed.") == [
        "Pets are allowed",
        "Dogs must be leashed",
    ]


def test_passage_answer_quotes_the_best_sentence_and_its_answering_neighbours() -> None:
    passage = (
        "The Tenant remains responsible during any sublease. "
        "The Landlord may enter the Premises to make repairs. "
        "The Landlord will give 24 hours notice before entering. "
        "Notice is given in writing. "
        "Smoking is not allowed anywhere on the Premises."
    )
    scores = {"enter": 0.7, "24 hours": 0.95, "in writing": 0.8}

    def sentence_scores(sentences: Sequence[str]) -> list[float]:
        return [max((v for k, v in scores.items() if k in s), default=0.1) for s in sentences]

    answer = passage_answer(passage, 2, sentence_scores, threshold=0.75)
    assert answer == (
        "The Landlord will give 24 hours notice before entering [2]. "
        "Notice is given in writing [2]."
    )
    # Without scores, the first sentences, as before.
    assert passage_answer(passage, 2).startswith("The Tenant remains responsible")


def test_passage_answer_stops_at_a_heading_unless_the_heading_is_the_best_sentence() -> None:
    passage = (
        "11. Landlord's Entry\n\n"
        "The Landlord may enter the Premises to make repairs. "
        "The Landlord will give 24 hours notice before entering.\n\n"
        "12. SUCCESSORS AND ASSIGNS\n\n"
        "This Lease binds the parties' successors."
    )

    def topical(sentences: Sequence[str]) -> list[float]:
        # Every sentence reaches the threshold, the headings too: only the rule stops them.
        return [0.95 if "24 hours" in s else 0.8 for s in sentences]

    entry = (
        "The Landlord may enter the Premises to make repairs [1]. "
        "The Landlord will give 24 hours notice before entering [1]."
    )
    assert passage_answer(passage, 1, topical, threshold=0.5) == entry

    def heading_first(sentences: Sequence[str]) -> list[float]:
        # A short heading scored best: the best statement is quoted instead.
        return [0.99 if "Entry" in s else 0.9 if "24 hours" in s else 0.8 for s in sentences]

    assert passage_answer(passage, 1, heading_first, threshold=0.5) == entry

    def asks_for_the_title(sentences: Sequence[str]) -> list[float]:
        return [0.95 if "SUCCESSORS" in s else 0.1 for s in sentences]

    assert passage_answer(passage, 1, asks_for_the_title, threshold=0.5) == (
        "12. SUCCESSORS AND ASSIGNS [1]."
    )


def test_a_yes_no_question_is_answered_by_the_clause_under_a_title_not_the_title() -> None:
    passage = (
        "11. Landlord's Entry\n\n"
        "The Landlord may enter the Premises to make repairs.\n\n"
        "12. EXCLUSIVITY\n\n"
        "During the Term, Distributor shall not sell competing products. "
        "Prices are set in Exhibit A."
    )
    # Only the title reaches the threshold (it shares the question's word).
    scorer = KeywordScorer("EXCLUSIVITY", high=0.6, low=0.2, threshold=0.5)
    asked = "Does the agreement contain an exclusivity commitment?"
    quote = scored_passage_answer(passage, 2, asked, scorer)
    assert quote.text == "During the Term, Distributor shall not sell competing products [2]."
    assert quote.heading == "12. EXCLUSIVITY"  # read under its title by the relevance check
    # A question that may ask for the title itself still gets it.
    named = scored_passage_answer(passage, 2, "What is the section on exclusivity called?", scorer)
    assert named.text == "12. EXCLUSIVITY [2]."
    # A title with no statement under it in the passage is quoted as before.
    assert scored_passage_answer("12. EXCLUSIVITY", 2, asked, scorer).text == (
        "12. EXCLUSIVITY [2]."
    )


@pytest.mark.parametrize(
    ("sentence", "heading"),
    [
        ("11. Landlord's Entry", True),
        ("17. SUCCESSORS AND ASSIGNS", True),
        ("Extent of Cross Licenses", True),
        ("Section 5.1 Term", True),
        ("STRATEGIC ALLIANCE AGREEMENT", True),
        ("THIS AGREEMENT IS MADE ON THE 19 DAY OF MAY, 2010", False),
        ("The Landlord may enter the Premises", False),
        ("Notice is given in writing", False),
        ("of Cross Licenses", False),
    ],
)
def test_what_reads_as_a_heading(sentence: str, heading: bool) -> None:
    from citeguard.generate.passage_pieces import is_heading

    assert is_heading(sentence) is heading


def test_a_passage_at_the_scorers_floor_lets_a_question_in_other_words_reach_the_model() -> None:
    question = "When is the quarterly levy payable?"  # none of its words in the lease
    words_only = fake_resources([GOOD])
    refused = compile_graph(words_only).invoke(
        {"question": question}, context=Context(scorer_sufficiency=False, scorer_answer=False)
    )
    assert refused["refusal_reason"] == "insufficient_evidence"
    assert prompts(words_only) == []
    resources = fake_resources([GOOD])
    # 0.4: under the answer threshold (0.8), over the refusal floor (0.3).
    resources._evidence_scorer = KeywordScorer("rent", high=0.4)
    result = compile_graph(resources).invoke(
        {"question": question}, context=Context(scorer_sufficiency=True, scorer_answer=False)
    )
    assert len(prompts(resources)) >= 1
    assert result["refusal_reason"] != "insufficient_evidence"
    unsure = fake_resources([GOOD])
    unsure._evidence_scorer = KeywordScorer("rent", high=0.2)  # under the floor
    result = compile_graph(unsure).invoke(
        {"question": question}, context=Context(scorer_sufficiency=True, scorer_answer=False)
    )
    assert result["refusal_reason"] == "insufficient_evidence"
    assert prompts(unsure) == []


def quoted_first(
    replies: list[str], score: float, relevance: Any = None, **context: Any
) -> tuple[dict, Resources]:
    """Run the rent question with a scorer whose passage-first threshold is 0.9 and whose
    best passage (the rent clause) scores ``score``; the local model's relevance check
    alone (``relevance``, default: every text answers)."""
    scorer = KeywordScorer("rent", high=score, passage_first_threshold=0.9)
    settings = {
        "scorer_answer": True,
        "passage_first": True,
        "passage_relevance_with_scorer": False,
        **context,
    }
    return run(replies, scorer, relevance=relevance, **settings)


def test_a_passage_the_scorer_is_sure_of_is_quoted_before_the_model_is_asked() -> None:
    result, resources = quoted_first([GOOD], 0.95)
    assert result["status"] == "answered"
    assert result["answer"].startswith("Tenant shall pay monthly rent of $1,250")
    assert result["citations"][0]["pdf_page"] == 2
    assert result["validation"]["attempts"] == 1
    assert prompts(resources) == []  # the model never read the sources


def test_under_the_passage_first_threshold_or_with_it_off_the_model_answers_first() -> None:
    for score, context in ((0.85, {}), (0.95, {"passage_first": False})):
        result, resources = quoted_first([GOOD], score, **context)
        assert result["answer"] == GOOD, (score, context)
        assert len(prompts(resources)) == 1
    # Nor without the local model's check on the quote, which the threshold was fitted with.
    result, resources = quoted_first([GOOD], 0.95, validation_level="strict")
    assert result["answer"] == GOOD
    # A scorer calibrated without it has no passage-first threshold: the model first.
    resources = fake_resources([GOOD])
    resources._evidence_scorer = KeywordScorer("rent", high=0.95)
    result = compile_graph(resources).invoke(
        {"question": RENT_Q}, context=Context(scorer_answer=True, passage_first=True)
    )
    assert result["answer"] == GOOD
    # Off by default.
    result, resources = quoted_first([GOOD], 0.95, passage_first=Context().passage_first)
    assert result["answer"] == GOOD


def test_a_quote_tried_first_that_fails_hands_the_question_to_the_model() -> None:
    """The quote's relevance check fails: the model is asked as if no quote had been
    tried, and its validated answer is delivered; the quote is not tried a second time."""
    said: list[str] = []

    def doubts_the_quote(question: str, text: str) -> float:
        said.append(text)
        return 0.1 if len(said) == 1 else 0.9

    result, resources = quoted_first([GOOD], 0.95, doubts_the_quote)
    assert result["status"] == "answered"
    assert result["answer"] == GOOD
    assert result["validation"]["attempts"] == 2
    assert len(prompts(resources)) == 1
    # The model's answer was validated as the model's (its cited source judged), not as
    # a quote.
    assert said[1] == LEASE_CHUNKS[0].text
    # The model refuses after the failed quote: a refusal, not the quote again.
    said.clear()
    result, resources = quoted_first([REFUSAL], 0.95, doubts_the_quote)
    assert result["status"] == "refused"
    assert result["refusal_reason"] == "model_refused"
    assert len(prompts(resources)) == 1


def test_a_model_answer_after_a_failed_quote_is_not_validated_as_a_quote() -> None:
    """A quote's support is taken as given; the model's text after it must pass the
    support check of its own: an unsupported sentence is regenerated, then refused."""
    said: list[str] = []

    def doubts_the_quote(question: str, text: str) -> float:
        said.append(text)
        return 0.1 if len(said) == 1 else 0.9

    resources = fake_resources([UNSUPPORTED, UNSUPPORTED])
    resources._evidence_scorer = KeywordScorer("rent", high=0.95, passage_first_threshold=0.9)
    resources._relevance = doubts_the_quote
    resources._judge = lambda claim, evidence: 0.1 if "lawn" in claim else 0.9
    context = Context(scorer_answer=True, passage_first=True, passage_relevance_with_scorer=False)
    result = compile_graph(resources).invoke({"question": RENT_Q}, context=context)
    assert result["status"] == "refused"
    assert "lawn" not in str(result)
    assert result["validation"]["regenerations"] == 1
    assert len(prompts(resources)) == 2


def test_the_score_memory_keeps_a_run_s_scores_when_another_run_pushes_them_out() -> None:
    """The server's runs share one memory of scores: while one run's new pairs are being
    scored, another's may push its remembered pairs out; the first still gets them all."""
    from citeguard.learned.evidence import CachedPairScorer

    class LengthScorer(KeywordScorer):
        """P = the passage's length / 100, scoring another run's pairs meanwhile once."""

        def __init__(self) -> None:
            super().__init__("unused")
            self.meanwhile: list[tuple[str, str]] = []
            self.scored: list[tuple[str, str]] = []

        def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
            self.scored += pairs
            if self.meanwhile:
                other, self.meanwhile = self.meanwhile, []
                memory.scores(other)
            return np.array([len(passage) / 100 for _, passage in pairs])

    inner = LengthScorer()
    memory = CachedPairScorer(inner, max_pairs=2)
    memory.scores([("q", "a"), ("q", "bb")])
    inner.meanwhile = [("x", "ccc"), ("x", "dddd")]
    assert list(memory.scores([("q", "a"), ("q", "eeeee")])) == pytest.approx([0.01, 0.05])
    assert ("q", "a") not in inner.scored[2:]  # remembered, not scored again
    assert list(memory.scores([("x", "dddd"), ("q", "eeeee")])) == pytest.approx([0.04, 0.05])
