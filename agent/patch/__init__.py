"""The patch engine: unified diffs (parse ``parse``, locate hunks ``seek``, apply ``apply``)
and OpenAI's V4A format (``v4a``, which shares ``seek``'s comparisons).

``apply_patch`` is the entry point for tools: it tells the formats apart, reads through a
callback and returns the new contents of every touched file, or raises PatchError having
changed nothing.
"""

from __future__ import annotations

from agentls.agent.patch.apply import apply_file_patch, apply_patch, apply_unified
from agentls.agent.patch.model import FilePatch, HunkLine, LineKind, PatchHunk
from agentls.agent.patch.parse import parse_patch
from agentls.agent.patch.v4a import apply_v4a, is_v4a, parse_v4a

__all__ = [
    "FilePatch",
    "HunkLine",
    "LineKind",
    "PatchHunk",
    "apply_file_patch",
    "apply_patch",
    "apply_unified",
    "apply_v4a",
    "is_v4a",
    "parse_patch",
    "parse_v4a",
]
