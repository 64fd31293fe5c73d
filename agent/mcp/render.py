"""Turns an MCP tool result into the text of a tool message.

Text stays text; structured content and embedded resources become JSON or their
text; images, audio and binary blobs are summarised (``[image: image/png, 12.3 KB]``)
because base64 costs context and tells the model nothing. The whole is bounded.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import mcp_types as types

#: Characters of rendered output kept; the loop's own truncation applies on top.
DEFAULT_LIMIT = 20_000


def _size(data: str) -> str:
    try:
        count = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        count = len(data) * 3 // 4
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def render_block(block: types.ContentBlock) -> str:
    """One content block as text."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image: {block.mime_type}, {_size(block.data)}]"
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {_size(block.data)}]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        mime = resource.mime_type or "unknown type"
        if isinstance(resource, types.TextResourceContents):
            return f"[resource {resource.uri} ({mime})]\n{resource.text}"
        return f"[resource {resource.uri}: {mime}, {_size(resource.blob)}]"
    if isinstance(block, types.ResourceLink):
        mime = f" ({block.mime_type})" if block.mime_type else ""
        return f"[resource link: {block.uri}{mime}]"
    return _json(block.model_dump(mode="json", by_alias=True, exclude_none=True))


def render_result(result: types.CallToolResult, *, limit: int = DEFAULT_LIMIT) -> str:
    """The whole result as text, at most ``limit`` characters (plus a truncation note)."""
    parts = [render_block(block) for block in result.content]
    structured = result.structured_content
    if structured is not None:
        text = _json(structured)
        # Servers usually mirror structured content as a text block: showing it twice wastes
        # context, so it is added only when no block already carries the same data.
        if not any(_same_json(part, structured) for part in parts):
            parts.append(text)
    rendered = "\n".join(part for part in parts if part) or "(the tool returned no content)"
    if len(rendered) > limit:
        cut = len(rendered) - limit
        rendered = f"{rendered[:limit]}\n[... {cut} more characters not shown]"
    return rendered


def _same_json(text: str, value: Any) -> bool:
    # The SDK wraps non-object returns as {"result": ...}; the text block holds the bare value.
    if isinstance(value, dict) and set(value) == {"result"} and _same_json(text, value["result"]):
        return True
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return text == str(value)
