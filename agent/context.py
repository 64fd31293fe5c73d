"""The conversation sent to the model, and the three levels that keep it in the window.

``ContextBuilder`` shapes plain OpenAI-format messages: the system prompt (with the
project tree), the user prompt, each step's assistant ``tool_calls`` message followed
by one ``tool`` message per call, and plain assistant/user turns.

``ContextManager`` keeps that list inside the model's context window, in three levels:

1. ``truncate_tool_result`` bounds every tool result before it enters the history
   (head and tail lines, or head and tail characters for a single huge line).
2. ``maybe_compress`` replaces the older steps with a summary written by the model,
   in one block, once the context passes the high-water mark (``compact_at`` of
   ``max_context_tokens``) or, when configured, ``summarize_after_steps`` exchanges.
3. ``enforce_window`` drops the oldest steps when the estimate still exceeds
   ``max_context_tokens``, down to the low-water mark, leaving a marker that says so.

Provider prompt caches reuse the longest prefix a request shares with the previous
one, so between compactions the history only ever grows at its end: nothing is
rewritten in place, and a compaction makes room for many steps at once (down to the
low-water mark ``compact_to``) instead of trimming a little on every step.

Levels 2 and 3 only ever cut between *units*: an assistant message with
``tool_calls`` travels with all of its ``tool`` results (providers reject a call
without its result, or a result without its call), and a plain assistant message
travels with the user messages that answer it. Every level is disabled by a 0.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agentls.agent.config import ContextConfig
from agentls.agent.llm.models import LLMResponse
from agentls.agent.llm.protocol import LLM
from agentls.agent.llm.tokens import CHARS_PER_TOKEN, estimate_tokens
from agentls.agent.transcript import ToolCallResult

log = logging.getLogger(__name__)

Message = dict[str, Any]
TokenCounter = Callable[[list[Message]], Awaitable[int]]

PROJECT_STRUCTURE_HEADING = "## Project structure"
SUMMARY_PREFIX = "[Summary of earlier steps]"
_DROPPED_RE = re.compile(
    r"^\[(\d+) earlier steps? (?:was|were) dropped to fit the context window\]"
)

# Lines kept by level 1 when a result has many lines: the start of a file usually says
# what it is (imports, headings) and the end where it stops.
HEAD_LINES = 40
TAIL_LINES = 20
# Room left for the character marker so a cut result stays within its budget.
_CHAR_MARKER_RESERVE = 50

# The transcript handed to the summariser is itself bounded: each message is cut to
# this many characters, since what matters is what was done, not every byte read.
_TRANSCRIPT_ENTRY_CHARS = 1200
# Room kept for the summary itself when choosing what stays after a compaction.
_SUMMARY_RESERVE_TOKENS = 600

SUMMARY_SYSTEM_PROMPT = """\
You compress the history of a coding agent so it can keep working without losing the \
thread. Write a summary of about 200 words, in plain prose or short bullets, covering:
- what has been done so far, step by step in brief;
- the files read, created or modified (exact paths);
- decisions taken and facts learned that later steps rely on (names, errors, results);
- what remains to be done to finish the task.
Do not invent anything that is not in the transcript. Reply with the summary only."""

# Asked at the end of the conversation itself, so the request extends the previous
# one and the provider's prompt cache serves everything before it.
SUMMARY_REQUEST = """\
Pause the task: the conversation above is about to be shortened. Write a summary of \
about 200 words, in plain prose or short bullets, covering:
- what has been done so far, step by step in brief;
- your current plan;
- the files read, created or modified (exact paths) and their latest state as far as it \
matters for the rest of the task;
- decisions taken and facts learned that later steps rely on (names, errors, results);
- what remains to be done to finish the task.
Do not call any tool. Do not invent anything. Reply with the summary only."""


def truncate_text(content: str, max_tokens: int) -> str:
    """Level 1 as a pure function: bound ``content`` to about ``max_tokens * 4`` chars.

    Many lines keep the first 40 and last 20 with ``[... N lines omitted ...]``. When
    that is still too long (very long lines) or there are few lines (a minified file),
    the text is cut by characters instead, so the result never exceeds the budget.
    """
    if max_tokens <= 0:
        return content
    max_chars = max_tokens * CHARS_PER_TOKEN
    if len(content) <= max_chars:
        return content
    lines = content.split("\n")
    if len(lines) > HEAD_LINES + TAIL_LINES:
        omitted = len(lines) - HEAD_LINES - TAIL_LINES
        by_lines = (
            "\n".join(lines[:HEAD_LINES])
            + f"\n[... {omitted} lines omitted ...]\n"
            + "\n".join(lines[-TAIL_LINES:])
        )
        if len(by_lines) <= max_chars:
            return by_lines
    budget = max(max_chars - _CHAR_MARKER_RESERVE, 0)
    head = budget * 2 // 3
    tail = budget - head
    omitted_chars = len(content) - head - tail
    tail_text = content[len(content) - tail :] if tail else ""
    return content[:head] + f"\n[... {omitted_chars} characters omitted ...]\n" + tail_text


def format_tool_result(result: ToolCallResult) -> str:
    """What the model reads for one call: the output, plus the error when it adds to it."""
    output = result.result.output
    error = result.result.error
    if error and error.strip() != output.strip():
        return f"{output}\n\nError: {error}" if output else f"Error: {error}"
    return output


class CallLike(Protocol):
    """A requested tool call: the model's ToolCall or one read back from a session."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> dict[str, Any]: ...


