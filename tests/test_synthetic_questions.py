"""Synthetic questions: a dataset the trainer reads, made from unlabelled documents.

The question writer and the round trip's similarity are fakes here (the local model and the
embedder are exercised elsewhere); the parsing, passage cut, filters, offsets, the written
dataset and the trainer reading it are real.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from citeguard.evaluation.dataset import load_questions
from citeguard.evaluation.synthetic_questions import (
    EVERYDAY_EXAMPLES,
    EVERYDAY_SYSTEM,
    QuestionWriter,
    SynthesisError,
    SynthesisSettings,
    copies_passage,
    passage_rank,
    passages_to_ask,
    question_messages,
    synthesize,
)
from citeguard.evaluation.train_pairs import PairSettings, build_pairs
from citeguard.serve import cli
from citeguard.text.passages import Passage, passages
from citeguard.text.tokens import token_set
from test_training import make_dataset

TOPICS = ["pets", "parking", "deposit", "repairs", "noise", "guests", "keys", "trash"]


def policy_text(name: str) -> str:
    """A document of one paragraph per topic, each long enough to be asked about."""
    return "\n\n".join(
        f"The {topic} rule of {name}: tenants must follow the {topic} policy at all times. "
        f"Questions about {topic} go to the office, which answers within two days. A breach "
        f"of the {topic} policy may lead to a written warning and, if repeated, a fine that "
        f"the office sets each year."
        for topic in TOPICS
    )


def topic_writer(passage: str, document_name: str) -> str:
    """A fake writer: asks about the passage's topic in other words."""
    topic = next(t for t in TOPICS if t in passage)
    return f"Whom do I ask about {topic}?"


def overlap_similarity(texts: Sequence[str]) -> Callable[[str], list[float]]:
    """A fake round-trip judge: shared words."""

    def similarity(question: str) -> list[float]:
        asked = set(token_set(question))
        return [float(len(asked & set(token_set(t)))) for t in texts]

    return similarity


SMALL = SynthesisSettings(passage_words=60, min_passage_words=20, questions_per_document=5)


def make_docs(root: Path, n: int = 3) -> Path:
    root.mkdir(parents=True)
    for i in range(n):
        (root / f"house-rules-{i}.txt").write_text(policy_text(f"building {i}"))
    return root


def test_a_synthesized_dataset_is_one_the_trainer_reads(tmp_path: Path) -> None:
    docs = make_docs(tmp_path / "in")
    out = tmp_path / "synthetic"
    report = synthesize([docs], out, topic_writer, overlap_similarity, SMALL)
    assert report.documents == 3 and report.asked == 15 and report.kept == 15
    questions = load_questions(out / "questions.jsonl")
    assert len(questions) == 15 and all(q.answerable for q in questions)
    for q in questions:
        text = (out / "docs" / str(q.doc)).read_text()
        (span,) = q.gold_spans
        assert span.start is not None and text[span.start : span.end] == span.text
        assert q.gold_pages == (1,)
        # The gold span is exactly one of the passages training cuts the document into.
        assert any(p.text == span.text for p in passages(text, SMALL.passage_words))
        topic = q.question.split()[-1].rstrip("?")
        assert topic in span.text
    summary = json.loads((out / "synthesis.json").read_text())
    assert summary["kept"] == 15 and summary["settings"]["questions_per_document"] == 5
    train, validation = build_pairs(out, PairSettings(passage_words=60, validation_share=0.34))
    assert {p.doc for p in train}.isdisjoint({p.doc for p in validation})
    positives = [p for p in train + validation if p.label == 1]
    assert len(positives) == 15
    # Hard negatives: other passages of the same document.
    assert any(p.label == 0 for p in train)


def test_questions_that_fail_a_check_are_dropped_and_counted(tmp_path: Path) -> None:
    docs = make_docs(tmp_path / "in", n=1)
    topic_of = topic_writer
    answers = iter(
        [
            lambda p: "",  # no question
            lambda p: "What does this passage say about the rules?",  # about "the passage"
            lambda p: "Is it true that " + p[p.index("tenants") :].split(".")[0] + "?",  # copies
            lambda p: f"Whom do I ask about {next(t for t in TOPICS if t not in p)}?",  # another
            lambda p: topic_of(p, ""),  # kept
        ]
    )
    settings = SynthesisSettings(
        passage_words=60, min_passage_words=20, questions_per_document=5, keep_rank=1
    )
    report = synthesize(
        [docs], tmp_path / "out", lambda p, d: next(answers)(p), overlap_similarity, settings
    )
    assert report.kept == 1
    assert report.dropped == {
        "no question": 1,
        "mentions the passage": 1,
        "copies the passage": 1,
        "round trip": 1,
    }
    (kept,) = load_questions(tmp_path / "out" / "questions.jsonl")
    assert kept.question.startswith("Whom do I ask about ")


