"""Token counts: litellm's counter where litellm lives, the provider's own report elsewhere.

With litellm, a conversation's count is additive: a fixed priming for the reply plus each
message's own cost (OpenAI's chat formula, which litellm's ``token_counter`` follows for
every model it counts). So each message is counted once, by content, and a run asks again
only for the messages it has not counted yet. The language server never imports litellm or
a tokenizer (~160 MB, or ~50 MB for tiktoken's smaller encoding alone): it asks the model
worker, which holds litellm anyway, for the counts of new messages.

Calls to an OpenAI-compatible endpoint never load litellm, and a tokenizer would cost the
model worker more memory than the calls themselves; besides, a local model's tokenizer is
not tiktoken's. There a count is anchored on what the provider reported for the last
answered request (its ``prompt_tokens``, the tools' definitions included): the messages
that request sent cost that much, and the messages added since cost their four-characters
estimate scaled by how the provider's count compared with the estimate of that request.
Before any answer, and when no counter answers, four characters make a token.
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
    """What a conversation costs: ``priming`` once, plus ``counts[i]`` for message i.

    ``exact`` false (``NOT_COUNTED``): this model's calls have no exact counter (they do not
    go through litellm); the conversation is counted from the provider's reports instead.
    """

    priming: int
    counts: list[int]
    exact: bool = True

    def to_wire(self) -> dict[str, Any]:
        if not self.exact:
            return {"exact": False}
        return {"priming": self.priming, "counts": self.counts}

    @classmethod
    def from_wire(cls, frame: dict[str, Any]) -> MessageCounts:
        if frame.get("exact") is False:
            return NOT_COUNTED
        priming, counts = frame.get("priming"), frame.get("counts")
        if not isinstance(priming, int) or not isinstance(counts, list):
            raise ValueError(f"malformed token counts: {frame!r}")
        return cls(priming, [int(n) for n in counts])


NOT_COUNTED = MessageCounts(0, [], exact=False)

#: How far the provider's count may stray from the estimate before the report is taken for
#: a server that does not count (a fixed or zero ``prompt_tokens``) rather than a tokenizer.
_SCALE_BOUNDS = (0.5, 2.0)


@dataclass(frozen=True)
class UsageAnchor:
    """The last answered request: the keys of the messages it sent, what the provider said
    they cost (``prompt_tokens``, tools included), and the provider's tokens per estimated
    token, which the messages added since are scaled by."""

    keys: tuple[bytes, ...]
    prompt_tokens: int
    tools_estimate: int
    scale: float

    @classmethod
    def of(
        cls,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        usage: dict[str, Any] | None,
    ) -> UsageAnchor | None:
        prompt = (usage or {}).get("prompt_tokens")
        if not isinstance(prompt, int) or isinstance(prompt, bool) or prompt <= 0:
            return None  # a server that reports nothing: estimates stay unscaled
        tools_estimate = estimate_tools(tools)
        estimated = estimate_tokens(messages) + tools_estimate
        low, high = _SCALE_BOUNDS
        scale = min(high, max(low, prompt / estimated)) if estimated else 1.0
        return cls(tuple(_key(m) for m in messages), prompt, tools_estimate, scale)

    def count(self, messages: list[Message], keys: list[bytes]) -> int:
        sent = len(self.keys)
        if tuple(keys[:sent]) == self.keys:
            return self.prompt_tokens + round(self.scale * estimate_tokens(messages[sent:]))
        # Not an extension of what was sent (a compaction rebuilt the list): the whole
        # request as the provider would count it, the tools' definitions included.
        return round(self.scale * (estimate_tokens(messages) + self.tools_estimate))


def split_counts(count: Callable[[list[Message]], int], messages: list[Message]) -> MessageCounts:
    """Each message's own cost, from ``count`` of whole conversations."""
    once, twice = count([_PROBE]), count([_PROBE, _PROBE])
    priming = 2 * once - twice
    return MessageCounts(priming, [count([message]) - priming for message in messages])


def estimated_counts(messages: list[Message]) -> MessageCounts:
    return MessageCounts(0, [estimate_tokens([message]) for message in messages])


class CountMemo:
    """The counts of one model's messages, by content: a step's count asks ``fetch`` only
    for the messages added since the last one (a compaction's rebuilt lists, none). Once
    ``fetch`` says the model has no exact counter, counts come from the provider's reports
    (``answered``) and ``fetch`` is not asked again."""

    def __init__(self, fetch: Callable[[list[Message]], Awaitable[MessageCounts]]) -> None:
        self._fetch = fetch
        self._counts: dict[bytes, int] = {}
        self._priming: int | None = None
        self._exact = True
        self._anchor: UsageAnchor | None = None

    def answered(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]] | None,
        usage: dict[str, Any] | None,
    ) -> None:
        """A request was answered: what the provider said its prompt cost."""
        anchor = UsageAnchor.of(messages, tools, usage)
        if anchor is not None:
            self._anchor = anchor

    def _reported(self, messages: list[Message], keys: list[bytes]) -> int:
        if self._anchor is None:
            return estimate_tokens(messages)
        return self._anchor.count(messages, keys)

    async def total(self, messages: list[Message]) -> int:
        keys = [_key(message) for message in messages]
        if not self._exact:
            return self._reported(messages, keys)
        missing = {
            key: message
            for key, message in zip(keys, messages, strict=True)
            if key not in self._counts
        }
        if missing or self._priming is None:
            try:
                counted = await self._fetch(list(missing.values()))
                if not counted.exact:
                    self._exact = False
                    return self._reported(messages, keys)
                self._counts.update(zip(missing.keys(), counted.counts, strict=True))
            except Exception:  # a count must never fail a run: estimate instead
                log.debug("token count failed; estimating", exc_info=True)
                return self._reported(messages, keys)
            self._priming = counted.priming
        return self._priming + sum(self._counts[key] for key in keys)


def _key(message: Message) -> bytes:
    text = json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


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


def estimate_tools(tools: list[dict[str, Any]] | None) -> int:
    """The tools' definitions, four characters a token."""
    if not tools:
        return 0
    return len(json.dumps(tools, ensure_ascii=False)) // CHARS_PER_TOKEN
