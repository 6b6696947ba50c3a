"""The command line, run in-process: ingest, search, remove, ask, graph and their errors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from citeguard.index.dense import HashingEmbedder
from citeguard.serve import cli
from citeguard.serve.answer_text import format_answer
from pdf_factory import make_encrypted_pdf, make_sample_contract_pdf


@pytest.fixture()
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> HashingEmbedder:
    """Ingest and search with a deterministic fake embedder instead of the real model."""
    embedder = HashingEmbedder()
    monkeypatch.setattr("citeguard.ingest.pipeline.get_embedder", lambda *a, **k: embedder)
    monkeypatch.setattr("citeguard.index.search.get_embedder", lambda *a, **k: embedder)
    return embedder


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_explains_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("ingest", "search", "remove", "ask", "graph"):
        assert command in out


def test_ingest_reports_bad_files_and_indexes_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_embedder: Any
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_sample_contract_pdf(docs / "contract.pdf")
    make_encrypted_pdf(docs / "locked.pdf")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7 this is not a pdf")
    (docs / "notes.txt").write_bytes(b"\x00\x01binary\x00\x02")
    (docs / "menu.txt").write_bytes("Caf\u00e9 au lait costs three euros.".encode("latin-1"))
    index = tmp_path / "index"

    code, out, err = run_cli(capsys, "ingest", str(docs), "--index", str(index), "--json")
    summary = json.loads(out)
    assert code == cli.EXIT_PARTIAL
    assert summary["added"] == 2
    reasons = {Path(path).name: reason for path, reason in summary["skipped"]}
    assert set(reasons) == {"locked.pdf", "broken.pdf", "notes.txt"}
    assert "encrypted" in reasons["locked.pdf"]
    assert "binary" in reasons["notes.txt"]

    # A second ingest of the same folder changes nothing.
    code, out, _ = run_cli(
        capsys, "ingest", str(docs / "contract.pdf"), "--index", str(index), "--json"
    )
    assert code == cli.EXIT_OK
    assert json.loads(out)["unchanged"] == 1


def test_search_json_has_the_documented_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_embedder: Any
) -> None:
    make_sample_contract_pdf(tmp_path / "contract.pdf")
    index = str(tmp_path / "index")
    assert run_cli(capsys, "ingest", str(tmp_path / "contract.pdf"), "--index", index)[0] == 0
    code, out, _ = run_cli(capsys, "search", "rent", "--index", index, "--json", "--k", "3")
    assert code == 0
    results = json.loads(out)
    assert 1 <= len(results) <= 3
    assert set(results[0]) == {
        "doc",
        "chunk_id",
        "pdf_pages",
        "printed_pages",
        "char_start",
        "char_end",
        "score",
        "dense_score",
        "lexical_score",
        "text",
    }
    for mode in ("dense", "lexical"):
        assert run_cli(capsys, "search", "rent", "--index", index, "--mode", mode)[0] == 0


def test_remove_and_unknown_document_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_embedder: Any
) -> None:
    make_sample_contract_pdf(tmp_path / "contract.pdf")
    index = str(tmp_path / "index")
    run_cli(capsys, "ingest", str(tmp_path / "contract.pdf"), "--index", index)
    code, _, err = run_cli(capsys, "search", "rent", "--index", index, "--doc", "nope.pdf")
    assert code == cli.EXIT_ERROR
    assert "not in the index: nope.pdf" in err
    code, out, _ = run_cli(capsys, "remove", "contract.pdf", "--index", index)
    assert code == 0 and "removed: contract.pdf" in out
    code, out, _ = run_cli(capsys, "search", "rent", "--index", index)
    assert "no results" in out


@pytest.fixture()
def contract_pdf(tmp_path: Path) -> Path:
    pdf = tmp_path / "contract.pdf"
    make_sample_contract_pdf(pdf)
    return pdf


def test_remove_by_path_reports_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_embedder: Any, contract_pdf: Path
) -> None:
    pdf = contract_pdf
    index = str(tmp_path / "index")
    run_cli(capsys, "ingest", str(pdf), "--index", index)
    code, out, _ = run_cli(capsys, "remove", str(pdf), "nope.pdf", "--index", index)
    assert f"removed: {pdf}" in out and "not in index: nope.pdf" in out
    assert code == cli.EXIT_ERROR  # one of the two was not there


def test_partial_chunk_settings_come_from_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_embedder: Any, contract_pdf: Path
) -> None:
    from citeguard.index.store import read_manifest

    pdf = contract_pdf
    index = str(tmp_path / "index")
    assert run_cli(capsys, "ingest", str(pdf), "--index", index, "--chunk-tokens", "300")[0] == 0
    assert read_manifest(index).chunk_settings["overlap_tokens"] == 60  # a fifth
    # A new file with only --overlap-tokens 0: the chunk size stays the index's 300.
    (tmp_path / "notes.txt").write_text("The landlord repairs the heating within 48 hours.\n")
    code, _, err = run_cli(
        capsys, "ingest", str(tmp_path / "notes.txt"), "--index", index, "--overlap-tokens", "0"
    )
    assert code == cli.EXIT_ERROR and "chunk settings" in err  # 0 is honoured, not ignored
    code, _, err = run_cli(
        capsys, "ingest", str(tmp_path / "notes.txt"), "--index", index, "--chunk-tokens", "300"
    )
    assert code == 0, err


def test_missing_index_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "search", "rent", "--index", str(tmp_path / "none"))
    assert code == cli.EXIT_ERROR
    assert "citeguard ingest" in err


def test_graph_prints_the_six_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "graph")
    assert code == 0
    for node in ("retrieve", "sufficiency_check", "generate", "validate", "regenerate", "refuse"):
        assert node in out


def test_format_answer_shows_page_and_quote() -> None:
    text = format_answer(
        {
            "answer": "Rent is due on the first [1].",
            "status": "answered",
            "citations": [
                {
                    "marker": 1,
                    "doc": "lease.pdf",
                    "pdf_page": 3,
                    "printed_page": "1",
                    "quote": "Rent is due on the first day.",
                }
            ],
        }
    )
    assert '[1] lease.pdf, p. 1 (PDF page 3): "Rent is due on the first day."' in text


def test_format_answer_shows_the_relevance_score_when_checked() -> None:
    validation = {"level": "judge", "passed": True, "supported_ratio": 1.0, "attempts": 1}
    answered = {"answer": "Rent is due on the first [1].", "status": "answered", "citations": []}
    checked = format_answer(
        {**answered, "validation": {**validation, "relevance_score": 0.8123}},
        show_validation=True,
    )
    assert "validation: level=judge passed=True" in checked and "relevance=0.81" in checked
    unchecked = format_answer({**answered, "validation": validation}, show_validation=True)
    assert "relevance" not in unchecked


def test_a_bad_setting_is_a_one_line_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    code, _, err = run_cli(
        capsys, "ask", "When is rent due?", "--index", index, "--source-words", "-1"
    )
    assert code == 1
    assert err.strip() == "citeguard: error: source_words=-1: must be an integer >= 0"
    code, _, err = run_cli(
        capsys, "eval", str(tmp_path), "--out", str(tmp_path / "out"), "--alpha", "2"
    )
    assert code == 1
    assert "alpha=2.0: must be between 0 and 1" in err
    assert "Traceback" not in err
    code, _, err = run_cli(
        capsys, "eval", str(tmp_path), "--out", str(tmp_path / "out"), "--scorer-rerank-pool", "0"
    )
    assert code == 1
    assert err.strip() == "citeguard: error: scorer_rerank_pool=0: must be an integer >= 1"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [([], None), (["--challenge-refusals"], True), (["--no-challenge-refusals"], False)],
)
def test_ask_passes_the_refusal_challenge_setting(
    flags: list[str],
    expected: bool | None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: dict[str, Any] = {}

    def fake_answer(question: str, **settings: Any) -> dict[str, Any]:
        seen.update(settings)
        return {"answer": "x", "status": "refused", "citations": [], "refusal_reason": None}

    monkeypatch.setattr("citeguard.api.answer", fake_answer)
    run_cli(capsys, "ask", "When is rent due?", "--json", *flags)
    assert seen.get("challenge_refusals") == expected


def test_show_validation_asks_for_and_prints_each_drafts_verdict(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refusal says where it came from: the model refused, then the passage answer's
    quote failed the relevance check."""
    seen: dict[str, Any] = {}
    drafts = [
        {"drafted_by": "generate", "passed": True, "is_refusal": True, "triggers": []},
        {
            "drafted_by": "answer_from_passage",
            "passed": False,
            "is_refusal": False,
            "triggers": ["sources_do_not_answer_question"],
            "reasons": [],
            "relevance": 0.4012,
        },
    ]

    def fake_answer(question: str, **settings: Any) -> dict[str, Any]:
        seen.update(settings)
        refusal = {"answer": "x", "status": "refused", "citations": [], "refusal_reason": "r"}
        return {**refusal, "drafts": drafts} if settings.get("with_drafts") else refusal

    monkeypatch.setattr("citeguard.api.answer", fake_answer)
    code, out, _ = run_cli(capsys, "ask", "When is rent due?", "--show-validation")
    assert code == 0 and seen["with_drafts"] is True
    assert "draft 1 by generate: the model refused" in out
    assert "draft 2 by answer_from_passage: failed the relevance check (relevance 0.40)" in out
    run_cli(capsys, "ask", "When is rent due?")
    assert seen["with_drafts"] is False


