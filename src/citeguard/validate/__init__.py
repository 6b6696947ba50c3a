"""Validation of generated answers: citations, sentences, grounding, refusal, quotes.

Plain Python with no LangGraph and no model loading: embedding and judge functions are
passed in by the caller, and the settings are built from a run's settings by the graph
(``citeguard.graph.context.Context.validation_settings``).
"""

from __future__ import annotations

from citeguard.text.citations import CitationMarker, parse_citations, strip_citations
from citeguard.text.refusal import REFUSAL, is_refusal
from citeguard.text.sentences import Sentence, split_sentences
from citeguard.validate.quotes import Quote, best_quote
from citeguard.validate.refusal_challenge import refusal_despite_strong_evidence
from citeguard.validate.settings import ValidationSettings
from citeguard.validate.validator import validate_answer
from citeguard.validate.verdicts import CitationRepair, SentenceVerdict, ValidationResult

__all__ = [
    "REFUSAL",
    "CitationMarker",
    "CitationRepair",
    "Quote",
    "Sentence",
    "SentenceVerdict",
    "ValidationResult",
    "ValidationSettings",
    "best_quote",
    "is_refusal",
    "parse_citations",
    "refusal_despite_strong_evidence",
    "split_sentences",
    "strip_citations",
    "validate_answer",
]
