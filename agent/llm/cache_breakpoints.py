"""Prompt-cache breakpoints for the providers that want them marked (Anthropic).

OpenAI, DeepSeek and Gemini cache a request's longest shared prefix on their own;
Anthropic caches only up to blocks marked ``cache_control``. litellm passes that
marker through on message content blocks, so the request gets two: the end of the
system prompt (stable for the whole run) and the end of the latest message (the
prefix the next step extends). The history itself is never changed; only the copy
sent is.
"""

from __future__ import annotations

from typing import Any

_EPHEMERAL = {"type": "ephemeral"}
_MARKED_FAMILIES = ("anthropic/", "claude", "bedrock/anthropic.", "vertex_ai/claude")


def needs_breakpoints(model: str) -> bool:
    """Whether ``model`` (a litellm model name) caches only marked prefixes."""
    name = model.lower()
    return any(name.startswith(family) or f"/{family}" in name for family in _MARKED_FAMILIES)


def _marked(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    if isinstance(content, str) and content:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": content}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        blocks = [dict(block) for block in content]
    else:
        return message  # an assistant message with only tool calls: nothing to mark
    blocks[-1] = {**blocks[-1], "cache_control": _EPHEMERAL}
    return {**message, "content": blocks}


def with_breakpoints(model: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with cache breakpoints when ``model`` needs them, else unchanged."""
    if not messages or not needs_breakpoints(model):
        return messages
    out = list(messages)
    last = len(out) - 1
    for index, message in enumerate(out):
        if message.get("role") == "system" and index != last:
            out[index] = _marked(message)
            break
    out[last] = _marked(out[last])
    return out
