"""The local model as a LangChain chat model, taking its grammar per call.

Why not ``langchain_community``'s ``ChatLlamaCpp``: it loads its own ``llama_cpp.Llama`` in
every instance and fixes the grammar at construction. CiteGuard needs a different grammar per
question (the number of sources ``k`` differs), so each question would reload 1 GB of
weights. :class:`LocalLlamaChatModel` instead runs on the process's shared
:class:`~citeguard.llm.local_llama.LocalLlama` and takes the grammar per call
(``model.invoke(messages, grammar=...)`` or ``model.bind(grammar=...)``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from citeguard import environment
from citeguard.errors import PromptTooLongError
from citeguard.llm.decoding import DecodingRequest
from citeguard.llm.local_llama import (
    DEFAULT_N_CTX,
    LocalLlama,
    load_local_llama,
    without_control_tokens,
)
from citeguard.llm.model_work import WorkCounter

logger = logging.getLogger(__name__)

DEFAULT_MAX_TOKENS = 256  # four cited sentences fit easily; bounds a runaway decode


def to_llama_message(message: BaseMessage) -> dict[str, str]:
    """A LangChain message as llama.cpp's chat format takes it (role and text)."""
    if isinstance(message, SystemMessage):
        role = "system"
    elif isinstance(message, HumanMessage):
        role = "user"
    elif isinstance(message, AIMessage):
        role = "assistant"
    elif isinstance(message, ChatMessage) and message.role in ("system", "user", "assistant"):
        role = message.role
    else:
        raise ValueError(f"the local chat model cannot take a {type(message).__name__}")
    if not isinstance(message.content, str):
        raise ValueError("the local chat model takes text content only")
    return {"role": role, "content": message.content}


class LocalLlamaChatModel(BaseChatModel):
    """LangChain chat model over the shared in-process llama.cpp model.

    Decoding is greedy (temperature 0). ``grammar`` (GBNF text) constrains the output; pass
    a different one per call with ``invoke(messages, grammar=...)`` or ``.bind(grammar=...)``
    without reloading anything.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str | None = None
    """GGUF file; None means ``$CITEGUARD_GGUF`` or the bundled Qwen2.5-Coder-1.5B."""
    n_ctx: int = DEFAULT_N_CTX
    """Context window in tokens (prompt plus answer)."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Most tokens generated per call."""
    grammar: str | None = None
    """Default GBNF grammar; a ``grammar`` call argument overrides it."""
    work: WorkCounter = Field(default_factory=WorkCounter, exclude=True)
    """Where the model's work (tokens read and decoded, seconds) is counted."""

    @property
    def _llm_type(self) -> str:
        return "citeguard-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        # The file actually used: the generation cache must not serve one GGUF's outputs
        # for another (None still means the bundled model, keeping existing cache keys).
        model_path = self.model_path or environment.gguf_file()
        return {"model_path": model_path, "n_ctx": self.n_ctx, "max_tokens": self.max_tokens}

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> tuple[LocalLlama, DecodingRequest]:
        model = load_local_llama(self.model_path, self.n_ctx)
        grammar_text = kwargs.pop("grammar", self.grammar)
        if grammar_text:
            model.compile_grammar(grammar_text)  # a bad grammar fails here, not mid-decode
        request = DecodingRequest(
            messages=without_control_tokens([to_llama_message(m) for m in messages]),
            grammar_text=grammar_text,
            max_tokens=kwargs.pop("max_tokens", self.max_tokens),
            stop=stop,
        )
        if kwargs:
            logger.debug("ignoring unsupported call arguments %s", sorted(kwargs))
        # The whole answer budget must fit after the prompt: a prompt that leaves less would
        # cut the answer short. Counting costs a tokenization (milliseconds), no decoding.
        prompt, _ = model.prompt_tokens(request.messages)
        room = model.llama.n_ctx() - request.max_tokens
        if len(prompt) > room:
            raise PromptTooLongError(len(prompt), room)
        return model, request

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        model, request = self._request(messages, stop, dict(kwargs))
        content, finish = model.generate(request, self.work)
        message = AIMessage(
            content=content,
            response_metadata={"finish_reason": finish.finish_reason},
            usage_metadata={
                "input_tokens": finish.prompt_tokens,
                "output_tokens": finish.completion_tokens,
                "total_tokens": finish.prompt_tokens + finish.completion_tokens,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        model, request = self._request(messages, stop, dict(kwargs))
        for delta in model.stream(request, self.work):
            if not delta:
                continue
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=delta))
            if run_manager:
                run_manager.on_llm_new_token(delta, chunk=chunk)
            yield chunk