def assistant_tool_calls_message(content: str | None, calls: Sequence[CallLike]) -> Message:
    """The OpenAI-format assistant message that asks for ``calls``."""
    return {
        "role": "assistant",
        "content": content or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    # The parsed arguments, never the raw string: some providers'
                    # adapters re-parse the history and fail on invalid JSON. A
                    # parse error reaches the model through the tool result instead.
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in calls
        ],
    }


class ContextBuilder:
    """Builds and extends the message list of a run; every method returns a new list."""

    def __init__(
        self,
        context_config: ContextConfig,
        tree: Callable[[], str | None] | None = None,
    ) -> None:
        self.config = context_config
        self._tree = tree

    def build_initial(self, system_prompt: str, prompt: str) -> list[Message]:
        """``[system, user]``; the project tree is asked for now, so a live index shows
        the files created since the previous run."""
        system = system_prompt
        tree = self._project_tree()
        if tree:
            system = f"{system_prompt}\n\n{PROJECT_STRUCTURE_HEADING}\n{tree}"
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt},
        ]

    def append_tool_results(
        self,
        messages: Sequence[Message],
        response: LLMResponse,
        results: Sequence[ToolCallResult],
    ) -> list[Message]:
        """The assistant's ``tool_calls`` message, then one ``tool`` message per call.

        Results are matched to calls by ``call_id`` when every result carries one,
        otherwise by position; the tool messages follow the order the model asked in.
        A call without a result still gets a tool message, because a dangling call
        makes the provider reject the whole request.
        """
        assistant = assistant_tool_calls_message(response.content, response.tool_calls)
        by_id: dict[str, ToolCallResult] = {}
        if results and all(r.call_id for r in results):
            by_id = {r.call_id: r for r in results}
        out = [*messages, assistant]
        for index, call in enumerate(response.tool_calls):
            match: ToolCallResult | None
            if by_id:
                match = by_id.get(call.id)
            else:
                match = results[index] if index < len(results) else None
            content = (
                format_tool_result(match)
                if match is not None
                else "Error: this tool call was not executed."
            )
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": truncate_text(content, self.config.max_tool_result_tokens),
                }
            )
        return out

    def append_assistant_message(self, messages: Sequence[Message], content: str) -> list[Message]:
        return [*messages, {"role": "assistant", "content": content}]

    def append_user_message(self, messages: Sequence[Message], content: str) -> list[Message]:
        return [*messages, {"role": "user", "content": content}]

    def _project_tree(self) -> str | None:
        if self._tree is None:
            return None
        try:
            tree = self._tree()
        except Exception:
            # A broken index must not stop the run: the model can still list files.
            log.warning("project tree provider failed; prompt sent without a tree", exc_info=True)
            return None
        return tree if tree and tree.strip() else None


# --------------------------------------------------------------------------- units


@dataclass
class _Unit:
    """Messages that must stay together: a tool exchange, a plain turn, or a note."""

    messages: list[Message]
    kind: str  # "exchange" | "turn" | "user" | "summary" | "marker"

    @property
    def is_step(self) -> bool:
        return self.kind in ("exchange", "turn")


def _has_tool_calls(message: Message) -> bool:
    return message.get("role") == "assistant" and bool(message.get("tool_calls"))


def count_tool_exchanges(messages: Sequence[Message]) -> int:
    """Assistant messages with a non-empty ``tool_calls``: the steps level 2 counts."""
    return sum(1 for message in messages if _has_tool_calls(message))


def _text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    return json.dumps(content, ensure_ascii=False)


def _head_length(messages: Sequence[Message]) -> int:
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


def _split_units(messages: Sequence[Message]) -> list[_Unit]:
    units: list[_Unit] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        role = message.get("role")
        if _has_tool_calls(message):
            end = _run_end(messages, i + 1, "tool")
            units.append(_Unit(list(messages[i:end]), "exchange"))
            i = end
            continue
        if role == "assistant":
            text = _text(message)
            if text.startswith(SUMMARY_PREFIX):
                units.append(_Unit([message], "summary"))
                i += 1
                continue
            if _DROPPED_RE.match(text):
                units.append(_Unit([message], "marker"))
                i += 1
                continue
            end = _run_end(messages, i + 1, "user")
            units.append(_Unit(list(messages[i:end]), "turn"))
            i = end
            continue
        # A user message on its own (after a tool exchange), or anything unexpected
        # such as an orphan tool message: kept as a unit of its own, never merged.
        units.append(_Unit([message], "user"))
        i += 1
    return units


