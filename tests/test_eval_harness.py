"""The evaluation harness end to end on a generated dataset: real ingestion with a hashing
embedder, the real compiled graph, a scripted chat model and a word-overlap judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeguard.evaluation.ablations import ABLATIONS, resolve_ablation, run_ablation
from citeguard.evaluation.dataset import DatasetError, load_questions
from citeguard.evaluation.harness import (
    EvalConfig,
    EvaluationError,
    run_evaluation,
    run_settings,
    select_document_files,
)
from citeguard.evaluation.metrics import SUMMARY_METRICS
from citeguard.graph.context import Context
from citeguard.index.dense import HashingEmbedder
from citeguard.serve.cli import main as cli_main
from eval_fakes import (
    CHUNKS,
    QUESTIONS,
    counting_chat_model,
    scripted_chat_model,
    word_judge,
    write_dataset,
)

# Worked out by hand from eval_fakes (see the comments there):
#   rent       answered, grounded; token F1 0.6 (reference), 1.0 (span)
#   deposit    unsupported first reply, regenerated, accepted; F1 0.4 and 10/11
#   sell       the model refuses twice despite the evidence: a false refusal
#   crypto     unanswerable, no evidence: refused before any model call
#   pets-dogs  unanswerable but answered from the pets clause: a hallucination
EXPECTED = {
    "n_questions": 5,
    "n_answerable": 3,
    "n_unanswerable": 2,
    "n_answered": 3,
    "n_errors": 0,
    "hit@k": 1.0,
    "page_hit@k": 1.0,
    "context_recall": 1.0,
    "answer_accuracy": 0.6,
    "token_f1": (0.6 + 0.4 + 0.0) / 3,
    "token_f1_gold_spans": (1.0 + 10 / 11 + 0.0) / 3,
    "citation_validity": 1.0,
    "evidence_support_rate": 1.0,
    "citation_recall": 1.0,
    "citation_precision": 1.0,
    "hallucination_rate": 1 / 3,
    "unsupported_hallucination_rate": 0.0,
    "unsupported_quotes_only_rate": 0.0,
    "true_refusal_rate": 0.5,
    "false_refusal_rate": 1 / 3,
    "false_answer_rate": 0.5,
    "regeneration_attempt_rate": 0.4,
    "regeneration_accepted_rate": 0.2,
}
MODEL_CALLS = ["rent", "deposit", "deposit", "sell", "sell", "pets-dogs"]


# The strict level: these numbers were worked out without a validation judge (the default
# judge level would put every sentence to the real local model). Refusals are challenged,
# so that "sell" also exercises a regeneration that ends in a refusal.
STRICT = Context(
    validation_level="strict",
    challenge_refusals=True,
    # Worked out without the trained scorer: these tests are about the harness.
    scorer_sufficiency=False,
    scorer_answer=False,
)


def evaluate(dataset: Path, out: Path, model: Any = None, **kw: Any) -> Any:
    kw.setdefault("config", EvalConfig(context=STRICT, chunk_settings=CHUNKS))
    return run_evaluation(
        dataset,
        out,
        kw.pop("config"),
        cache_dir=dataset.parent / "cache",
        progress=False,
        embedder=HashingEmbedder(),
        chat_model=model if model is not None else scripted_chat_model(),
        judge=word_judge,
        **kw,
    )


def assert_expected(summary: dict[str, Any]) -> None:
    for key, value in EXPECTED.items():
        assert summary[key] == pytest.approx(value), key


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "dataset")


def test_end_to_end_summary_is_exact(dataset: Path, tmp_path: Path) -> None:
    model = scripted_chat_model()
    run = evaluate(dataset, tmp_path / "out", model)
    assert_expected(run.summary)
    assert model.calls == MODEL_CALLS
    assert run.computed == 5 and run.reused == 0

    out = tmp_path / "out"
    summary = json.loads((out / "summary.json").read_text())
    assert set(SUMMARY_METRICS) <= set(summary)
    assert set(summary["seconds_per_stage"]) == {"retrieval", "generation", "validation"}
    assert summary["seconds_per_question"]["p95"] >= summary["seconds_per_question"]["p50"] > 0
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in lines] == [q["id"] for q in QUESTIONS]
    first = lines[0]
    # Full results: the graph's retrieval, evidence, timings and the judge's verdicts.
    assert first["retrieved"] and first["evidence"] and first["citations"]
    assert set(first["timings"]) == {"retrieval", "generation", "validation"}
    assert first["judge"]["sentences"][0]["supported"] is True
    assert first["docs"] == ["lease.txt"]
    report = (out / "report.md").read_text()
    assert "| Grounded answer accuracy | `answer_accuracy` | 60.0% |" in report
    assert "`pets-dogs`" in report
    # Each draft's verdict, in order: the deposit's unsupported first reply, then the
    # regeneration that passed; the refused question before any model call has none.
    trails = {r["id"]: r["drafts"] for r in lines}
    assert [(d["drafted_by"], d["passed"]) for d in trails["deposit"]] == [
        ("generate", False),
        ("regenerate", True),
    ]
    assert trails["deposit"][0]["triggers"] == ["unsupported_sentence"]
    assert trails["deposit"][0]["reasons"]
    assert [d["is_refusal"] for d in trails["sell"]] == [True, True]
    assert trails["crypto"] == []
    # The one answerable refusal, by where it was lost, in the summary and the report.
    assert summary["answerable_refusal_causes"] == {
        "model draft: refused; passage answer: not tried": 1
    }
    assert "| model draft: refused; passage answer: not tried | 1 |" in report
    # A chat model that does not count its tokens leaves the model-work figures out.
    assert all(r["model_work"] is None for r in lines)
    assert summary["model_work"] is None and "Local model work" not in report


def test_local_model_work_is_recorded_per_question(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = evaluate(dataset, out, counting_chat_model())
    lines = {r["id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    # Each question's record holds its own model calls only (MODEL_CALLS: deposit and sell
    # were drafted twice; crypto was refused before any call).
    calls = {question: MODEL_CALLS.count(question) for question in lines}
    for question, record in lines.items():
        work = record["model_work"]
        if calls[question] == 0:
            assert work is None, question
            continue
        assert work["calls"] == calls[question], question
        assert work["prompt_tokens"] == 100 * calls[question]
        assert work["reused_tokens"] == 50 * calls[question]
        assert work["decoded_tokens"] == 10 * calls[question]
        assert work["prompt_seconds"] == pytest.approx(0.5 * calls[question])
    summary = run.summary["model_work"]
    assert summary["n_questions"] == 4
    assert summary["prompt_tokens_per_question"]["p50"] == 150  # 100, 200, 200, 100
    assert summary["decoded_tokens_per_question"]["mean"] == 15
    assert summary["prompt_tokens_per_s"] == pytest.approx(200.0)
    assert summary["decode_tokens_per_s"] == pytest.approx(40.0)
    report = (out / "report.md").read_text()
    assert "Local model work per question (4 questions), at 200 prompt and 40 decoded" in report
    assert "| prompt tokens evaluated | 150 | 200 | 150 |" in report


def test_interrupted_run_resumes_without_recomputing(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    # The model "crashes" on its fourth call, the first for the third question ("sell").
    with pytest.raises(KeyboardInterrupt):
        evaluate(dataset, out, scripted_chat_model(crash_after=3))
    finished = [json.loads(x)["id"] for x in (out / "results.jsonl").read_text().splitlines()]
    assert finished == ["rent", "deposit"]

    model = scripted_chat_model()
    model.replies["rent"] = []  # would fail if rent were asked again
    model.replies["deposit"] = []
    run = evaluate(dataset, out, model)
    assert model.calls == ["sell", "sell", "pets-dogs"]
    assert run.computed == 3 and run.reused == 2
    assert_expected(run.summary)

    again = scripted_chat_model()
    rerun = evaluate(dataset, out, again)
    assert again.calls == [] and rerun.computed == 0
    assert_expected(rerun.summary)


def test_a_line_cut_off_by_a_crash_is_run_again(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(dataset, out, limit=1)
    with open(out / "results.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"id": "deposit", "settings_key": "trunc')  # no newline: cut off
    model = scripted_chat_model()
    model.replies["rent"] = []
    run = evaluate(dataset, out, model)
    assert model.calls == MODEL_CALLS[1:]
    assert_expected(run.summary)


def test_limit_then_full_run(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = evaluate(dataset, out, limit=2)
    assert first.summary["n_questions"] == 2 and first.summary["n_answered"] == 2
    model = scripted_chat_model()
    run = evaluate(dataset, out, model)
    assert model.calls == MODEL_CALLS[3:]
    assert_expected(run.summary)


def test_other_settings_in_the_same_folder_are_refused(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    evaluate(dataset, out, limit=1)
    other = EvalConfig(context=STRICT, chunk_settings=CHUNKS, judge=False)
    with pytest.raises(
        EvaluationError, match=r"other settings .*differs in: judge \(True -> False\)"
    ):
        evaluate(dataset, out, config=other)
    run = evaluate(dataset, out, config=other, fresh=True)
    assert run.summary["citation_recall"] is None  # --no-judge: recorded as null
    assert run.summary["unsupported_hallucination_rate"] is None
    assert run.summary["answer_accuracy"] == pytest.approx(0.6)


def test_a_failing_question_is_recorded_and_retried(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    model = scripted_chat_model()
    model.replies["rent"] = []  # pop from an empty list: an error inside the graph
    run = evaluate(dataset, out, model)
    assert run.summary["n_errors"] == 1 and run.summary["n_scored"] == 4
    errors = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert "IndexError" in errors[0]["error"]

    retry = scripted_chat_model()
    run = evaluate(dataset, out, retry)
    assert retry.calls == ["rent"]
    assert_expected(run.summary)


def test_cached_index_is_reused(dataset: Path, tmp_path: Path) -> None:
    first = evaluate(dataset, tmp_path / "a", limit=1)
    second = evaluate(dataset, tmp_path / "b", limit=1)
    assert first.index_dir == second.index_dir
    generations = [p for p in first.index_dir.iterdir() if p.is_dir()]
    assert len(generations) == 1  # nothing re-ingested


def test_document_selection_prefers_pdf_twins(tmp_path: Path) -> None:
    for name in ("a.pdf", "a.txt", "b.txt", "c.md", "d.csv"):
        (tmp_path / name).write_text("x")
    names = [p.name for p in select_document_files(tmp_path)]
    assert names == ["a.pdf", "b.txt", "c.md"]
    assert [p.name for p in select_document_files(tmp_path, "txt")] == ["a.txt", "b.txt", "c.md"]


def test_bad_dataset_line_is_named(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "dataset")
    lines = (root / "questions.jsonl").read_text().splitlines()
    lines.insert(2, '{"id": "x", "question": "Missing the answerable flag?"}')
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match=r"questions.jsonl line 3: missing field 'answerable'"):
        load_questions(root)
    lines[2] = "{not json"
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match="line 3: not valid JSON"):
        load_questions(root)


def test_cli_reports_the_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_dataset(tmp_path / "dataset")
    with open(root / "questions.jsonl", "a") as fh:
        fh.write('{"id": "rent", "question": "again?", "answerable": true}\n')
    code = cli_main(["eval", str(root), "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 1
    assert "line 6: duplicate id 'rent'" in capsys.readouterr().err


def test_regenerations_ablation_writes_table_and_chart(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "ablation"

    def run_variant(data: Path, variant_out: Path, config: EvalConfig, **_: Any) -> Any:
        return evaluate(data, variant_out, config=config)

    result = run_ablation(
        "max_regenerations",
        dataset,
        out,
        EvalConfig(context=STRICT, chunk_settings=CHUNKS),
        run=run_variant,
    )
    labels = [v["label"] for v in result["variants"]]
    assert labels == ["regenerations-0", "regenerations-1", "regenerations-2"]
    by_label = {v["label"]: v["summary"] for v in result["variants"]}
    assert by_label["regenerations-0"]["regeneration_attempt_rate"] == 0.0
    assert by_label["regenerations-0"]["answer_accuracy"] == pytest.approx(0.4)  # deposit lost
    assert_expected(by_label["regenerations-1"])
    for label in labels:
        assert (out / label / "summary.json").exists()
    report = (out / "report.md").read_text()
    assert report.count("| regenerations-") == 3
    png = out / "ablation_regenerations.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "](ablation_regenerations.png)" in report


def test_every_ablation_has_its_variants() -> None:
    assert [v.label for v in ABLATIONS["validation"]] == [
        "validation-off",
        "validation-paper",
        "validation-strict",
        "validation-judge",
    ]
    assert [v.chunk_tokens for v in ABLATIONS["chunk_size"]] == [400, 600, 800]
    assert resolve_ablation("rerank") == "reranker"
    assert [v.context for v in ABLATIONS["opening"]] == [
        {"opening_source": False},
        {"opening_source": True},
    ]
    assert [v.context["source_words"] for v in ABLATIONS["source_words"]] == [0, 160, 120, 80]
    assert resolve_ablation("trim") == "source_words"
    with pytest.raises(ValueError, match="unknown ablation"):
        resolve_ablation("temperature")


def test_validation_off_delivers_the_first_candidate(dataset: Path, tmp_path: Path) -> None:
    # Without the trained scorer, as the rest of this file (its numbers were worked out so).
    off = Context(validation_level="off", scorer_sufficiency=False, scorer_answer=False)
    config = EvalConfig(context=off, chunk_settings=CHUNKS)
    model = scripted_chat_model()
    run = evaluate(dataset, tmp_path / "out", model, config=config)
    assert run.summary["n_errors"] == 0
    # The unsupported first deposit reply is delivered unchecked: no regeneration at all.
    assert run.summary["regeneration_attempt_rate"] == 0.0
    assert model.calls == ["rent", "deposit", "sell", "pets-dogs"]
    # The independent judge catches the unchecked claim ("forfeited entirely ...").
    assert run.summary["unsupported_hallucination_rate"] == pytest.approx(1 / 3)
    assert run.summary["citation_recall"] == pytest.approx(2 / 3)


def test_only_the_harness_acceptance_delivers_an_unchecked_answer() -> None:
    from citeguard.evaluation.unvalidated import ACCEPT_FIRST_WHEN_OFF
    from citeguard.graph.acceptance import VALIDATED
    from citeguard.graph.answer_graph import compile_graph
    from graph_fakes import fake_resources

    # Cites a source that does not exist: rejected at every level of validation.
    invalid = "Monthly rent is due on the first day of each month [7]."
    question = {"question": "When is the monthly rent due?"}
    checked = compile_graph(fake_resources([invalid, invalid]), acceptance=ACCEPT_FIRST_WHEN_OFF)
    refused = checked.invoke(question, context=Context(validation_level="paper"))
    assert refused["status"] == "refused" and refused["validation"]["regenerations"] == 1

    unchecked = compile_graph(fake_resources([invalid]), acceptance=ACCEPT_FIRST_WHEN_OFF)
    result = unchecked.invoke(question, context=Context(validation_level="off"))
    assert result["status"] == "answered" and result["answer"] == invalid
    validation = result["validation"]
    assert validation["level"] == "off" and validation["passed"] and validation["triggers"] == []
    # Measured by the paper-level checks all the same (the record the metrics read).
    assert [s["citation_valid"] for s in validation["sentences"]] == [False]
    # At every other level it is the graph's own acceptance.
    for level in ("paper", "strict", "judge"):
        ctx = Context(validation_level=level)
        assert ACCEPT_FIRST_WHEN_OFF.settings(ctx) == VALIDATED.settings(ctx)
    paper = VALIDATED.settings(Context(validation_level="paper"))
    assert ACCEPT_FIRST_WHEN_OFF.settings(Context(validation_level="off")) == paper
    with pytest.raises(ValueError, match="evaluation harness"):
        VALIDATED.settings(Context(validation_level="off"))


def test_another_gguf_file_is_another_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = {"embedding_model": "m", "chunk_settings": {}, "documents": []}
    monkeypatch.delenv("CITEGUARD_GGUF", raising=False)
    assert "gguf" not in run_settings(EvalConfig(), index)
    monkeypatch.setenv("CITEGUARD_GGUF", str(tmp_path / "other.gguf"))
    assert run_settings(EvalConfig(), index)["gguf"] == str(tmp_path / "other.gguf")


def test_other_trained_models_are_another_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = {"embedding_model": "m", "chunk_settings": {}, "documents": []}
    monkeypatch.delenv("CITEGUARD_LEARNED_WEIGHTS", raising=False)
    shipped = run_settings(EvalConfig(), index)["trained_models"]
    assert shipped["scorer"] != "absent" and shipped["verifier"] != "absent"

    own = tmp_path / "weights"
    (own / "scorer").mkdir(parents=True)
    described = {"architecture": "bi-encoder", "weights_sha256": "ab" * 32, "threshold": 0.3}
    (own / "scorer" / "model.json").write_text(json.dumps(described))
    monkeypatch.setenv("CITEGUARD_LEARNED_WEIGHTS", str(own))
    mine = run_settings(EvalConfig(), index)["trained_models"]
    assert mine["scorer"].startswith("abababababab/")
    assert mine["verifier"] == shipped["verifier"]  # not in the folder: the package's own

    described["threshold"] = 0.4  # recalibrated: same weights, other thresholds
    (own / "scorer" / "model.json").write_text(json.dumps(described))
    recalibrated = run_settings(EvalConfig(), index)["trained_models"]
    assert recalibrated["scorer"] != mine["scorer"]

    (own / "scorer" / "model.json").write_text("{not json")
    assert run_settings(EvalConfig(), index)["trained_models"]["scorer"] == "absent"
