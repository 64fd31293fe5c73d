"""The repository's review instructions: the sections of AGENTS.md whose heading names a
review ("## Review", "### Reviewing pull requests", "Code review"), each with its
subsections. The rest of AGENTS.md is about doing work, not judging it, and the agent
reads it anyway as the workspace's instructions."""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_REVIEW = re.compile(r"\breview", re.IGNORECASE)


def review_sections(markdown: str) -> str:
    """The review sections of ``markdown``, in their order, or "" when there is none."""
    kept: list[str] = []
    level = 0  # the level of the review heading being copied; 0 when copying nothing
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            depth = len(heading.group(1))
            if level and depth <= level:
                level = 0
            if not level and _REVIEW.search(heading.group(2)):
                level = depth
        if level:
            kept.append(line)
    return "\n".join(kept).strip()