def test_ask_and_eval_options_are_the_context_fields() -> None:
    from dataclasses import fields

    from citeguard.evaluation.cli_eval import EVAL_OPTIONS, config_from_args
    from citeguard.graph.context import Context, context_overrides

    descriptions = {f.name: f.metadata["description"] for f in fields(Context)}
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for command, options in (("ask", cli.ASK_OPTIONS), ("eval", EVAL_OPTIONS)):
        helps = {a.dest: a.help for a in commands[command]._actions}
        for option in options:
            assert str(helps[option.name]).startswith(descriptions[option.name])

    args = parser.parse_args(
        ["ask", "q", "--strategy", "extractive", "--mode", "dense", "--no-opening-source"]
    )
    assert context_overrides(args, cli.ASK_OPTIONS) == {
        "generation_strategy": "extractive",
        "retrieval_mode": "dense",
        "opening_source": False,
    }
    args = parser.parse_args(["eval", "data", "--out", "o", "--top-k", "3", "--no-rerank"])
    assert config_from_args(args).context == Context(top_k=3, rerank=False)


@pytest.mark.parametrize(
    ("question", "message"),
    [("", "empty"), ("  \t", "empty"), ("why? " * 300, "limit is 1,000"), ("a\x1bb", "U+001B")],
)
def test_ask_refuses_a_bad_question_with_one_line_and_status_2(
    question: str, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def must_not_run(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("the graph ran")

    monkeypatch.setattr("citeguard.api.answer", must_not_run)
    code, out, err = run_cli(capsys, "ask", question)
    assert code == cli.EXIT_USAGE == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def record_questions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The questions the graph is asked, in order, each answered "answer to QUESTION"."""
    asked: list[str] = []

    def fake_answer(question: str, **settings: Any) -> dict[str, Any]:
        asked.append(question)
        return {"answer": f"answer to {question}", "status": "answered", "citations": []}

    monkeypatch.setattr("citeguard.api.answer", fake_answer)
    return asked


def test_ask_answers_several_questions_in_one_process_in_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = record_questions(monkeypatch)
    code, out, _ = run_cli(capsys, "ask", "When is rent due?", "Is there a late fee?")
    assert code == 0 and asked == ["When is rent due?", "Is there a late fee?"]
    first, second = out.split("\n\nQ: ")
    assert first.startswith("Q: When is rent due?\nanswer to When is rent due?")
    assert second.startswith("Is there a late fee?\nanswer to Is there a late fee?")

    # --json: one object a line, each parsed on its own.
    asked.clear()
    code, out, _ = run_cli(capsys, "ask", "When is rent due?", "Is there a late fee?", "--json")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert [json.loads(line)["answer"] for line in lines] == [
        "answer to When is rent due?",
        "answer to Is there a late fee?",
    ]
    # One question keeps the one indented object it always printed.
    code, out, _ = run_cli(capsys, "ask", "When is rent due?", "--json")
    assert json.loads(out)["answer"] == "answer to When is rent due?" and out.count("\n") > 1


def test_ask_reads_questions_from_standard_input_for_a_dash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:

    asked = record_questions(monkeypatch)
    monkeypatch.setattr(
        "sys.stdin", io.StringIO("When is rent due?\n\n  \nIs there a late fee?\r\n")
    )
    code, _, _ = run_cli(capsys, "ask", "Who is the landlord?", "-")
    assert code == 0
    assert asked == ["Who is the landlord?", "When is rent due?", "Is there a late fee?"]

    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    code, out, err = run_cli(capsys, "ask", "-")
    assert code == cli.EXIT_USAGE and out == "" and "no question" in err


def test_a_bad_question_among_several_stops_ask_before_any_is_answered(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def must_not_run(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("the graph ran")

    monkeypatch.setattr("citeguard.api.answer", must_not_run)
    code, out, err = run_cli(capsys, "ask", "When is rent due?", "a\x1bb")
    assert code == cli.EXIT_USAGE and out == ""
    assert err.count("\n") == 1 and "question 2:" in err and "U+001B" in err


def test_ingest_limits_are_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_embedder: Any
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    make_sample_contract_pdf(docs / "contract.pdf")  # five pages
    (docs / "note.txt").write_text("Rent is due on the first.", encoding="utf-8")
    index = str(tmp_path / "index")

    code, out, _ = run_cli(
        capsys, "ingest", str(docs), "--index", index, "--max-pages", "4", "--json"
    )
    summary = json.loads(out)
    assert code == cli.EXIT_PARTIAL
    assert summary["added_docs"] == ["note.txt"]
    [(path, reason)] = summary["skipped"]
    assert Path(path).name == "contract.pdf" and "over the limit of 4 (--max-pages)" in reason

    code, out, _ = run_cli(
        capsys, "ingest", str(docs), "--index", index, "--max-pages", "0", "--json"
    )
    assert code == cli.EXIT_OK
    assert json.loads(out)["added_docs"] == ["contract.pdf"]

    code, _, err = run_cli(capsys, "ingest", str(docs), "--index", index, "--max-file-mb", "-1")
    assert code == cli.EXIT_ERROR
    assert "max_file_mb=-1" in err and "Traceback" not in err


class _Terminal(io.StringIO):
    """Standard error as a terminal."""

    def isatty(self) -> bool:
        return True


def test_ask_shows_each_step_on_a_terminal_and_erases_it_before_the_answer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from citeguard.serve.progress import ERASE_LINE, STEP_LABELS

    def fake_answer(question: str, **settings: Any) -> dict[str, Any]:
        for step in ("retrieve", "generate", "validate"):
            settings["on_step"](step)
        return {"answer": f"answer to {question}", "status": "answered", "citations": []}

    monkeypatch.setattr("citeguard.api.answer", fake_answer)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code, out, _ = run_cli(capsys, "ask", "When is rent due?", "Is there a late fee?")
    shown = terminal.getvalue()
    assert code == 0
    assert f"citeguard: [1/2] {STEP_LABELS['retrieve']}..." in shown
    assert f"citeguard: [2/2] {STEP_LABELS['validate']}..." in shown
    assert shown.endswith(ERASE_LINE)  # nothing left on the line after the last answer
    assert "citeguard:" not in out and "answer to Is there a late fee?" in out


def test_ask_shows_no_steps_where_standard_error_is_no_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, Any] = {}

    def fake_answer(question: str, **settings: Any) -> dict[str, Any]:
        seen.update(settings)
        return {"answer": "x", "status": "answered", "citations": []}

    monkeypatch.setattr("citeguard.api.answer", fake_answer)
    code, _, err = run_cli(capsys, "ask", "When is rent due?")
    assert code == 0 and seen["on_step"] is None and err == ""


def test_the_status_line_is_erased_when_a_question_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from citeguard.errors import CiteGuardError
    from citeguard.serve.progress import ERASE_LINE

    def failing_answer(question: str, **settings: Any) -> dict[str, Any]:
        settings["on_step"]("retrieve")
        raise CiteGuardError("no index at /nowhere")

    monkeypatch.setattr("citeguard.api.answer", failing_answer)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code, _, _ = run_cli(capsys, "ask", "When is rent due?")
    shown = terminal.getvalue()
    assert code != 0
    assert shown.index(ERASE_LINE + "citeguard: error: no index") > shown.index("searching")
