"""How the model runs: the provider factory and the local llama.cpp model.

- :mod:`~citeguard.llm.providers`: chat models by spec ("local", "provider:model").
- :mod:`~citeguard.llm.local_llama`: :class:`LocalLlama`, one loaded llama.cpp model with
  its lock, KV snapshots, grammars and decoding plan; :mod:`~citeguard.llm.chat_model` (the
  LangChain chat model) and :mod:`~citeguard.llm.judge` (the yes/no judge) run on it.
- :mod:`~citeguard.llm.weights`: the bundled GGUF, assembled from its parts, and its Q8_0 copy.
- :mod:`~citeguard.llm.decoding`: the greedy decoding loop; the speed-ups it may use live
  apart, in :mod:`~citeguard.llm.lookup_decoding` (guessed tokens, pure) and
  :mod:`~citeguard.llm.amx` (Intel AMX kernels).
- :mod:`~citeguard.llm.llama_internals`: every use of llama-cpp-python's private parts.
- :mod:`~citeguard.llm.kv_snapshots`, :mod:`~citeguard.llm.model_work`,
  :mod:`~citeguard.llm.generation_cache`, :mod:`~citeguard.llm.waiting`: their parts.
"""
