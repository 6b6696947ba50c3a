"""Chat models by spec string: ``"local"`` (the bundled llama.cpp model) or ``"provider:model"``.

Every chat model CiteGuard builds decodes at temperature 0, so that a question asked twice
gets the same answer and an evaluation can be repeated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from citeguard.errors import ModelUnavailableError
from citeguard.llm.chat_model import DEFAULT_MAX_TOKENS, LocalLlamaChatModel
from citeguard.llm.generation_cache import current_generation_cache
from citeguard.llm.local_llama import DEFAULT_N_CTX
from citeguard.llm.model_work import WorkCounter


def local_chat_model(
    grammar: str | None = None,
    model_path: str | Path | None = None,
    n_ctx: int = DEFAULT_N_CTX,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    work: WorkCounter | None = None,
) -> LocalLlamaChatModel:
    """A :class:`LocalLlamaChatModel`; cheap to create (the weights load once, on first use).

    ``work`` is the counter its calls add to (default: a new one, its ``work``). Inside a
    :func:`citeguard.llm.generation_cache.generation_cache` block, repeated calls are
    answered from that cache.
    """
    return LocalLlamaChatModel(
        cache=current_generation_cache(),
        model_path=str(model_path) if model_path else None,
        n_ctx=n_ctx,
        max_tokens=max_tokens,
        grammar=grammar,
        work=work if work is not None else WorkCounter(),
    )


def build_chat_model(
    spec: str = "local", work: WorkCounter | None = None, **kwargs: Any
) -> BaseChatModel:
    """Build a chat model from a spec string, always with temperature 0.

    ``"local"`` is the bundled llama.cpp model and ``"local:/path/model.gguf"`` any other GGUF
    file; ``"provider:model"`` (``"ollama:qwen2.5:7b"``, ``"openai:gpt-4o-mini"``) goes to
    LangChain's ``init_chat_model``, which needs the ``langchain`` package plus the
    provider's package (``langchain-ollama``, ``langchain-openai``, ...). ``work`` counts a
    local model's work; other providers' work is not counted.

    Raises:
        ModelUnavailableError: a needed package is missing (the message names it).
        ValueError: the spec has no provider prefix.
    """
    spec = spec.strip()
    if spec == "local" or spec.startswith("local:"):
        path = spec.partition(":")[2] or None
        return local_chat_model(model_path=path, work=work, **kwargs)
    provider, _, model = spec.partition(":")
    if not provider or not model:
        raise ValueError(
            f"chat model spec {spec!r} must be 'local', 'local:/path/model.gguf' or "
            "'provider:model' (e.g. 'ollama:qwen2.5:7b', 'openai:gpt-4o-mini')"
        )
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as exc:
        raise ModelUnavailableError(
            f"chat model {spec!r} needs LangChain's init_chat_model: pip install langchain "
            f"langchain-{provider.replace('_', '-')}"
        ) from exc
    try:
        return init_chat_model(model, model_provider=provider, temperature=0, **kwargs)
    except ImportError as exc:
        raise ModelUnavailableError(
            f"chat model {spec!r} needs its provider package: {exc}"
        ) from exc
