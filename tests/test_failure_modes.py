"""Failure modes seen from the local 1.5B model, each caught by the strict validator."""

from __future__ import annotations

from citeguard.graph.context import Context
from citeguard.text.refusal import REFUSAL
from citeguard.validate.validator import validate_answer

STRICT = Context().validation_settings(level="strict")
CHALLENGING = Context(challenge_refusals=True).validation_settings(level="strict")

# A contract that says nothing about solicitation: the model still answered "Yes, ...".
NO_SOLICIT_CLAUSE = (
    "8. CONFIDENTIALITY. Each party shall keep the other party's Confidential Information "
    "secret and use it only to perform this Agreement. These obligations survive termination "
    "of this Agreement for three (3) years."
)
SOLICIT_QUESTION = "Is a party restricted from soliciting the other party's employees?"


def test_placeholders_fail() -> None:
    for answer in ("This Agreement expires on [n].", "The agreement was signed on [date] [1]."):
        result = validate_answer(answer, [NO_SOLICIT_CLAUSE], "When does it expire?", STRICT)
        assert not result.passed
        assert "placeholder" in result.sentences[0].reasons or not result.sentences[0].supported


def test_answer_about_a_clause_the_contract_lacks_fails() -> None:
    answer = "Yes, a party is prohibited from soliciting the other party's employees [1]."
    result = validate_answer(answer, [NO_SOLICIT_CLAUSE], SOLICIT_QUESTION, STRICT)
    assert not result.passed
    assert not result.sentences[0].supported


def test_refusal_while_the_sources_hold_the_clause_triggers_regeneration() -> None:
    sources = [
        "12. ASSIGNMENT. Neither party may assign this Agreement without the prior written "
        "consent of the other party.",
        "13. NOTICES. Notices shall be given in writing to the addresses above.",
        "14. GOVERNING LAW. This Agreement is governed by the laws of the State of Delaware.",
    ]
    result = validate_answer(
        REFUSAL, sources, "Can a party assign this agreement without consent?", CHALLENGING
    )
    assert result.is_refusal
    assert "refusal_despite_strong_evidence" in result.triggers
    unchallenged = validate_answer(
        REFUSAL, sources, "Can a party assign this agreement without consent?", STRICT
    )
    assert unchallenged.is_refusal and unchallenged.passed and unchallenged.triggers == []


def test_date_taken_from_a_page_footer_fails() -> None:
    # Running footers ("Filed 03/14/2019 - Page 4") are stripped at parsing, so the evidence
    # the model saw in the source block has no such date; a date copied from elsewhere fails.
    evidence = (
        "2. TERM. This Agreement begins on the Effective Date and continues for two (2) years "
        "unless terminated earlier under Section 9."
    )
    answer = "This Agreement begins on March 14, 2019 [1]."
    result = validate_answer(answer, [evidence], "When does this agreement begin?", STRICT)
    assert not result.passed
    assert "number_not_in_evidence" in result.sentences[0].reasons


PREAMBLE = (
    "This Strategic Alliance Agreement is made as of the date first above written by and "
    "between Alpha Corp. and Beta LLC. The Agreement becomes effective on the date first "
    "above written and continues for two (2) years. It is effective as of the date last "
    "signed below."
)


def test_answer_pointing_elsewhere_instead_of_stating_fails() -> None:
    # Seen on real contracts: every word is in the source, and nothing is answered.
    for answer in (
        "The agreement becomes effective on the date first above written [1].",
        "The agreement was signed on the date given at the beginning of this Agreement [1].",
        "The fees are set forth below [1].",
        "The agreement is effective as of the date last signed below [1].",
    ):
        result = validate_answer(answer, [PREAMBLE], "When does this agreement start?", STRICT)
        assert not result.passed, answer
        assert "refers_elsewhere" in result.sentences[0].reasons
        assert "actual date" in result.feedback_text
    # Stating the value passes.
    stated = "The agreement continues for two (2) years [1]."
    assert validate_answer(stated, [PREAMBLE], "How long does it last?", STRICT).passed
    # "Herein" (in this agreement) is drafting, not a pointer.
    grant = (
        "Subject to the terms and conditions set forth herein, Alpha Corp. grants Beta LLC "
        "a non-exclusive license to use the Software."
    )
    quoted = (
        "Subject to the terms and conditions set forth herein, Alpha Corp. grants Beta LLC "
        "a non-exclusive license to use the Software [1]."
    )
    result = validate_answer(quoted, [grant], "What license does Alpha Corp. grant?", STRICT)
    assert "refers_elsewhere" not in result.sentences[0].reasons
    assert result.passed


PARKING_CLAUSE = (
    "Landlord leases to Tenant the apartment known as Unit 4B, together with the use of "
    "parking space number 7 in the rear lot. Unless otherwise specified in writing, the "
    "parking space may not be sublet."
)