def test_broken_files_are_named_and_skipped_the_rest_is_used(tmp_path: Path) -> None:
    docs = make_docs(tmp_path / "in", n=2)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a pdf")
    (docs / "empty.txt").write_text("   ")
    report = synthesize([docs], tmp_path / "out", topic_writer, overlap_similarity, SMALL)
    assert report.documents == 2 and report.kept == 10
    skipped = {Path(f).name for f, _ in report.skipped_files}
    assert skipped == {"broken.pdf", "empty.txt"}
    assert all(reason for _, reason in report.skipped_files)


def test_an_existing_dataset_is_never_overwritten_or_left_half_written(tmp_path: Path) -> None:
    docs = make_docs(tmp_path / "in", n=1)
    out = tmp_path / "out"
    out.mkdir()
    (out / "questions.jsonl").write_text("precious\n")
    with pytest.raises(SynthesisError, match="not an empty folder"):
        synthesize([docs], out, topic_writer, overlap_similarity, SMALL)
    assert (out / "questions.jsonl").read_text() == "precious\n"
    # Nothing kept: an error, and no folder (not even the partial one) left behind.
    fresh = tmp_path / "fresh"
    with pytest.raises(SynthesisError, match="no question was kept"):
        synthesize([docs], fresh, lambda p, d: "", overlap_similarity, SMALL)
    assert not fresh.exists() and not (tmp_path / "fresh.partial").exists()


def test_the_passages_asked_are_seeded_and_long_enough() -> None:
    cut = [*passages(policy_text("x"), 60), Passage("Signed by both parties.", 0, 23)]
    settings = SynthesisSettings(passage_words=60, min_passage_words=20, questions_per_document=4)
    first = passages_to_ask(cut, settings, random.Random(5))
    assert first == passages_to_ask(cut, settings, random.Random(5))
    assert len(first) == 4 and first == sorted(first)
    assert all(len(cut[i].text.split()) >= 20 for i in first)
    many = SynthesisSettings(passage_words=60, min_passage_words=20, questions_per_document=99)
    assert len(passages_to_ask(cut, many, random.Random(5))) == len(cut) - 1  # not "Signed."


def test_copy_and_rank_checks() -> None:
    passage = "The tenant shall pay a late fee of fifty dollars after the fifth day."
    copied = "Must the tenant pay a late fee of fifty dollars after the fifth day?"
    assert copies_passage(copied, passage, 8)
    assert not copies_passage("How much is the fee for paying rent late?", passage, 8)
    texts = ["about pets", "about parking and cars", "about parking"]
    assert passage_rank("parking cars", 1, overlap_similarity(texts)) == 1
    assert passage_rank("parking cars", 2, overlap_similarity(texts)) == 2
    assert passage_rank("parking cars", 0, overlap_similarity(texts)) == 3


def test_the_prompt_shows_a_worked_example_then_the_passage() -> None:
    messages = question_messages("Rent is due on the first.", "lease.pdf")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[-1]["content"].startswith("PASSAGE (from lease):\nRent is due on the first.")
    assert messages[2]["content"].endswith("?")


def test_everyday_examples_show_three_questions_in_a_readers_words() -> None:
    messages = question_messages("Rent is due on the first.", "lease.pdf", everyday=True)
    assert [m["role"] for m in messages] == ["system", *["user", "assistant"] * 3, "user"]
    assert messages[0]["content"] == EVERYDAY_SYSTEM
    assert [m["content"] for m in messages[2:7:2]] == [q for *_, q in EVERYDAY_EXAMPLES]
    assert messages[-1]["content"].startswith("PASSAGE (from lease):\nRent is due on the first.")
    # The default shows one example under another system text.
    assert question_messages("Rent is due on the first.", "lease.pdf")[0]["content"] != (
        EVERYDAY_SYSTEM
    )


