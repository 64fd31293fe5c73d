"""Token counts for the context manager, with tiktoken alone (never litellm).

litellm's ``token_counter`` would cost the process that counts ~160 MB of imports; the
server only needs counts to keep the history inside the window, so it uses tiktoken
directly, the same tokenizer litellm uses for OpenAI models and its default for the
others. tiktoken downloads its BPE files on first use unless they are cached; litellm
ships them in its package (``litellm_core_utils/tokenizers``), so that folder, found
without importing litellm, is the cache by default. When no encoding can be loaded
(offline without the files), counts fall back to about four characters per token,
said once in the log.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# Per message: role and framing, as OpenAI's chat format adds.
_MESSAGE_OVERHEAD = 4

_lock = threading.Lock()
_encodings: dict[str, Any] = {}
_warned = False


def _bundled_cache_dir() -> Path | None:
    """litellm's folder of tiktoken files, located without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


def encoding_name(model: str | None) -> str:
    """o200k_base for the GPT-4o, GPT-4.1, GPT-5 and o-series families, else cl100k_base."""
    name = (model or "").rsplit("/", 1)[-1].lower()
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")):
        return "o200k_base"
    return "cl100k_base"


def _encoding(name: str) -> Any | None:
    global _warned
    with _lock:
        if name in _encodings:
            return _encodings[name]
        if "TIKTOKEN_CACHE_DIR" not in os.environ:
            bundled = _bundled_cache_dir()
            if bundled is not None:
                os.environ["TIKTOKEN_CACHE_DIR"] = str(bundled)
        try:
            import tiktoken

            encoding: Any | None = tiktoken.get_encoding(name)
        except Exception as exc:
            encoding = None
            if not _warned:
                _warned = True
                log.warning(
                    "tiktoken encoding %s unavailable (%s); token counts are estimated "
                    "at four characters per token",
                    name,
                    exc,
                )
        _encodings[name] = encoding
        return encoding


def _texts(message: dict[str, Any]) -> list[str]:
    texts: list[str] = []
    content = message.get("content")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        texts.extend(str(part.get("text", "")) for part in content if isinstance(part, dict))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        texts.append(str(function.get("name", "")))
        texts.append(str(function.get("arguments", "")))
    return texts


def count_tokens(messages: list[dict[str, Any]], model: str | None = None) -> int:
    """Tokens the model reads for ``messages`` (content, tool calls, per-message framing)."""
    encoding = _encoding(encoding_name(model))
    total = 0
    for message in messages:
        total += _MESSAGE_OVERHEAD
        for text in _texts(message):
            if not text:
                continue
            if encoding is None:
                total += len(text) // 4
            else:
                total += len(encoding.encode(text, disallowed_special=()))
    return total


def warm_up(model: str | None = None) -> None:
    """Load the model's encoding now (~100 ms) so the first step of a run does not."""
    count_tokens([{"role": "user", "content": "warm up"}], model)
