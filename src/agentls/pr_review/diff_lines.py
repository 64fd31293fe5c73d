"""Which lines of a unified diff a GitHub review may comment on.

GitHub accepts a line comment only on a line the pull request's diff shows: on the new
file's side (``RIGHT``) an added or unchanged context line, on the old file's side
(``LEFT``) a removed one. Anything else makes the whole review request fail."""

from __future__ import annotations

import re
from collections.abc import Iterable

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")

#: (path, side, line) triples a comment may use.
DiffLines = frozenset[tuple[str, str, int]]


def _path(header: str) -> str | None:
    name = header[4:].split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def commentable_lines(diff: Iterable[str]) -> DiffLines:
    """The lines of ``diff`` (``git diff base...head`` output) a comment may sit on."""
    found: set[tuple[str, str, int]] = set()
    old_path: str | None = None
    new_path: str | None = None
    old = new = 0
    in_hunk = False
    for raw in diff:
        line = raw.rstrip("\n")
        if line.startswith("diff --git "):
            in_hunk = False
            continue
        if not in_hunk and line.startswith("--- "):
            old_path = _path(line)
            continue
        if not in_hunk and line.startswith("+++ "):
            new_path = _path(line)
            continue
        match = _HUNK.match(line)
        if match:
            old, new = int(match.group(1)), int(match.group(2))
            in_hunk = True
            continue
        if not in_hunk:
            continue
        if line.startswith("+") and new_path:
            found.add((new_path, "RIGHT", new))
            new += 1
        elif line.startswith("-") and old_path:
            found.add((old_path, "LEFT", old))
            old += 1
        elif line.startswith(" ") or line == "":
            if new_path:
                found.add((new_path, "RIGHT", new))
            old += 1
            new += 1
        # "\ No newline at end of file" moves neither side.
    return frozenset(found)
