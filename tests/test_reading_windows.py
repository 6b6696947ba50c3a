"""A sentence longer than the scorer's and verifier's window is read whole, in windows.

The models cut what does not fit their window; a clause late in a long contract sentence
was never read, so its exact quote scored as unsupported. These tests pin the windows and
their use by ``best_passages`` with a fake model that, like the real ones, reads only the
first words of a text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citeguard.learned.evidence import best_passages
from citeguard.text.passages import reading_windows, without_mark_runs

WINDOW = 10


def words(first: int, last: int) -> str:
    return " ".join(f"w{i}" for i in range(first, last))


def test_a_passage_within_the_window_is_read_as_it_is() -> None:
    text = words(0, WINDOW)
    assert reading_windows(text, WINDOW) == [text]


def test_a_longer_passage_is_read_whole_and_in_overlapping_windows_to_its_end() -> None:
    text = words(0, 35)
    read = reading_windows(text, WINDOW)
    assert read[0] == text
    windows = [w.split() for w in read[1:]]
    assert all(len(w) == WINDOW for w in windows)
    assert windows[-1][-1] == "w34"
    # Every word is read within some window of at most WINDOW words after the opening.
    seen = {word for w in windows for word in w}
    assert {f"w{i}" for i in range(WINDOW, 35)} <= seen
    # Consecutive windows overlap by half a window.
    assert windows[0][WINDOW // 2] == windows[1][0]


class FirstWordsScorer:
    """Reads only the first ``WINDOW`` words of a text, as a model cuts what does not fit:
    P(answers) is high when ``keyword`` is among them."""

    threshold = recall_threshold = passage_answer_threshold = 0.5
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def __init__(self, keyword: str) -> None:
        self.keyword = keyword

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        return np.array([0.9 if self.keyword in p.split()[:WINDOW] else 0.1 for _, p in pairs])


def test_a_clause_late_in_a_long_sentence_is_found_and_its_whole_sentence_returned() -> None:
    long_sentence = "The " + words(0, 30) + " assign " + words(30, 40) + "."
    text = "A short opening sentence. " + long_sentence + " Another short sentence."
    [best] = best_passages(FirstWordsScorer("assign"), "question", [text], passage_words=WINDOW)
    assert best.score == 0.9
    assert text[best.start : best.end] == long_sentence
    # A text the keyword is absent from still scores low.
    [other] = best_passages(FirstWordsScorer("assign"), "question", [words(0, 40)], WINDOW)
    assert other.score == 0.1


def test_runs_of_one_mark_are_cut_to_three_and_shorter_runs_kept() -> None:
    assert without_mark_runs("terms and " + "-" * 32 + " conditions") == "terms and --- conditions"
    assert without_mark_runs("Tenant: ________ Date: ____") == "Tenant: ___ Date: ___"
    assert without_mark_runs("Section 5 .......... 12") == "Section 5 ... 12"
    # A redaction mark and an ellipsis are read as written.
    assert without_mark_runs("[***] months ... and -- so") == "[***] months ... and -- so"


class RecordingScorer:
    """Scores every pair 0.5 and keeps what it was given to read."""

    threshold = recall_threshold = passage_answer_threshold = 0.5
    weak_passage_relevance_threshold = None
    passage_first_threshold = None

    def __init__(self) -> None:
        self.read: list[tuple[str, str]] = []

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.read.extend(pairs)
        return np.full(len(pairs), 0.5)


def test_models_read_without_ruled_lines_but_spans_are_the_texts_own() -> None:
    """A ruled line spends a model's window on marks; the passage found is still returned
    as the text writes it."""
    text = "Subject to the terms and " + "-" * 40 + " conditions, Tenant may sublet."
    scorer = RecordingScorer()
    [best] = best_passages(scorer, "Who may " + "_" * 10 + " sublet?", [text])
    assert scorer.read == [
        ("Who may ___ sublet?", "Subject to the terms and --- conditions, Tenant may sublet.")
    ]
    assert text[best.start : best.end] == text
