"""Cutting text down to show it: one rule, so every cut looks the same (``…`` at the end)."""

from __future__ import annotations

from typing import Any

ELLIPSIS = "…"


def shorten(text: str, limit: int, *, marker: str = ELLIPSIS) -> str:
    """``text`` when it fits in ``limit`` characters, else its start and ``marker``, together
    ``limit`` characters long."""
    if len(text) <= limit:
        return text
    return text[: max(limit - len(marker), 0)] + marker


def one_line(text: str, limit: int) -> str:
    """``text`` with every run of white space (newlines included) made one space, shortened."""
    return shorten(" ".join(text.split()), limit)


def shorten_args(args: dict[str, Any], limit: int) -> dict[str, Any]:
    """Tool arguments fit to record or show: every string value shortened to ``limit``."""
    return {k: shorten(v, limit) if isinstance(v, str) else v for k, v in args.items()}
