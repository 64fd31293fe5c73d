"""File names in diff headers: git's C-style quoting, ``diff -u`` timestamps, ``/dev/null``."""

from __future__ import annotations

import re

DEV_NULL = "/dev/null"

# ``diff -u`` separates the timestamp with a tab; hand-edited patches and some tools use
# spaces, so a trailing ISO-like timestamp is also recognised after plain whitespace.
_SPACED_TIMESTAMP = re.compile(
    r"\s+\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*(?:[+-]\d{4}|Z))?\s*$"
)
_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}


def parse_header_path(rest: str) -> str | None:
    """The name after ``--- ``/``+++ ``; ``None`` for a file that does not exist on that side.

    ``diff -N`` marks an absent file with the epoch as its timestamp instead of
    ``/dev/null``, so that is read as absent too. Raises ValueError for a bad quoted name.
    """
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        name, tail = unquote(rest)
        timestamp = tail.strip()
    elif "\t" in rest:
        name, timestamp = rest.split("\t", 1)
    else:
        match = _SPACED_TIMESTAMP.search(rest)
        name = rest[: match.start()] if match else rest.rstrip()
        timestamp = match.group().strip() if match else ""
    if not name:
        raise ValueError("empty file name")
    if name == DEV_NULL or timestamp.startswith(("1970-01-01", "1969-12-31")):
        return None
    return name


def parse_git_names(rest: str) -> tuple[str, str]:
    """The two names of a ``diff --git <old> <new>`` line (used only when no ---/+++ follow)."""
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        old, tail = unquote(rest)
        tail = tail.lstrip(" ")
        new = unquote(tail)[0] if tail.startswith('"') else tail
        return old, new
    # Unquoted names may contain spaces; without a rename both halves are the same name,
    # so the split that makes them equal (prefixes aside) is the right one.
    for index, char in enumerate(rest):
        if char == " " and _same_name(rest[:index], rest[index + 1 :]):
            return rest[:index], rest[index + 1 :]
    old, _, new = rest.partition(" b/")
    return (old, "b/" + new) if new else (rest, rest)


def _same_name(old: str, new: str) -> bool:
    return old.removeprefix("a/") == new.removeprefix("b/")


def unquote(text: str) -> tuple[str, str]:
    """Decode a C-style quoted name at the start of ``text``; return it and what follows."""
    out = bytearray()
    index = 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return out.decode("utf-8", errors="replace"), text[index + 1 :]
        if char != "\\":
            out += char.encode("utf-8")
            index += 1
            continue
        escape = text[index + 1 : index + 2]
        if escape in _ESCAPES:
            out += _ESCAPES[escape].encode("utf-8")
            index += 2
        elif re.fullmatch(r"[0-7]{3}", text[index + 1 : index + 4]):
            out.append(int(text[index + 1 : index + 4], 8))
            index += 4
        else:
            raise ValueError(f"bad escape in quoted file name {text!r}")
    raise ValueError(f"unterminated quoted file name {text!r}")
