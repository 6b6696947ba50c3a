"""Training the evidence scorer end to end on a tiny generated dataset (real MiniLM weights).

Checks the pairs (split by document, the held-out wording kept out of training, seeded),
then trains for a few steps and loads the written weights offline.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from citeguard.errors import ModelUnavailableError
from citeguard.evaluation.pair_draws import (
    TextPair,
    draw_around_mistakes,
    draw_training_pairs,
    misjudged,
)
from citeguard.evaluation.pair_metrics import auroc, fit_threshold
from citeguard.evaluation.train_cross_encoder import TrainSettings
from citeguard.evaluation.train_pairs import (
    HELD_OUT_WORDING,
    Pair,
    PairSettings,
    build_pairs,
    document_names,
    named_question,
)
from citeguard.learned.bi_encoder import BiEncoderScorer
from citeguard.learned.cross_encoder import EMBEDDINGS_PREFIX, CrossEncoder
from citeguard.learned.saved_model import WEIGHTS_FILE
from citeguard.learned.shipped import load_pair_model
from citeguard.serve import cli
from citeguard.text.passages import passages

CLAUSES = {
    "Governing Law": "This Agreement shall be governed by the laws of the State of {state}.",
    "Termination For Convenience": "Either party may terminate this Agreement for any reason "
    "upon {days} days' written notice to the other party.",
}
FILLER = (
    "The parties agree to cooperate in good faith. Payments are due within thirty days of "
    "invoice. Each party shall keep records of its performance. Notices shall be in writing. "
)
STATES = ["Delaware", "Texas", "Ohio", "Utah", "Iowa", "Maine"]


def make_dataset(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    lines = []
    for n, state in enumerate(STATES):
        doc = f"contract-{n}.txt"
        present = ["Governing Law"] + (["Termination For Convenience"] if n % 2 else [])
        text = FILLER * 3
        spans = {}
        for category in present:
            clause = CLAUSES[category].format(state=state, days=30 + n)
            spans[category] = (len(text), len(text) + len(clause))
            text += clause + " " + FILLER * 2
        (root / "docs" / doc).write_text(text, encoding="utf-8")
        for category, question in (
            ("Governing Law", "Which state's law governs this agreement?"),
            ("Termination For Convenience", "Can a party terminate for convenience?"),
        ):
            span = spans.get(category)
            lines.append(
                {
                    "id": f"{doc}-{category}",
                    "doc": doc,
                    "question": question,
                    "category": category,
                    "answerable": span is not None,
                    "gold_spans": [
                        {"text": text[span[0] : span[1]], "start": span[0], "end": span[1]}
                    ]
                    if span
                    else [],
                }
            )
    (root / "questions.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    categories = {
        c: {"question": "?", "cuad_description": f"The {c.lower()} clause"} for c in CLAUSES
    }
    (root / "categories.json").write_text(json.dumps(categories))
    return root


def test_passages_are_exact_spans_of_whole_sentences() -> None:
    text = FILLER * 4
    for passage in passages(text, max_words=20):
        assert text[passage.start : passage.end] == passage.text
        assert len(passage.text.split()) <= 20 or passage.text.count(". ") == 0


def test_pairs_are_split_by_document_seeded_and_keep_a_wording_out(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data")
    settings = PairSettings(validation_share=0.34)
    train, validation = build_pairs(dataset, settings)
    assert {p.doc for p in train}.isdisjoint({p.doc for p in validation})
    assert validation and train
    assert HELD_OUT_WORDING not in {p.wording for p in train}
    assert any(p.label == 1 for p in train) and any(p.label == 0 for p in train)
    for p in train:
        if p.label == 1:
            assert "governed by the laws" in p.passage or "terminate" in p.passage
    assert build_pairs(dataset, settings) == (train, validation)
    other_seed = build_pairs(dataset, PairSettings(validation_share=0.34, seed=99))
    assert other_seed != (train, validation)


def test_a_documents_own_names_are_its_frequent_capitalized_words_rare_elsewhere() -> None:
    common = "This Agreement is signed. The Agreement binds. See the Agreement. "
    texts = {
        f"doc-{n}": f"{name} Inc. signs. {common}{name} pays. {name} ships. "
        "An Error occurs. An Error recurs. An Error again. Then an error."
        for n, name in enumerate(["Vertex", "GitHub", "Northwind"])
    }
    texts["doc-3"] = "The Tenant pays. " * 3 + "Garage rules. " * 4
    names = document_names(texts)
    # "Agreement" stands in every document, "Error" is also written in lower case.
    assert names["doc-0"] == ["Vertex"] and names["doc-1"] == ["GitHub"]
    # A name in the opening comes before one used more often after it.
    opening = "Tenant " * 2 + "x " * 2000 + "Garage " * 9
    assert document_names({"lease": opening + "Tenant"})["lease"] == ["Tenant", "Garage"]
    assert named_question(
        "Is there a cap?", "Vertex", "In the case of {name}, {question_lower}"
    ) == ("In the case of Vertex, is there a cap?")
    # An acronym's case is kept.
    assert named_question("IP owned?", "Acme", "{name}: {question_lower}") == "Acme: IP owned?"


def test_named_questions_name_training_pairs_only_and_change_nothing_else(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data")
    names = ["Northwind", "Contoso", "Fabrikam", "Initech", "Globex", "Umbrella"]
    for n, name in enumerate(names):
        doc = dataset / "docs" / f"contract-{n}.txt"
        # Appended: the gold spans' offsets are unchanged.
        doc.write_text(doc.read_text() + f" {name} signs. {name} pays. {name} ships.")
    settings = PairSettings(validation_share=0.34)
    train, validation = build_pairs(dataset, settings)
    named_train, named_validation = build_pairs(dataset, PairSettings(
        validation_share=0.34, named_questions=1.0
    ))  # fmt: skip
    assert named_validation == validation
    assert len(named_train) == len(train)
    for plain, named in zip(train, named_train, strict=True):
        own = names[int(plain.doc.removeprefix("contract-").removesuffix(".txt"))]
        assert own in named.question and own not in plain.question
        assert named.wording == plain.wording + "+named"
        assert (named.passage, named.label, named.doc) == (plain.passage, plain.label, plain.doc)
    # About half named at 0.5; seeded.
    half = build_pairs(dataset, PairSettings(validation_share=0.34, named_questions=0.5))[0]
    share = sum(p.wording.endswith("+named") for p in half) / len(half)
    assert 0.25 < share < 0.75
    assert build_pairs(dataset, PairSettings(validation_share=0.34, named_questions=0.5))[0] == half


class WordScorer:
    """A fake scorer: P(answers) is high for passages holding ``word``."""

    threshold = recall_threshold = passage_answer_threshold = 0.5
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def __init__(self, word: str) -> None:
        self.word = word
        self.calls = 0

    def scores(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        self.calls += 1
        return np.array([0.9 if self.word in passage else 0.1 for _, passage in pairs])


def test_mined_negatives_are_the_scorers_top_non_answering_passages(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data")
    # Only mined negatives, so each question's negatives are exactly what the miner chose.
    only = {"validation_share": 0.34, "hard_negatives": 0, "random_negatives": 0}
    plain = PairSettings(**only)
    mined = PairSettings(**only, mined_negatives=1)
    # The fake rates passages with "records" high: one of them is each question's negative.
    miner = WordScorer("records")
    train, validation = build_pairs(dataset, mined, miner)
    assert miner.calls == len(STATES)  # one batch per document
    for pair in train + validation:
        if pair.label == 0:
            assert "records" in pair.passage
    by_question: dict[str, list[Pair]] = {}
    for pair in train + validation:
        by_question.setdefault(pair.question_id, []).append(pair)
    for pairs_of_question in by_question.values():
        assert sum(p.label == 0 for p in pairs_of_question) == 1
    # A scorer that rates the gold clause highest never makes it a negative: the next
    # best passages are mined instead.
    gold_lover = WordScorer("governed by the laws")
    for pair in build_pairs(dataset, mined, gold_lover)[0]:
        if pair.question_id.endswith("Governing Law"):
            assert pair.label == int("governed by the laws" in pair.passage)
    # Without a scorer to mine with, a clear error.
    with pytest.raises(ValueError, match="mine_with"):
        build_pairs(dataset, mined)
    # No mining asked: no negatives here, whatever the miner.
    assert all(p.label == 1 for p in build_pairs(dataset, plain, miner)[0])
    assert build_pairs(dataset, plain, miner) == build_pairs(dataset, plain)


def test_the_scorer_mining_negatives_runs_on_the_training_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU the mining pass over every document runs there too, not on the CPU."""
    from citeguard.evaluation import train_cross_encoder
    from citeguard.learned import shipped

    dataset = make_dataset(tmp_path / "data")
    loaded: list[tuple[str, str]] = []

    def fake_load(folder: Path, device: str = "cpu") -> WordScorer:
        loaded.append((str(folder), device))
        return WordScorer("records")

    monkeypatch.setattr(shipped, "load_pair_model", fake_load)
    settings = PairSettings(validation_share=0.34, mined_negatives=1, mine_with="miner-dir")
    train, validation = train_cross_encoder.text_pairs(
        [dataset, dataset], "scorer", settings, "cuda:1"
    )
    assert loaded == [("miner-dir", "cuda:1")]  # loaded once, on the device, for both
    assert len(train) == 2 * len(build_pairs(dataset, settings, WordScorer("records"))[0])
    assert validation


