"""The unified-diff patch engine: parse (``parse``), locate hunks (``seek``), apply (``apply``).

``apply_patch`` is the entry point for tools: it reads through a callback and returns the
new contents of every touched file, or raises PatchError having changed nothing.
"""

from __future__ import annotations

from agentls.agent.patch.apply import apply_hunks, apply_patch
from agentls.agent.patch.model import FilePatch, Hunk, HunkLine, LineKind
from agentls.agent.patch.parse import parse_patch

__all__ = [
    "FilePatch",
    "Hunk",
    "HunkLine",
    "LineKind",
    "apply_hunks",
    "apply_patch",
    "parse_patch",
]
