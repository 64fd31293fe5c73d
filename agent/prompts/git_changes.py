"""The workspace's uncommitted changes, read with git in a way a repository cannot hijack
(``indexer.safe_git``: no hook, fsmonitor, external diff, textconv or filter driver of the
repository runs, and git's environment holds no secret)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentls.agent.errors import AgentError
from agentls.indexer.safe_git import run_git_async

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
    try:
        done = await run_git_async(args, cwd=root)
    except OSError as exc:
        raise NoChangesError(f"git could not be started: {exc.strerror or exc}") from None
    if not done.ok:
        raise NoChangesError(f"git {args[0]} failed: {done.last_error() or 'no output'}")
    return done.stdout.decode("utf-8", "replace")


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
    diff = await _git(root, "diff", "--no-color", *base)
    listed = await _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    untracked = [name for name in listed.split("\0") if name]
    if not diff.strip() and not untracked:
        raise NoChangesError("there are no uncommitted changes")
    cut = len(diff) > limit
    return Changes(diff[:limit], untracked, cut)
