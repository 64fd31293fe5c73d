"""Keeping the conversation inside the model's context window, in three levels.

1. ``truncate_tool_result`` bounds every tool result before it enters the history.
2. ``maybe_compress`` replaces the older steps with a summary written by the model,
   in one block, once the context passes the high-water mark.
3. ``enforce_window`` drops the oldest steps when the estimate still exceeds
   ``max_context_tokens``, down to the low-water mark, leaving a marker that says so.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from agentls.agent.config.models import ContextConfig
from agentls.agent.context.messages import Message
from agentls.agent.context.summary import SUMMARY_REQUEST, SUMMARY_SYSTEM_PROMPT, bounded_transcript
from agentls.agent.context.truncation import truncate_text
from agentls.agent.context.units import (
    DROPPED_RE,
    SUMMARY_PREFIX,
    Unit,
    count_tool_exchanges,
    dropped_marker,
    flatten,
    head_length,
    message_text,
    split_units,
)
from agentls.agent.llm.protocol import LLM
from agentls.agent.llm.tokens import estimate_tokens

log = logging.getLogger(__name__)

TokenCounter = Callable[[list[Message]], Awaitable[int]]

# Room kept for the summary itself when choosing what stays after a compaction.
_SUMMARY_RESERVE_TOKENS = 600


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

    async def measure(self, messages: list[Message]) -> tuple[int, int]:
        """How full the context is: the tokens of ``messages`` and the budget they fill
        (``max_context_tokens``), for the user's context meter."""
        return await self._count(messages), self.config.max_context_tokens

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

        head_len = head_length(messages)
        head, units = list(messages[:head_len]), split_units(messages[head_len:])
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
                    + message_text(head[-1] if head else {})
                    + "\n\nThe steps to summarise:\n"
                    + bounded_transcript(flatten(old)),
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
            *flatten(recent),
        ]

    def _mark(self, share: float) -> int:
        """A water mark in tokens, or 0 when there is no limit to take a share of."""
        limit = self.config.max_context_tokens
        if limit <= 0 or share <= 0:
            return 0
        return int(limit * share)

    async def _low_water_cut(
        self, head: list[Message], units: list[Unit], exchange_positions: list[int]
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

        head_len = head_length(messages)
        head, units = list(messages[:head_len]), split_units(messages[head_len:])
        summary = next((u for u in units if u.kind == "summary"), None)
        previous = next((u for u in units if u.kind == "marker"), None)
        already_dropped = 0
        if previous is not None:
            found = DROPPED_RE.match(message_text(previous.messages[0]))
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
                notes.append(dropped_marker(total))
            return [*head, *notes, *flatten(kept)]

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
