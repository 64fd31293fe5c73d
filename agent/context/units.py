"""The history cut into units, the only places where compaction may cut.

An assistant message with ``tool_calls`` travels with all of its ``tool`` results
(providers reject a call without its result, or a result without its call), and a plain
assistant message travels with the user messages that answer it. The notes compaction
leaves (a summary, the marker of dropped steps) are units of their own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentls.agent.context.messages import Message

SUMMARY_PREFIX = "[Summary of earlier steps]"
DROPPED_RE = re.compile(r"^\[(\d+) earlier steps? (?:was|were) dropped to fit the context window\]")


@dataclass
class Unit:
    """Messages that must stay together: a tool exchange, a plain turn, or a note."""

    messages: list[Message]
    kind: str  # "exchange" | "turn" | "user" | "summary" | "marker"

    @property
    def is_step(self) -> bool:
        return self.kind in ("exchange", "turn")


def has_tool_calls(message: Message) -> bool:
    return message.get("role") == "assistant" and bool(message.get("tool_calls"))


def count_tool_exchanges(messages: Sequence[Message]) -> int:
    """Assistant messages with a non-empty ``tool_calls``: the steps level 2 counts."""
    return sum(1 for message in messages if has_tool_calls(message))


def message_text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def head_length(messages: Sequence[Message]) -> int:
    """How many leading messages are never touched: the system messages and the
    first user message (the task)."""
    for index, message in enumerate(messages):
        if message.get("role") == "user":
            return index + 1
    return len(messages)


def _run_end(messages: Sequence[Message], start: int, role: str) -> int:
    """Where the run of ``role`` messages that begins at ``start`` ends."""
    end = start
    while end < len(messages) and messages[end].get("role") == role:
        end += 1
    return end


def split_units(messages: Sequence[Message]) -> list[Unit]:
    units: list[Unit] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        role = message.get("role")
        if has_tool_calls(message):
            end = _run_end(messages, i + 1, "tool")
            units.append(Unit(list(messages[i:end]), "exchange"))
            i = end
            continue
        if role == "assistant":
            text = message_text(message)
            if text.startswith(SUMMARY_PREFIX):
                units.append(Unit([message], "summary"))
                i += 1
                continue
            if DROPPED_RE.match(text):
                units.append(Unit([message], "marker"))
                i += 1
                continue
            end = _run_end(messages, i + 1, "user")
            units.append(Unit(list(messages[i:end]), "turn"))
            i = end
            continue
        # A user message on its own (after a tool exchange), or anything unexpected
        # such as an orphan tool message: kept as a unit of its own, never merged.
        units.append(Unit([message], "user"))
        i += 1
    return units


def flatten(units: Sequence[Unit]) -> list[Message]:
    return [message for unit in units for message in unit.messages]


def dropped_marker(dropped: int) -> Message:
    noun = "step was" if dropped == 1 else "steps were"
    return {
        "role": "assistant",
        "content": f"[{dropped} earlier {noun} dropped to fit the context window]",
    }
