"""The plain-PyTorch BERT encoder gives sentence-transformers' vectors bit for bit, and a
question's models load without importing sentence-transformers or transformers."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from citeguard.index.bert_encoder import (
    BertSentenceEncoder,
    load_sentence_encoder,
    plain_bert_folder,
)
from citeguard.index.embedder import resolve_embedding_model_path

MINILM = "all-MiniLM-L6-v2"

TEXTS = [
    "When is rent due?",
    "The monthly rent is $1,450.00, payable in advance on or before the first day of each "
    "calendar month.",
    "",
    "  leading and trailing spaces  ",
    "Ünïcödé ÀÉÎ café naïve 中文字符 emoji 😀 tab\there",
    "Licensee shall not assign this Agreement without the prior written consent of "
    "Licensor. " * 40,  # longer than the model's window: cut as sentence-transformers cuts
    "a",
    "$1,450.00 on 8/4/10",
]


@pytest.fixture(scope="module")
def minilm_folder() -> Path:
    return resolve_embedding_model_path(MINILM)


@pytest.fixture(scope="module")
def sentence_transformer(minilm_folder: Path) -> object:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(minilm_folder), device="cpu")


def _copy_with(folder: Path, tmp_path: Path, edit: dict[str, dict[str, object]]) -> Path:
    """A copy of a model folder with some of its JSON files' keys replaced."""
    copy = tmp_path / "model"
    shutil.copytree(folder, copy)
    for name, values in edit.items():
        path = copy / name
        path.write_text(json.dumps({**json.loads(path.read_text()), **values}))
    return copy


def test_the_bundled_minilm_is_a_plain_bert_folder(minilm_folder: Path) -> None:
    assert plain_bert_folder(minilm_folder)


@pytest.mark.parametrize(
    "edit",
    [
        {"config.json": {"model_type": "mpnet"}},
        {
            "1_Pooling/config.json": {
                "pooling_mode_mean_tokens": False,
                "pooling_mode_cls_token": True,
            }
        },
        {"1_Pooling/config.json": {"pooling_mode_max_tokens": True}},
        {"config.json": {"position_embedding_type": "relative_key"}},
    ],
)
def test_other_models_are_not_plain_bert_folders(
    minilm_folder: Path, tmp_path: Path, edit: dict[str, dict[str, object]]
) -> None:
    assert not plain_bert_folder(_copy_with(minilm_folder, tmp_path, edit))


def test_a_folder_without_tokenizer_json_is_not_plain_bert(
    minilm_folder: Path, tmp_path: Path
) -> None:
    copy = _copy_with(minilm_folder, tmp_path, {})
    (copy / "tokenizer.json").unlink()
    assert not plain_bert_folder(copy)


def test_other_models_are_read_by_sentence_transformers(
    minilm_folder: Path, tmp_path: Path
) -> None:
    copy = _copy_with(
        minilm_folder,
        tmp_path,
        {
            "1_Pooling/config.json": {
                "pooling_mode_mean_tokens": False,
                "pooling_mode_cls_token": True,
            }
        },
    )
    from sentence_transformers import SentenceTransformer

    assert isinstance(load_sentence_encoder(copy), SentenceTransformer)
    assert isinstance(load_sentence_encoder(minilm_folder), BertSentenceEncoder)


def test_word_pieces_and_offsets_are_the_fast_tokenizers(
    minilm_folder: Path, sentence_transformer: object
) -> None:
    mine = BertSentenceEncoder(minilm_folder).tokenizer
    reference = sentence_transformer.tokenizer  # type: ignore[attr-defined]
    for special in (False, True):
        got = mine(TEXTS, add_special_tokens=special, return_offsets_mapping=True)
        want = reference(
            TEXTS, add_special_tokens=special, truncation=False, return_offsets_mapping=True
        )
        assert got["input_ids"] == want["input_ids"]
        assert [[tuple(o) for o in row] for row in got["offset_mapping"]] == [
            [tuple(o) for o in row] for row in want["offset_mapping"]
        ]
    assert mine("When is rent due?")["input_ids"] == reference("When is rent due?")["input_ids"]


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("batch_size", [32, 3])
def test_vectors_are_sentence_transformers_bit_for_bit(
    minilm_folder: Path, sentence_transformer: object, normalize: bool, batch_size: int
) -> None:
    """Batches with and without padding, a cut text, an empty one, odd characters."""
    encoder = BertSentenceEncoder(minilm_folder)
    got = encoder.encode(TEXTS, batch_size=batch_size, normalize_embeddings=normalize)
    want = sentence_transformer.encode(  # type: ignore[attr-defined]
        TEXTS, batch_size=batch_size, normalize_embeddings=normalize, convert_to_numpy=True
    )
    assert got.dtype == np.float32
    assert np.array_equal(got, want)
    one = encoder.encode(TEXTS[:1])
    assert np.array_equal(one, sentence_transformer.encode(TEXTS[:1]))  # type: ignore[attr-defined]


def test_a_shorter_window_cuts_as_sentence_transformers_does(
    minilm_folder: Path, sentence_transformer: object
) -> None:
    encoder = BertSentenceEncoder(minilm_folder)
    encoder.max_seq_length = 16
    sentence_transformer.max_seq_length = 16  # type: ignore[attr-defined]
    try:
        want = sentence_transformer.encode(TEXTS)  # type: ignore[attr-defined]
    finally:
        sentence_transformer.max_seq_length = 256  # type: ignore[attr-defined]
    assert np.array_equal(encoder.encode(TEXTS), want)


