"""Domain errors with messages precise enough to act on."""

from __future__ import annotations

from pathlib import Path


class CiteGuardError(Exception):
    """Base class for every error CiteGuard raises on purpose."""


class ParsingError(CiteGuardError):
    """A document could not be parsed; names the file and, when known, the page."""

    def __init__(self, path: str | Path, reason: str, page: int | None = None) -> None:
        self.path = str(path)
        self.reason = reason
        self.page = page
        where = f"{Path(self.path).name}" + (f", page {page}" if page is not None else "")
        super().__init__(f"{where}: {reason}")


class IndexStoreError(CiteGuardError):
    """The on-disk index is missing, corrupt or incompatible with the requested settings."""


class IndexNotFoundError(IndexStoreError):
    """No index exists at the given path."""


class IncompatibleIndexError(IndexStoreError):
    """The index was built with another embedding model, dimension or format version."""


class ModelUnavailableError(CiteGuardError):
    """A model's weights or runtime are not installed; the message says what to install."""


class InvalidSettingError(CiteGuardError, ValueError):
    """A run setting (Context field) has a bad value or an unknown name."""


class InvalidQuestionError(CiteGuardError, ValueError):
    """A question that cannot be asked: empty, too long, or holding control characters."""


class AccessDeniedError(CiteGuardError, PermissionError):
    """A served graph was asked for a path or index outside what the operator allowed."""


class PromptTooLongError(ValueError):
    """A prompt that would leave the model less room than its answer's token budget.

    Not a :class:`CiteGuardError`: drafting answers it by showing the model fewer source
    words (``citeguard.graph.nodes.common.draft_candidate``), not by stopping the run.
    """

    def __init__(self, prompt_tokens: int, room: int) -> None:
        super().__init__(
            f"prompt has {prompt_tokens:,} tokens, over the {room:,} the model's context "
            "leaves beside the answer"
        )
        self.prompt_tokens = prompt_tokens
        self.room = room
