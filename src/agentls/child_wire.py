"""The framing on a child process's pipes, both sides: one JSON object a line, ASCII-only
so that no newline can hide inside a value (``child_rpc`` explains the choice and the
envelope). Kept apart from ``child_rpc`` so that a child that needs no event loop (the
symbol process) does not import asyncio (~11 MB) to read its requests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: A frame decoded from one line: a JSON object.
Frame = dict[str, Any]

#: Requests can carry a whole conversation or a tree's file list: a line can be megabytes.
MAX_LINE_BYTES = 256 * 1024 * 1024


class FrameError(ValueError):
    """A frame that cannot be written as JSON."""


def encode(frame: Mapping[str, Any]) -> bytes:
    """One frame as a line. Strings that are not valid UTF-8 (file names) travel as
    their surrogate escapes; what JSON cannot hold is written as its ``str``."""
    try:
        text = json.dumps(frame, separators=(",", ":"), default=str)
    except (TypeError, ValueError) as exc:
        raise FrameError(str(exc)) from None
    return text.encode("ascii") + b"\n"


def decode(line: bytes) -> Frame:
    """One line as a frame; ``ValueError`` when it is not a JSON object."""
    frame = json.loads(line)
    if not isinstance(frame, dict):
        raise ValueError(f"not a JSON object: {line[:80]!r}")
    return frame
