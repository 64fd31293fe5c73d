"""The token estimate used where no tokenizer is at hand: about four characters a token."""

from __future__ import annotations

from typing import Any

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
