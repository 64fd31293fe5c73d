"""Token counts: litellm's counter where litellm lives, remembered per message elsewhere.

A conversation's count is additive: a fixed priming for the reply plus each message's own
cost (OpenAI's chat formula, which litellm's ``token_counter`` follows for every model it
counts). So each message is counted once, by content, and a run asks again only for the
messages it has not counted yet. The language server never imports litellm or a tokenizer
(~160 MB, or ~40 MB for tiktoken's encoding alone): it asks the model worker, which holds
litellm anyway, for the counts of new messages. When no counter answers, four characters
make a token.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

Message = dict[str, Any]

#: Counted alone and twice over, it tells the priming apart from a message's own cost.
_PROBE: Message = {"role": "user", "content": "probe"}


@dataclass(frozen=True)
class MessageCounts:
    """What a conversation costs: ``priming`` once, plus ``counts[i]`` for message i."""

    priming: int
    counts: list[int]

    def to_wire(self) -> dict[str, Any]:
        return {"priming": self.priming, "counts": self.counts}

    @classmethod
    def from_wire(cls, frame: dict[str, Any]) -> MessageCounts:
        priming, counts = frame.get("priming"), frame.get("counts")
        if not isinstance(priming, int) or not isinstance(counts, list):
            raise ValueError(f"malformed token counts: {frame!r}")
        return cls(priming, [int(n) for n in counts])


def split_counts(count: Callable[[list[Message]], int], messages: list[Message]) -> MessageCounts:
    """Each message's own cost, from ``count`` of whole conversations."""
    once, twice = count([_PROBE]), count([_PROBE, _PROBE])
    priming = 2 * once - twice
    return MessageCounts(priming, [count([message]) - priming for message in messages])


def estimated_counts(messages: list[Message]) -> MessageCounts:
    return MessageCounts(0, [estimate_tokens([message]) for message in messages])


class CountMemo:
    """The counts of one model's messages, by content: a step's count asks ``fetch`` only
    for the messages added since the last one (a compaction's rebuilt lists, none)."""

    def __init__(self, fetch: Callable[[list[Message]], Awaitable[MessageCounts]]) -> None:
        self._fetch = fetch
        self._counts: dict[bytes, int] = {}
        self._priming: int | None = None

    async def total(self, messages: list[Message]) -> int:
        keys = [_key(message) for message in messages]
        missing = {
            key: message
            for key, message in zip(keys, messages, strict=True)
            if key not in self._counts
        }
        if missing or self._priming is None:
            try:
                counted = await self._fetch(list(missing.values()))
                self._counts.update(zip(missing.keys(), counted.counts, strict=True))
            except Exception:  # a count must never fail a run: estimate instead
                log.debug("token count failed; estimating", exc_info=True)
                return estimate_tokens(messages)
            self._priming = counted.priming
        return self._priming + sum(self._counts[key] for key in keys)


def _key(message: Message) -> bytes:
    text = json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


class CounterNotReady(Exception):
    """The exact counter is still loading: this count is estimated, and not remembered."""


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