def test_auroc_and_threshold() -> None:
    assert auroc([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]) == 1.0
    assert auroc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]) == 0.0
    assert auroc([0.5, 0.5], [1, 0]) == 0.5
    assert auroc([0.5], [1]) is None
    assert fit_threshold([0.9, 0.8, 0.4, 0.3], [1, 1, 0, 1], precision=0.99) == 0.8


@pytest.mark.integration
def test_train_command_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = make_dataset(tmp_path / "data")
    out = tmp_path / "scorer"
    code = cli.main(
        ["train", str(dataset), "--out", str(out), "--max-train-pairs", "24", "--batch-size", "8",
         "--max-length", "64", "--validation-share", "0.34"]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((out / "training.json").read_text())
    assert summary["pairs"]["train_used"] == 24
    assert summary["validation"]["auroc"] is not None
    assert HELD_OUT_WORDING in summary["validation"]["by_group"]
    assert 0.0 <= summary["validation"]["threshold"] <= 1.0
    assert (out / "report.md").read_text().startswith("# Evidence scorer")
    assert (out / "loss.png").stat().st_size > 0
    loaded = CrossEncoder(out / "model")
    assert loaded.threshold == summary["validation"]["threshold"]
    assert loaded.description["weights_sha256"] == summary["weights_sha256"]
    saved = load_file(str(out / "model" / WEIGHTS_FILE))
    assert saved and not any(name.startswith(EMBEDDINGS_PREFIX) for name in saved)
    assert {str(t.dtype) for t in saved.values()} == {"torch.float16"}
    scores = loaded.scores([("Which law governs?", "Governed by the laws of Texas."), ("a", "b")])
    assert scores.shape == (2,) and ((scores > 0) & (scores < 1)).all()
    assert "validation AUROC" in capsys.readouterr().out
    assert TrainSettings().base_model in summary["train_settings"]["base_model"]
    assert summary["train_settings"]["device"] == "cpu"


@pytest.mark.parametrize(
    ("device", "said"),
    [
        ("gpu0", "not a torch device name"),
        ("mps", "use cpu or cuda"),
        pytest.param(
            "cuda",
            "sees no CUDA GPU",
            marks=pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here"),
        ),
    ],
)
def test_train_refuses_a_device_torch_cannot_use_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], device: str, said: str
) -> None:
    dataset = make_dataset(tmp_path / "data")
    out = tmp_path / "scorer"
    code = cli.main(["train", str(dataset), "--out", str(out), "--device", device])
    assert code == 2
    assert said in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--kind", "verifier", "--named-questions", "0.5"], "scorer's questions only"),
        (["--named-questions", "1.5"], "a share, from 0 to 1"),
    ],
)
def test_train_refuses_named_questions_it_cannot_make_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], said: str
) -> None:
    dataset = make_dataset(tmp_path / "data")
    out = tmp_path / "model"
    assert cli.main(["train", str(dataset), "--out", str(out), *arguments]) == 2
    assert said in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.integration