def test_a_sentence_that_says_what_the_document_does_not_mention_fails() -> None:
    # Seen from a fresh clone: every word of the first answer stands in the clause, and
    # the 1.5B judge found it supported, yet it opens with a false claim of silence.
    question = "Is there a parking space?"
    for answer in (
        "The lease does not explicitly mention a parking space, but it does state the use "
        "of parking space number 7 in the rear lot [1].",
        "The lease doesn't specify a parking space for Unit 4B [1].",
        "The location of parking space number 7 is not stated [1].",
        "There is no mention of a parking space in the rear lot [1].",
        "The lease does not provide any specific information about parking space number 7 [1].",
    ):
        result = validate_answer(answer, [PARKING_CLAUSE], question, STRICT)
        assert not result.passed, answer
        assert "claims_absence" in result.sentences[0].reasons, answer
        assert "answer with the refusal" in result.feedback_text
    # Stating what the clause says passes, and so do its own words quoted, "unless
    # otherwise specified" included; a clause's "may not" is no claim of silence.
    for answer in (
        "The lease includes the use of parking space number 7 in the rear lot [1].",
        "Unless otherwise specified in writing, the parking space may not be sublet [1].",
    ):
        result = validate_answer(answer, [PARKING_CLAUSE], question, STRICT)
        assert "claims_absence" not in result.sentences[0].reasons, answer
        assert result.passed, answer


TERM_CLAUSE = (
    "This Agreement shall commence on the date this Agreement is signed by the last "
    "signatory and shall remain in force for two (2) years unless terminated earlier."
)


def test_a_sentence_that_stops_mid_phrase_fails() -> None:
    # Seen on a real contract: closed with a marker where the date should have been.
    question = "When does the initial term of this agreement expire?"
    for answer in (
        "The initial term expires on the date this Agreement is signed by the last "
        "signatory, which is [1].",
        "The agreement shall remain in force for two (2) years from the [1].",
        # One sentence to the splitter: the marker and period fall mid-phrase.
        "The initial term of this agreement expires after [1]. two (2) years thereafter [1].",
        "The agreement shall remain in force for the following period: [1].",
    ):
        result = validate_answer(answer, [TERM_CLAUSE], question, STRICT)
        assert "incomplete_sentence" in result.sentences[0].reasons, answer
        assert "middle of a phrase" in result.feedback_text
    # A complete sentence, and one ending on a name like "Schedule A", pass this check.
    for answer in (
        "The agreement shall remain in force for two (2) years [1].",
        "The agreement shall remain in force for two (2) years unless terminated earlier "
        "under Schedule A [1].",
    ):
        result = validate_answer(answer, [TERM_CLAUSE + " See Schedule A."], question, STRICT)
        assert "incomplete_sentence" not in result.sentences[0].reasons, answer


def test_the_same_answers_pass_when_the_evidence_holds_them() -> None:
    evidence = (
        "15. NON-SOLICITATION. During the term, neither party shall solicit the other "
        "party's employees for employment."
    )
    answer = "Yes, neither party shall solicit the other party's employees for employment [1]."
    result = validate_answer(answer, [evidence], SOLICIT_QUESTION, STRICT)
    assert result.passed, result.to_json()


def test_yes_no_lead_on_an_off_topic_sentence_fails() -> None:
    evidence = (
        "16. RIGHT OF FIRST REFUSAL. Before selling the Product to a third party, Supplier "
        "shall first offer it to Distributor. Date: February 17, 2012 Title: CEO"
    )
    question = "Does a party have a right of first refusal?"
    off_topic = validate_answer("Yes: Date: February 17, 2012 Title: CEO [1].", [evidence],
                                question, STRICT)  # fmt: skip
    assert not off_topic.passed
    assert "yes_no_off_topic" in off_topic.sentences[0].reasons
    on_topic = validate_answer(
        "Yes: Before selling the Product to a third party, Supplier shall first offer it to "
        "Distributor [1].",
        [evidence],
        question,
        STRICT,
    )
    assert on_topic.passed, on_topic.to_json()


def test_a_clause_opening_on_the_determiner_no_is_not_read_as_a_no_lead() -> None:
    evidence = (
        "12. PETS. No animals may be kept in the Premises without the Landlord's prior "
        "written consent. With that consent the Tenant may keep one cat or one dog weighing "
        "no more than 30 pounds."
    )
    question = "Can the tenant keep a dog?"
    quoted = validate_answer(
        "No animals may be kept in the Premises without the Landlord's prior written "
        "consent [1]. With that consent the Tenant may keep one cat or one dog weighing no "
        "more than 30 pounds [1].",
        [evidence],
        question,
        STRICT,
    )
    assert quoted.passed, quoted.to_json()
    # A real "No" lead on a sentence about something else still fails, with or without
    # its comma.
    for lead in ("No, ", "No: ", "No "):
        off_topic = validate_answer(
            f"{lead}the Premises are numbered 12 [1].", [evidence], question, STRICT
        )
        assert "yes_no_off_topic" in off_topic.sentences[0].reasons, lead


def test_a_no_answer_in_the_questions_own_words_keeps_the_yes_no_exemption() -> None:
    evidence = "9. ASSIGNMENT. No party may assign this Agreement without the other's consent."
    result = validate_answer(
        "No party may assign this Agreement [1].",
        [evidence],
        "May a party assign this Agreement?",
        STRICT,
    )
    assert "restates_question" not in result.sentences[0].reasons, result.to_json()