def _flatten(units: Sequence[_Unit]) -> list[Message]:
    return [message for unit in units for message in unit.messages]


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f" [... {len(text) - limit} characters omitted]"


def _transcript(messages: Sequence[Message]) -> str:
    """The older messages as readable text for the summariser."""
    lines: list[str] = []
    for message in messages:
        role = message.get("role")
        text = _text(message)
        if role == "assistant":
            if text:
                lines.append(f"Assistant: {_clip(text, _TRANSCRIPT_ENTRY_CHARS)}")
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                lines.append(
                    "Tool call "
                    f"{function.get('name', '?')}"
                    f"({_clip(str(function.get('arguments', '')), 300)})"
                )
        elif role == "tool":
            lines.append(f"Tool result: {_clip(text, _TRANSCRIPT_ENTRY_CHARS)}")
        else:
            lines.append(f"{str(role).capitalize()}: {_clip(text, _TRANSCRIPT_ENTRY_CHARS)}")
    return "\n".join(lines)


def _marker(dropped: int) -> Message:
    noun = "step was" if dropped == 1 else "steps were"
    return {
        "role": "assistant",
        "content": f"[{dropped} earlier {noun} dropped to fit the context window]",
    }


async def _estimate(messages: list[Message]) -> int:
    return estimate_tokens(messages)


