"""Turn provider responses into an ``LLMResponse``.

Streamed tool calls arrive in pieces: the id and name in the first delta of a call,
the JSON arguments split over many deltas, and several calls interleaved by their
``index``. ``StreamAssembler`` puts them back together. Arguments that are not a JSON
object become a ToolCall with ``parse_error`` set, so the engine can tell the model
what was wrong instead of the run crashing.

Chunks are read as plain mappings, so the assembler works the same on litellm's
objects (through ``model_dump``) and on dicts.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentls.agent.llm.models import LLMResponse, ToolCall


def as_mapping(obj: Any) -> Mapping[str, Any]:
    """A litellm/pydantic object or a dict, as a mapping."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        data = dump()
        if isinstance(data, Mapping):
            return data
    return dict(vars(obj))


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def parse_tool_call(call_id: str | None, name: str, raw: str | None) -> ToolCall:
    """A ToolCall from the model's raw argument text, never raising on bad JSON."""
    ident = call_id or new_call_id()
    text = raw or ""
    if not text.strip():
        return ToolCall(id=ident, name=name, arguments={})
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return ToolCall(
            id=ident,
            name=name,
            raw_arguments=text,
            parse_error=f"arguments are not valid JSON: {exc}",
        )
    if not isinstance(value, dict):
        return ToolCall(
            id=ident,
            name=name,
            raw_arguments=text,
            parse_error=f"arguments must be a JSON object, got {type(value).__name__}",
        )
    return ToolCall(id=ident, name=name, arguments=value)


def normalize_usage(usage: Any) -> dict[str, Any] | None:
    data = as_mapping(usage)
    if not data:
        return None
    prompt = int(data.get("prompt_tokens") or 0)
    completion = int(data.get("completion_tokens") or 0)
    total = int(data.get("total_tokens") or (prompt + completion))
    # Prompt-cache hits: OpenAI nests them, Anthropic (through litellm) reports them flat.
    details = as_mapping(data.get("prompt_tokens_details")) or {}
    cached = int(details.get("cached_tokens") or data.get("cache_read_input_tokens") or 0)
    counts: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total,
    }
    if cached:
        counts["cached_tokens"] = cached
    return counts


@dataclass
class _PartialCall:
    id: str | None = None
    name: str = ""
    arguments: str = ""


class StreamAssembler:
    """Collects streamed chunks; ``add`` returns each chunk's text, ``finish`` the response."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def finished(self) -> bool:
        """Whether the provider said why it stopped (a stream without it was cut short)."""
        return self._finish_reason is not None

    def add(self, chunk: Any) -> str:
        data = as_mapping(chunk)
        usage = normalize_usage(data.get("usage"))
        if usage is not None and usage["total_tokens"]:
            self._usage = usage
        pieces: list[str] = []
        for choice in data.get("choices") or ():
            choice_map = as_mapping(choice)
            delta = as_mapping(choice_map.get("delta"))
            content = delta.get("content")
            if isinstance(content, str) and content:
                pieces.append(content)
            for call in delta.get("tool_calls") or ():
                self._add_call_delta(as_mapping(call))
            reason = choice_map.get("finish_reason")
            if reason:
                self._finish_reason = str(reason)
        text = "".join(pieces)
        if text:
            self._text.append(text)
        return text

    def _add_call_delta(self, call: Mapping[str, Any]) -> None:
        index = call.get("index")
        if not isinstance(index, int):
            # Without an index, a delta with an id starts a call; one without continues it.
            index = len(self._calls) if call.get("id") or not self._calls else max(self._calls)
        partial = self._calls.setdefault(index, _PartialCall())
        if call.get("id") and not partial.id:
            partial.id = str(call["id"])
        function = as_mapping(call.get("function"))
        if function.get("name") and not partial.name:
            partial.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            partial.arguments += arguments

    def finish(self) -> LLMResponse:
        calls = [
            parse_tool_call(p.id, p.name, p.arguments)
            for _, p in sorted(self._calls.items())
            if p.name or p.arguments
        ]
        reason = self._finish_reason or ("tool_calls" if calls else "stop")
        return LLMResponse(
            content=self.text or None,
            tool_calls=calls,
            finish_reason=reason,
            usage=self._usage,
        )


def response_from_completion(response: Any) -> LLMResponse:
    """An ``LLMResponse`` from a non-streamed chat completion."""
    data = as_mapping(response)
    choices = data.get("choices") or []
    choice = as_mapping(choices[0]) if choices else {}
    message = as_mapping(choice.get("message"))
    calls = []
    for raw in message.get("tool_calls") or ():
        call = as_mapping(raw)
        function = as_mapping(call.get("function"))
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):
            # Some providers hand over parsed arguments; keep them as the model meant them.
            arguments = json.dumps(arguments)
        calls.append(
            parse_tool_call(
                str(call["id"]) if call.get("id") else None,
                str(function.get("name") or ""),
                arguments if isinstance(arguments, str) else None,
            )
        )
    content = message.get("content")
    reason = choice.get("finish_reason") or ("tool_calls" if calls else "stop")
    return LLMResponse(
        content=content if isinstance(content, str) and content else None,
        tool_calls=calls,
        finish_reason=str(reason),
        usage=normalize_usage(data.get("usage")),
    )
