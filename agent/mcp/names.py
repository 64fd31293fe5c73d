"""Tool names the providers accept: ``^[a-zA-Z0-9_-]{1,64}$``, unique in the registry."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_NAME = 64
_BAD = re.compile(r"[^a-zA-Z0-9_-]+")
VALID_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def sanitize(part: str) -> str:
    """Replace every run of characters providers reject with one underscore."""
    cleaned = _BAD.sub("_", part).strip("_")
    return cleaned or "x"


def prefixed_name(server: str, tool: str) -> str:
    """``mcp_{server}_{tool}``, sanitized and cut to 64 characters.

    A cut name keeps a short hash of the full one, so two long names that share a
    prefix do not collapse into one.
    """
    name = f"mcp_{sanitize(server)}_{sanitize(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def dedupe(name: str, taken: Iterable[str]) -> str:
    """``name``, or ``name_2``, ``name_3``… (still within 64 characters) if it is taken."""
    used = set(taken)
    if name not in used:
        return name
    counter = 2
    while True:
        suffix = f"_{counter}"
        candidate = name[: MAX_NAME - len(suffix)] + suffix
        if candidate not in used:
            return candidate
        counter += 1