def test_the_everyday_option_reaches_the_writer_and_the_dataset_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = "citeguard.evaluation.synthetic_questions"
    asked_for: list[bool] = []

    def writer(everyday: bool) -> QuestionWriter:
        asked_for.append(everyday)
        return topic_writer

    monkeypatch.setattr(f"{module}.LocalQuestionWriter", writer)
    monkeypatch.setattr(f"{module}.embedder_similarity", lambda: overlap_similarity)
    docs = make_docs(tmp_path / "in", n=1)
    for flag, out in (([], tmp_path / "plain"), (["--everyday-examples"], tmp_path / "everyday")):
        args = ["synthesize", str(docs), "--out", str(out), "--passage-words", "60",
                "--min-passage-words", "20", "--questions-per-document", "2", *flag]  # fmt: skip
        assert cli.main(args) == 0
        record = json.loads((out / "synthesis.json").read_text())
        assert record["settings"]["everyday_examples"] is bool(flag)
    assert asked_for == [False, True]


def test_the_command_writes_the_dataset_and_names_skipped_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = "citeguard.evaluation.synthetic_questions"
    monkeypatch.setattr(f"{module}.LocalQuestionWriter", lambda everyday: topic_writer)
    monkeypatch.setattr(f"{module}.embedder_similarity", lambda: overlap_similarity)
    docs = make_docs(tmp_path / "in", n=2)
    (docs / "broken.pdf").write_bytes(b"not a pdf")
    out = tmp_path / "out"
    args = ["synthesize", str(docs), "--out", str(out), "--passage-words", "60",
            "--min-passage-words", "20", "--questions-per-document", "3"]  # fmt: skip
    assert cli.main(args) == 3  # a file was skipped
    captured = capsys.readouterr()
    assert "6 of 6 questions kept from 2 document(s)" in captured.out
    assert "skipped" in captured.err and "broken.pdf" in captured.err
    assert "2/3 documents" in captured.err and "6 of 6 questions kept so far" in captured.err
    assert len(load_questions(out / "questions.jsonl")) == 6
    # A second run into the same folder is refused, and the dataset kept.
    assert cli.main(args) == 1
    assert "not an empty folder" in capsys.readouterr().err
    assert cli.main([*args[:3], str(tmp_path / "new"), "--keep-rank", "0"]) == 2
    assert "--keep-rank must be at least 1" in capsys.readouterr().err


def test_the_command_explains_itself(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["synthesize", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "round trip" in out and "citeguard train" in out and "--questions-per-document" in out


@pytest.mark.integration
def test_the_scorer_trains_on_a_labelled_and_a_synthesized_dataset_together(
    tmp_path: Path,
) -> None:
    labelled = make_dataset(tmp_path / "labelled")
    synthetic = tmp_path / "synthetic"
    synthesize([make_docs(tmp_path / "in")], synthetic, topic_writer, overlap_similarity, SMALL)
    out = tmp_path / "trained"
    code = cli.main(
        ["train", str(labelled), str(synthetic), "--out", str(out), "--architecture",
         "bi-encoder", "--max-train-pairs", "16", "--batch-size", "8", "--max-length", "64",
         "--passage-words", "60", "--validation-share", "0.34"]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((out / "training.json").read_text())
    settings = PairSettings(passage_words=60, validation_share=0.34)
    each = [build_pairs(folder, settings) for folder in (labelled, synthetic)]
    assert summary["pairs"]["train_all"] == sum(len(train) for train, _ in each)
    assert summary["pairs"]["validation"] == sum(len(validation) for _, validation in each)
    assert summary["dataset"] == f"{labelled}, {synthetic}"
    assert summary["validation"]["auroc"] is not None
    assert (out / "model" / "model.json").exists()


def test_the_round_trip_embeds_a_documents_passages_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from citeguard.evaluation.synthetic_questions import embedder_similarity
    from citeguard.index.dense import HashingEmbedder

    embedder = HashingEmbedder()
    embedded: list[list[str]] = []
    original = embedder.embed_documents

    def counting(texts: Sequence[str], show_progress: bool = False) -> Any:
        embedded.append(list(texts))
        return original(texts)

    monkeypatch.setattr(embedder, "embed_documents", counting)
    monkeypatch.setattr("citeguard.index.embedder.get_embedder", lambda *a, **k: embedder)
    for_document = embedder_similarity()
    first = ["about pets and dogs", "about parking and cars"]
    similarity = for_document(first)
    scores = similarity("parking cars")
    assert scores[1] > scores[0]
    assert list(similarity("pets dogs")) != list(scores)
    assert embedded.count(first) == 1  # the same document's passages: embedded once
    for_document(["another document's passage"])("parking")
    assert embedded.count(["another document's passage"]) == 1
