"""Token counts with tiktoken alone, for processes that must not import litellm.

The language server counts tokens to keep the context under the model's limit, while the
model calls run in the worker process. Importing litellm there only to count would cost
~160 MB and a ~3 s import; tiktoken alone costs a few MB plus the encoding. Counts follow
OpenAI's chat formula (as litellm's ``token_counter`` does for OpenAI models): three
tokens per message, the content, the name, the tool calls' names and arguments, and three
for the reply's priming. Other providers' models are counted with ``cl100k_base``, an
estimate like litellm's own for models it has no tokenizer for.

tiktoken downloads an encoding the first time unless it is cached. litellm ships the
encodings as data files; they are used from its installed package without importing it,
so counting works offline.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# Model families with OpenAI's newer tokenizer.
_O200K = re.compile(r"^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o\d|chatgpt-4o|codex)", re.IGNORECASE)
_PER_MESSAGE = 3
_REPLY_PRIMING = 3

_lock = threading.Lock()


def encoding_name(model: str) -> str:
    """The tiktoken encoding used for ``model`` (provider prefixes ignored)."""
    name = model.rsplit("/", 1)[-1]
    return "o200k_base" if _O200K.match(name) else "cl100k_base"


def _bundled_cache_dir() -> str | None:
    """litellm's directory of tiktoken encodings, found without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / "litellm_core_utils" / "tokenizers"
        if candidate.is_dir():
            return str(candidate)
    return None


@lru_cache(maxsize=4)
def _encoding(name: str) -> Any:
    with _lock:
        if "TIKTOKEN_CACHE_DIR" not in os.environ:
            bundled = _bundled_cache_dir()
            if bundled is not None:
                os.environ["TIKTOKEN_CACHE_DIR"] = bundled
        import tiktoken

        return tiktoken.get_encoding(name)


def count_message_tokens(model: str, messages: list[dict[str, Any]]) -> int | None:
    """Tokens ``messages`` cost for ``model``; None when no encoding can be loaded."""
    try:
        encoding = _encoding(encoding_name(model))
    except Exception:  # no tiktoken, no cached encoding and no network: estimate instead
        log.debug("no tiktoken encoding for %s; estimating", model, exc_info=True)
        return None

    def tokens(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    total = _REPLY_PRIMING
    for message in messages:
        total += _PER_MESSAGE
        content = message.get("content")
        if isinstance(content, str):
            total += tokens(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    total += tokens(part["text"])
        if isinstance(message.get("role"), str):
            total += tokens(message["role"])
        if isinstance(message.get("name"), str):
            total += 1 + tokens(message["name"])
        for call in message.get("tool_calls") or ():
            function = (call.get("function") or {}) if isinstance(call, dict) else {}
            total += tokens(str(function.get("name", ""))) + tokens(
                str(function.get("arguments", ""))
            )
    return total


CHARS_PER_TOKEN = 4


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """About four characters per token, over everything the model will read."""
    chars = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            chars += sum(
                len(str(part.get("text", ""))) for part in content if isinstance(part, dict)
            )
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            chars += len(str(function.get("name", ""))) + len(str(function.get("arguments", "")))
        chars += CHARS_PER_TOKEN  # role and framing
    return max(0, chars // CHARS_PER_TOKEN)