def test_token_states_of_a_forward_call_are_the_same(
    minilm_folder: Path, sentence_transformer: object
) -> None:
    encoder = BertSentenceEncoder(minilm_folder)
    features = encoder.tokenizer.features(TEXTS[:4], 256)
    with torch.inference_mode():
        got = encoder(features)
        want = sentence_transformer(dict(features))  # type: ignore[operator]
    assert torch.equal(got["token_embeddings"], want["token_embeddings"])
    assert torch.equal(got["sentence_embedding"], want["sentence_embedding"])


def test_weights_that_do_not_fit_are_refused(minilm_folder: Path, tmp_path: Path) -> None:
    copy = _copy_with(minilm_folder, tmp_path, {"config.json": {"num_hidden_layers": 7}})
    with pytest.raises(RuntimeError, match="does not hold BERT weights"):
        BertSentenceEncoder(copy)


def test_the_shipped_scorer_scores_as_with_sentence_transformers() -> None:
    from citeguard.learned.bi_encoder import (
        EMBEDDINGS_PREFIX,
        BiEncoderScorer,
        base_embedder,
        transformer_of,
    )
    from citeguard.learned.saved_model import load_trained_weights
    from citeguard.learned.shipped import shipped_folder

    folder = shipped_folder("scorer")
    scorer = BiEncoderScorer(folder)
    assert isinstance(scorer.model, BertSentenceEncoder)
    reference = base_embedder(str(scorer.description["base_model"]), scorer.max_length)
    load_trained_weights(transformer_of(reference), folder, EMBEDDINGS_PREFIX, scorer.description)
    with torch.inference_mode():
        want = reference.encode(TEXTS, batch_size=32, normalize_embeddings=True)
    assert np.array_equal(scorer._vectors(TEXTS), want)


def test_a_questions_models_load_without_sentence_transformers_or_transformers() -> None:
    """What the encoder is for: the embedder, the scorer and the verifier ready in a fresh
    process with neither library imported."""
    program = (
        "import sys\n"
        "from citeguard.index.embedder import get_embedder\n"
        "from citeguard.learned.shipped import shipped_model\n"
        "get_embedder().embed_query('When is rent due?')\n"
        "pair = [('When is rent due?', 'Rent is due monthly.')]\n"
        "shipped_model('scorer').scores(pair)\n"
        "shipped_model('verifier').scores(pair)\n"
        "print(sorted(m for m in ('sentence_transformers', 'transformers') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=300
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"


PAIRS = [
    ("The rent is due on the first day of the month.", TEXTS[1]),
    (TEXTS[5], "Licensee may assign this Agreement."),  # the first cut
    ("Licensor may terminate on 30 days' notice.", TEXTS[5] + TEXTS[5]),  # the second cut
    ("", "a"),
    (TEXTS[4], TEXTS[7]),
]


def test_pairs_are_tokenized_as_the_fast_tokenizer_does(
    minilm_folder: Path, sentence_transformer: object
) -> None:
    mine = BertSentenceEncoder(minilm_folder).tokenizer
    reference = sentence_transformer.tokenizer  # type: ignore[attr-defined]
    firsts, seconds = [a for a, _ in PAIRS], [b for _, b in PAIRS]
    for length in (256, 40):
        got = mine.pair_features(firsts, seconds, length)
        want = reference(
            firsts,
            seconds,
            truncation="longest_first",
            max_length=length,
            padding=True,
            return_tensors="pt",
        )
        assert got["input_ids"].shape[1] <= length
        for name in ("input_ids", "token_type_ids", "attention_mask"):
            assert torch.equal(got[name], want[name]), name


def test_the_shipped_verifier_scores_as_with_transformers() -> None:
    from citeguard.learned.cross_encoder import (
        EMBEDDINGS_PREFIX,
        CrossEncoder,
        base_classifier,
    )
    from citeguard.learned.saved_model import load_trained_weights
    from citeguard.learned.shipped import shipped_folder

    folder = shipped_folder("verifier")
    verifier = CrossEncoder(folder)
    assert verifier.tokenizer is None, "the verifier should run without transformers"
    tokenizer, reference = base_classifier(str(verifier.description["base_model"]))
    load_trained_weights(reference, folder, EMBEDDINGS_PREFIX, verifier.description)
    firsts, seconds = [a for a, _ in PAIRS], [b for _, b in PAIRS]
    with torch.inference_mode():
        encoded = tokenizer(
            firsts,
            seconds,
            truncation="longest_first",
            max_length=verifier.max_length,
            padding=True,
            return_tensors="pt",
        )
        want = torch.sigmoid(reference(**encoded).logits.squeeze(-1)).tolist()
    assert np.array_equal(verifier.scores(PAIRS), np.asarray(want, dtype=np.float64))


def test_word_pieces_serve_threads_at_once(minilm_folder: Path) -> None:
    """The graph may read from several threads (LangGraph's pool, a server): pair
    tokenizers are made once per length and never reconfigured while in use."""
    from concurrent.futures import ThreadPoolExecutor

    pieces = BertSentenceEncoder(minilm_folder).tokenizer
    firsts, seconds = [a for a, _ in PAIRS], [b for _, b in PAIRS]
    lengths = [256, 40, 128] * 8
    expected = {n: pieces.pair_features(firsts, seconds, n)["input_ids"] for n in set(lengths)}
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda n: pieces.pair_features(firsts, seconds, n), lengths))
    assert all(
        torch.equal(result["input_ids"], expected[n])
        for n, result in zip(lengths, results, strict=True)
    )
