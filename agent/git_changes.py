"""The workspace's uncommitted changes, read with git in a way a repository cannot hijack
(``indexer.safe_git``; diffs also without external diff or textconv drivers)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from agentls.agent.errors import AgentError
from agentls.indexer.safe_git import SAFE_GIT

DEFAULT_LIMIT = 60_000


class NoChangesError(AgentError):
    """Not a git repository, git is missing, or there is nothing uncommitted."""


@dataclass(frozen=True)
class Changes:
    diff: str
    untracked: list[str]
    #: The diff was longer than the limit and was cut.
    cut: bool

    def render(self) -> str:
        parts = []
        if self.diff:
            parts.append(f"```diff\n{self.diff.rstrip()}\n```")
        if self.cut:
            parts.append("(the diff was cut: it is longer than agentls sends at once)")
        if self.untracked:
            parts.append("New files not yet added to git: " + ", ".join(self.untracked))
        return "\n\n".join(parts)


async def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat"}
    env.pop("GIT_EXTERNAL_DIFF", None)
    try:
        process = await asyncio.create_subprocess_exec(
            *SAFE_GIT,
            *args,
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
    except OSError as exc:
        raise NoChangesError(f"git could not be started: {exc.strerror or exc}") from None
    out, err = await process.communicate()
    if process.returncode != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise NoChangesError(f"git {args[0]} failed: {message[-1] if message else 'no output'}")
    return out.decode("utf-8", "replace")


async def uncommitted_changes(root: Path, *, limit: int = DEFAULT_LIMIT) -> Changes:
    """The diff against HEAD (staged and not) and the untracked files; NoChangesError when
    there is nothing to show, with why."""
    inside = await _git(root, "rev-parse", "--is-inside-work-tree")
    if inside.strip() != "true":
        raise NoChangesError(f"{root} is not inside a git working tree")
    has_head = True
    try:
        await _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    except NoChangesError:
        has_head = False  # a repository without commits: everything is new
    base = ["HEAD"] if has_head else []
    diff = await _git(root, "diff", "--no-ext-diff", "--no-textconv", "--no-color", *base)
    listed = await _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    untracked = [name for name in listed.split("\0") if name]
    if not diff.strip() and not untracked:
        raise NoChangesError("there are no uncommitted changes")
    cut = len(diff) > limit
    return Changes(diff[:limit], untracked, cut)
