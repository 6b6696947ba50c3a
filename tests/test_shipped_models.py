"""The trained scorer and verifier ship inside the package and load offline, intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeguard.evaluation.calibrate_scorer import question_sources
from citeguard.graph.context import Context
from citeguard.index.search import load_index
from citeguard.learned import shipped
from citeguard.learned.bi_encoder import BiEncoderScorer
from citeguard.learned.evidence import best_passage_score, best_passages
from citeguard.learned.saved_model import WEIGHTS_FILE, file_sha256
from citeguard.serve import cli

MAX_SHIPPED_BYTES = 60 * 1024 * 1024
"""Everything under learned/weights together."""

GOVERNING = "Which state's law governs this agreement?"
ANSWERS = "This Agreement shall be governed by the laws of the State of New York."
DOES_NOT = "The Distributor shall deliver monthly sales reports to the Company."


def test_the_shipped_weights_fit_the_size_budget() -> None:
    files = [p for p in shipped.SHIPPED_WEIGHTS.rglob("*") if p.is_file()]
    assert {p.parent.name for p in files} >= {"scorer", "verifier"}
    assert sum(p.stat().st_size for p in files) <= MAX_SHIPPED_BYTES


@pytest.mark.integration
@pytest.mark.parametrize("kind", ["scorer", "verifier"])
def test_shipped_model_loads_offline_with_its_sha256_and_thresholds(kind: str) -> None:
    shipped.shipped_model.cache_clear()
    model = shipped.shipped_model(kind)  # type: ignore[arg-type]
    assert model is not None, "the shipped weights did not load (see the warning)"
    weights = shipped.shipped_folder(kind) / WEIGHTS_FILE  # type: ignore[arg-type]
    assert file_sha256(weights) == model.description["weights_sha256"]
    assert 0.0 < model.recall_threshold <= model.threshold < 1.0
    assert "CC BY 4.0" in model.description["licence"]


@pytest.mark.integration
def test_the_scorer_prefers_the_answering_passage() -> None:
    scorer = shipped.shipped_model("scorer")
    assert scorer is not None
    assert best_passage_score(scorer, GOVERNING, ANSWERS) > best_passage_score(
        scorer, GOVERNING, DOES_NOT
    )


@pytest.mark.integration
def test_the_scorer_embeds_a_passage_once_for_every_question_asked_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scorer = BiEncoderScorer(shipped.shipped_folder("scorer"))
    encoded: list[str] = []
    encode = scorer.model.encode

    def counting_encode(texts: list[str], **kwargs: object) -> object:
        encoded.extend(texts)
        return encode(texts, **kwargs)

    monkeypatch.setattr(scorer.model, "encode", counting_encode)
    first = scorer.scores([(GOVERNING, ANSWERS), (GOVERNING, DOES_NOT)])
    other = "Who delivers the sales reports?"
    second = scorer.scores([(other, ANSWERS), (other, DOES_NOT)])
    assert encoded == [GOVERNING, ANSWERS, DOES_NOT, other]
    assert scorer.texts_embedded == 4
    # Forgotten, as in a new process: the passages are embedded again.
    scorer.forget_embedded_texts()
    scorer.scores([(other, ANSWERS)])
    assert encoded[4:] == [other, ANSWERS] and scorer.texts_embedded == 6
    # The same scores as embedding everything afresh.
    fresh = BiEncoderScorer(shipped.shipped_folder("scorer"))
    assert fresh.scores([(other, ANSWERS), (other, DOES_NOT)]) == pytest.approx(second, abs=1e-6)
    assert first[0] > first[1] and second[1] > second[0]


@pytest.mark.integration
def test_the_shipped_scorer_is_the_bi_encoder_calibrated_on_whole_questions() -> None:
    scorer = shipped.shipped_model("scorer")
    assert isinstance(scorer, BiEncoderScorer)
    calibration = scorer.description["question_calibration"]
    assert calibration["questions"] >= 500 and calibration["dataset"] == "cuad-train"
    settings = calibration["settings"]
    assert calibration["over_threshold"]["best_passage_answers"] >= settings["min_precision"]
    assert calibration["over_threshold"]["unanswerable"] <= settings["max_false_answer_share"]
    # Fitted the way the graph asks by default: its rerank and the pool it reorders.
    graph = Context()
    assert settings["scorer_rerank"] == graph.scorer_rerank
    assert settings["passage_relevance_with_scorer"] == graph.passage_relevance_with_scorer
    if graph.scorer_rerank:
        assert settings["scorer_rerank_pool"] == graph.scorer_rerank_pool
    # A passage on another topic falls under the refusal floor.
    assert best_passage_score(scorer, GOVERNING, DOES_NOT) < scorer.recall_threshold


@pytest.mark.integration
def test_the_verifier_rejects_a_changed_number() -> None:
    verifier = shipped.shipped_model("verifier")
    assert verifier is not None
    evidence = "Either party may terminate this Agreement upon thirty (30) days written notice."
    right = "Either party may terminate this Agreement upon thirty (30) days written notice."
    wrong = "Either party may terminate this Agreement upon ninety (90) days written notice."
    assert best_passage_score(verifier, right, evidence) > best_passage_score(
        verifier, wrong, evidence
    )


@pytest.mark.integration
def test_the_shipped_scorer_lets_the_demo_question_on_the_lease_through(tmp_path: Path) -> None:
    """The README demo asks the sample lease "Does the lease include a parking space?"; the
    answer ("... together with the use of parking space number 7 ...") sits in the lease's
    opening chunk, which a scorer step on synthetic questions once scored under its floor.
    A scorer that refuses it before any model call does not ship."""
    corpus = Path(shipped.__file__).parents[1] / "sample_corpus" / "docs"
    index = tmp_path / "index"
    assert cli.main(["ingest", str(corpus), "--index", str(index)]) == 0
    question = "Does the lease include a parking space?"
    scorer = shipped.shipped_model("scorer")
    assert scorer is not None
    # As the graph's defaults ask: reordered by the scorer when scorer_rerank is on.
    sources = question_sources(
        load_index(index), question, None, scorer if Context().scorer_rerank else None
    )
    assert any("parking space number 7" in hit.chunk.text for hit in sources)
    best = max(b.score for b in best_passages(scorer, question, [h.chunk.text for h in sources]))
    assert best >= scorer.recall_threshold