def test_train_the_verifier_end_to_end(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data")
    out = tmp_path / "verifier"
    code = cli.main(
        ["train", str(dataset), "--out", str(out), "--kind", "verifier", "--batch-size", "8",
         "--max-length", "96", "--validation-share", "0.34", "--target-precision", "0.95",
         "--claim-edits", "number,negation,splice"]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((out / "training.json").read_text())
    assert summary["kind"] == "verifier"
    assert summary["pair_settings"]["claim_edits"] == ["number", "negation", "splice"]
    groups = summary["validation"]["by_group"]
    assert set(groups) == {"none", "number", "negation", "splice"}
    assert groups["number"]["rejected_at_threshold"] is not None
    assert groups["splice"]["rejected_at_threshold"] is not None
    assert groups["none"]["kept_at_threshold"] >= 0.95
    assert summary["validation"]["positives_kept_at_threshold"] >= 0.95
    assert (out / "report.md").read_text().startswith("# Support verifier")
    # A continued step mined by that verifier trains first on every training pair it gets
    # wrong at its threshold, then on a draw of the rest.
    again = tmp_path / "mined"
    code = cli.main(
        ["train", str(dataset), "--out", str(again), "--kind", "verifier", "--batch-size", "8",
         "--max-length", "96", "--validation-share", "0.34", "--target-precision", "0.95",
         "--claim-edits", "number,negation,splice", "--init-from", str(out / "model"),
         "--mine-with", str(out / "model"), "--max-train-pairs", "200"]
    )  # fmt: skip
    assert code == 0
    mined = json.loads((again / "training.json").read_text())
    train_pairs = [
        TextPair(**json.loads(line))
        for line in (again / "pairs-train.jsonl").read_text().splitlines()
    ]
    expected = sum(misjudged(train_pairs, load_pair_model(out / "model")))
    assert mined["pairs"]["misjudged_by_miner"] == expected
    assert mined["pairs"]["train_used"] == min(200, len(train_pairs))
    assert mined["pair_settings"]["mine_with"] == str(out / "model")


@pytest.mark.integration
def test_train_a_bi_encoder_scorer_end_to_end(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "data")
    out = tmp_path / "bi"
    code = cli.main(
        ["train", str(dataset), "--out", str(out), "--architecture", "bi-encoder",
         "--max-train-pairs", "24", "--batch-size", "8", "--max-length", "64",
         "--validation-share", "0.34"]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((out / "training.json").read_text())
    assert summary["train_settings"]["architecture"] == "bi-encoder"
    loaded = load_pair_model(out / "model")
    assert isinstance(loaded, BiEncoderScorer)
    assert loaded.threshold == summary["validation"]["threshold"]
    assert loaded.description["scale"] != 0 and "bias" in loaded.description
    saved = load_file(str(out / "model" / WEIGHTS_FILE))
    assert saved and not any(name.startswith("embeddings.") for name in saved)
    assert {str(t.dtype) for t in saved.values()} == {"torch.float16"}
    pairs = [("Which law governs?", "Governed by the laws of Texas."), ("a", "b")]
    scores = loaded.scores(pairs)
    assert scores.shape == (2,) and ((scores > 0) & (scores < 1)).all()
    # The same text in many pairs is embedded once and scores the same everywhere.
    again = loaded.scores([pairs[1], pairs[0], pairs[0]])
    assert again[1] == again[2] and abs(again[1] - scores[0]) < 1e-6
    weights = out / "model" / WEIGHTS_FILE
    weights.write_bytes(weights.read_bytes()[:-8] + b"\0" * 8)
    with pytest.raises(ModelUnavailableError, match="sha256"):
        load_pair_model(out / "model")


def test_a_larger_draw_extends_the_same_draw() -> None:
    pairs = [TextPair(f"q{i}", f"p{i}", i % 2, "g", "d") for i in range(50)]
    first = draw_training_pairs(pairs, 10, random.Random(13))
    later = draw_training_pairs(pairs, 15, random.Random(13), skip=10)
    assert first == draw_training_pairs(pairs, 25, random.Random(13))[:10]
    assert len(later) == 15 and not set(first) & set(later)
    # Fewer pairs than asked for: all the rest after the skip, none twice.
    rest = draw_training_pairs(pairs, 100, random.Random(13), skip=10)
    assert len(rest) == 40 and not set(first) & set(rest)


class ClaimWordJudge:
    """A fake verifier: P(supported) is high for claims holding ``word``."""

    threshold = recall_threshold = 0.5

    def __init__(self, word: str) -> None:
        self.word = word

    def scores(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array([0.9 if self.word in claim else 0.1 for claim, _ in pairs])


def test_misjudged_pairs_are_those_on_the_wrong_side_of_the_threshold() -> None:
    pairs = [
        TextPair("rent is due monthly", "e", 1, "none", "d"),  # kept: right
        TextPair("rent is due yearly", "e", 0, "number", "d"),  # passed: wrong
        TextPair("fee is due monthly", "e", 1, "none", "d"),  # rejected: wrong
        TextPair("fee is due yearly", "e", 0, "number", "d"),  # rejected: right
    ]
    progress: list[tuple[int, int]] = []
    wrong = misjudged(
        pairs,
        ClaimWordJudge("rent"),
        batch_size=3,
        on_batch=lambda done, total: progress.append((done, total)),
    )
    assert wrong == [False, True, True, False]
    assert progress == [(3, 4), (4, 4)]


def test_a_draw_around_mistakes_takes_every_mistake_then_fills_from_the_rest() -> None:
    pairs = [TextPair(f"c{i}", "e", i % 2, "g", "d") for i in range(40)]
    mistakes = [i % 10 == 3 for i in range(40)]  # pairs 3, 13, 23, 33
    drawn = draw_around_mistakes(pairs, mistakes, 12, random.Random(13))
    assert len(drawn) == 12 and len(set(drawn)) == 12
    assert drawn[:4] == [pairs[3], pairs[13], pairs[23], pairs[33]]
    assert not {pairs[3], pairs[13], pairs[23], pairs[33]} & set(drawn[4:])
    assert drawn == draw_around_mistakes(pairs, mistakes, 12, random.Random(13))  # seeded
    # More mistakes than the limit: the limit holds.
    assert len(draw_around_mistakes(pairs, [True] * 40, 5, random.Random(13))) == 5


@pytest.mark.integration
def test_training_continues_from_a_saved_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = make_dataset(tmp_path / "data")
    common = ["--max-length", "64", "--batch-size", "8", "--validation-share", "0.34"]
    first = tmp_path / "first"
    code = cli.main(
        ["train", str(dataset), "--out", str(first), "--architecture", "bi-encoder",
         "--max-train-pairs", "16", *common]
    )  # fmt: skip
    assert code == 0
    # Continued with the encoder's learning rate at 0: the layers are the first model's,
    # not the base model's.
    again = tmp_path / "again"
    code = cli.main(
        ["train", str(dataset), "--out", str(again), "--architecture", "bi-encoder",
         "--init-from", str(first / "model"), "--skip-pairs", "16", "--max-train-pairs", "8",
         "--learning-rate", "0", *common]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((again / "training.json").read_text())
    assert summary["train_settings"]["init_from"] == str(first / "model")
    assert summary["pairs"]["train_used"] == 8
    before = load_file(str(first / "model" / WEIGHTS_FILE))
    after = load_file(str(again / "model" / WEIGHTS_FILE))
    assert before.keys() == after.keys()
    assert all(torch.equal(before[name], after[name]) for name in before)
    # The first model mines negatives for a continued step (what they are: the unit test
    # above); the settings are written with the weights.
    mined = tmp_path / "mined"
    code = cli.main(
        ["train", str(dataset), "--out", str(mined), "--architecture", "bi-encoder",
         "--init-from", str(first / "model"), "--mine-with", str(first / "model"),
         "--mined-negatives", "2", "--max-train-pairs", "8", *common]
    )  # fmt: skip
    assert code == 0
    mined_summary = json.loads((mined / "training.json").read_text())
    assert mined_summary["pair_settings"]["mined_negatives"] == 2
    assert mined_summary["pair_settings"]["mine_with"] == str(first / "model")
    # Mining without a scorer to mine with is refused before anything is written.
    capsys.readouterr()
    code = cli.main(
        ["train", str(dataset), "--out", str(tmp_path / "no-miner"), "--mined-negatives", "2",
         *common]
    )  # fmt: skip
    assert code == 2 and "--mine-with" in capsys.readouterr().err
    assert not (tmp_path / "no-miner").exists()
    code = cli.main(
        ["train", str(dataset), "--out", str(tmp_path / "no-miner"), "--mined-negatives", "2",
         "--mine-with", str(tmp_path / "nowhere"), *common]
    )  # fmt: skip
    assert code == 2 and "no trained model there" in capsys.readouterr().err
    assert not (tmp_path / "no-miner").exists()
    code = cli.main(
        ["train", str(dataset), "--out", str(tmp_path / "no-miner"), "--kind", "verifier",
         "--mined-negatives", "2", "--mine-with", str(first / "model"), *common]
    )  # fmt: skip
    assert code == 2 and "scorer only" in capsys.readouterr().err
    assert not (tmp_path / "no-miner").exists()
    # A model of another architecture is refused with a clear message, nothing written.
    capsys.readouterr()
    refused = tmp_path / "refused"
    code = cli.main(
        ["train", str(dataset), "--out", str(refused), "--init-from", str(first / "model"),
         *common]
    )  # fmt: skip
    assert code != 0
    assert "bi-encoder" in capsys.readouterr().err
    assert not refused.exists()