class ContextManager:
    """The three levels of context management, configured by ``ContextConfig``.

    ``token_counter`` is normally the model's ``count_tokens`` (litellm's counter for
    the configured model); without one, levels 2 and 3 use ``estimate_tokens`` (four
    characters a token).
    """

    def __init__(
        self,
        config: ContextConfig,
        token_counter: TokenCounter | None = None,
    ) -> None:
        self.config = config
        self._count = token_counter or _estimate

    # ----------------------------------------------------------------- level 1

    def truncate_tool_result(self, content: str) -> str:
        """Level 1: see ``truncate_text``; ``max_tool_result_tokens=0`` disables it."""
        return truncate_text(content, self.config.max_tool_result_tokens)

    # ----------------------------------------------------------------- level 2

    async def maybe_compress(
        self,
        messages: list[Message],
        llm: LLM,
        tools: list[Message] | None = None,
    ) -> list[Message]:
        """Level 2: summarise the older steps with one model call, in one block.

        It runs when the estimate passes the high-water mark (``compact_at`` of
        ``max_context_tokens``); the recent exchanges that fit under the low-water mark
        (``compact_to``) are kept whole, at least the latest one. With
        ``summarize_after_steps`` set it also runs after that many exchanges and keeps
        ``keep_recent_steps`` of them.

        Returns ``[system, task, summary, *later user messages, *recent]``, so a cut
        never separates a call from its results. User messages written after the task
        are kept verbatim (after the summary, in their order) rather than paraphrased:
        they are the human's instructions, usually short, and a summary must not be
        able to lose them. A previous summary is part of what gets summarised, so the
        thread survives repeated compressions. The summary is asked for at the end of
        the conversation itself, with the run's ``tools``, so that request is served
        from the prompt cache; only when the history is already over the limit is a
        bounded transcript sent instead. If the model call fails or returns nothing,
        the messages are returned unchanged.
        """
        by_steps = (
            self.config.summarize_after_steps > 0
            and count_tool_exchanges(messages) > self.config.summarize_after_steps
        )
        high = self._mark(self.config.compact_at)
        size = await self._count(messages) if high else 0
        by_tokens = bool(high) and size > high
        if not (by_steps or by_tokens):
            return messages

        head_len = _head_length(messages)
        head, units = list(messages[:head_len]), _split_units(messages[head_len:])
        exchange_positions = [i for i, unit in enumerate(units) if unit.kind == "exchange"]
        if not exchange_positions:
            return messages
        if by_steps:
            # At least the latest exchange stays whole even with keep_recent_steps=0:
            # the history must end with the tool results the model is about to
            # answer, not with an assistant message some providers would read as a
            # prefill.
            keep = max(self.config.keep_recent_steps, 1)
            if keep >= len(exchange_positions):
                return messages
            cut = exchange_positions[-keep]
        else:
            cut = await self._low_water_cut(head, units, exchange_positions)
        old, recent = units[:cut], units[cut:]
        if not any(unit.is_step for unit in old):
            return messages

        limit = self.config.max_context_tokens
        request: list[Message]
        if limit <= 0 or (size or await self._count(messages)) <= limit:
            request = [*messages, {"role": "user", "content": SUMMARY_REQUEST}]
        else:
            tools = None
            request = [
                {"role": "system", "content": SUMMARY_SYSTEM_PROMPT},
                {
                    "role": "user",
                    "content": "The task:\n"
                    + _text(head[-1] if head else {})
                    + "\n\nThe steps to summarise:\n"
                    + _transcript(_flatten(old)),
                },
            ]
        try:
            response = await llm.completion(request, tools=tools)
        except Exception:
            log.debug("summarising older steps failed; history kept as is", exc_info=True)
            return messages
        summary = (response.content or "").strip()
        if not summary:
            log.debug("summariser returned no text; history kept as is")
            return messages

        later_users = [
            message for unit in old for message in unit.messages if message.get("role") == "user"
        ]
        log.debug("context compacted: %d units summarised, %d kept", len(old), len(recent))
        return [
            *head,
            {"role": "assistant", "content": f"{SUMMARY_PREFIX}\n{summary}"},
            *later_users,
            *_flatten(recent),
        ]

    def _mark(self, share: float) -> int:
        """A water mark in tokens, or 0 when there is no limit to take a share of."""
        limit = self.config.max_context_tokens
        if limit <= 0 or share <= 0:
            return 0
        return int(limit * share)

    async def _low_water_cut(
        self, head: list[Message], units: list[_Unit], exchange_positions: list[int]
    ) -> int:
        """The first unit kept: the most recent exchanges whose total fits under the
        low-water mark (room left for the summary), never fewer than the latest one."""
        budget = (self._mark(self.config.compact_to) or self.config.max_context_tokens) - (
            await self._count(head) + _SUMMARY_RESERVE_TOKENS
        )
        cut = exchange_positions[-1]
        used = sum([await self._count(unit.messages) for unit in units[cut:]])
        for position in reversed(exchange_positions[:-1]):
            cost = sum([await self._count(unit.messages) for unit in units[position:cut]])
            if used + cost > budget:
                break
            used += cost
            cut = position
        return cut

    # ----------------------------------------------------------------- level 3

    async def enforce_window(self, messages: list[Message]) -> list[Message]:
        """Level 3: once over ``max_context_tokens``, drop the oldest steps down to the
        low-water mark (``compact_to``) at once, so the next steps grow the history
        again instead of dropping one step each.

        The system messages, the task and the latest tool exchange (and anything after
        it) always stay; a summary goes only when nothing else is left to drop. The
        dropped steps are counted in a marker message (updated if one exists) placed
        after the summary, so the model knows part of its history is missing.
        """
        limit = self.config.max_context_tokens
        if limit <= 0 or await self._count(messages) <= limit:
            return messages

        head_len = _head_length(messages)
        head, units = list(messages[:head_len]), _split_units(messages[head_len:])
        summary = next((u for u in units if u.kind == "summary"), None)
        previous = next((u for u in units if u.kind == "marker"), None)
        already_dropped = 0
        if previous is not None:
            found = _DROPPED_RE.match(_text(previous.messages[0]))
            already_dropped = int(found.group(1)) if found else 0

        exchange_positions = [i for i, u in enumerate(units) if u.kind == "exchange"]
        protect_from = exchange_positions[-1] if exchange_positions else len(units) - 1
        candidates = [
            u for i, u in enumerate(units[:protect_from]) if u.kind not in ("summary", "marker")
        ]
        body = [u for u in units if u.kind not in ("summary", "marker")]

        dropped_ids: set[int] = set()
        dropped_steps = 0
        keep_summary = summary is not None

        def assemble() -> list[Message]:
            kept = [u for u in body if id(u) not in dropped_ids]
            total = already_dropped + dropped_steps
            notes: list[Message] = []
            if keep_summary and summary is not None:
                notes.extend(summary.messages)
            if total:
                notes.append(_marker(total))
            return [*head, *notes, *_flatten(kept)]

        target = self._mark(self.config.compact_to) or limit
        # Each unit is counted once and its cost subtracted, which keeps this linear
        # even with a real tokenizer; the real count then confirms the result.
        total_tokens = await self._count(messages)
        costs = {id(u): await self._count(u.messages) for u in candidates}
        estimate = total_tokens
        for unit in candidates:
            if estimate <= target:
                result = assemble()
                if await self._count(result) <= target:
                    return result
                estimate = await self._count(result)
            dropped_ids.add(id(unit))
            if unit.is_step:
                dropped_steps += 1
            estimate -= costs[id(unit)]

        result = assemble()
        if summary is not None and await self._count(result) > limit:
            keep_summary = False
            result = assemble()
        if dropped_steps or not keep_summary:
            log.debug(
                "context window: dropped %d steps (summary kept: %s)", dropped_steps, keep_summary
            )
        return result
