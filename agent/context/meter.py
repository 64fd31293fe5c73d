"""The context meter in words, the same in every front end: ``12.3k / 32k tokens (38 %)``."""

from __future__ import annotations

from agentls.agent.events import ContextCompacted, ContextMeasured


def tokens(count: int) -> str:
    """``950``, ``12.3k``, ``128k``."""
    if count < 1000:
        return str(count)
    thousands = count / 1000
    return f"{thousands:.1f}k" if thousands < 100 else f"{thousands:.0f}k"


def share(used: int, limit: int) -> int:
    return round(100 * used / limit) if limit else 0


def meter_text(event: ContextMeasured) -> str:
    return (
        f"{tokens(event.used)} / {tokens(event.limit)} tokens ({share(event.used, event.limit)} %)"
    )


def compaction_text(event: ContextCompacted) -> str:
    return (
        f"context compacted: {event.messages_before} → {event.messages_after} messages, "
        f"{tokens(event.tokens_before)} → {tokens(event.tokens_after)} tokens; the older "
        "steps are now a summary, the recent ones kept as they were"
    )
