"""The worktrees of a folder's repository as every front end lists, applies and discards
them (``agent.worktrees`` does the git): what each is told of a worktree
(``WorktreeInfo``), and the refusals while a run of this folder works in one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agentls.agent.contract import WorktreeInfo
from agentls.agent.errors import AgentError
from agentls.agent.worktrees import (
    ApplyCheck,
    ApplyPlan,
    SpecialChange,
    Worktree,
    WorktreeError,
    apply,
    check_apply,
    describe,
    discard,
    find,
    listed,
    plan_apply,
    status,
)

if TYPE_CHECKING:
    from agentls.agent.workspace import FileAccess

__all__ = [
    "ApplyCheck",
    "ApplyPlan",
    "SpecialChange",
    "Worktree",
    "WorktreeBook",
    "WorktreeBusy",
    "WorktreeError",
    "worktree_info",
]


class WorktreeBusy(AgentError):
    """The worktree has a run in flight: it cannot take another, nor be applied or
    discarded until that run ends."""


def worktree_info(worktree: Worktree, *, running: bool) -> WorktreeInfo:
    """What a front end is told of a worktree (blocking: git)."""
    current = status(worktree)
    return WorktreeInfo(
        name=worktree.name,
        branch=worktree.branch,
        path=worktree.path,
        base=worktree.base,
        created=worktree.created,
        state="running" if running else describe(current),
        files=current.files,
        added=current.added,
        removed=current.removed,
    )


class WorktreeBook:
    """A folder's worktrees; ``in_use`` says whether a run works in one now."""

    def __init__(self, in_use: Callable[[str], bool]) -> None:
        self._in_use = in_use

    async def infos(self, folder: Path, *, outside_git: bool = True) -> list[WorktreeInfo]:
        """Every worktree of ``folder``'s repository, oldest first; none outside git
        (``outside_git=False``: WorktreeError says it is not a repository)."""

        def read() -> list[WorktreeInfo]:
            try:
                found = listed(folder)
            except WorktreeError:
                if not outside_git:
                    raise
                return []  # an editor's folder outside git has no worktree, not an error
            return [worktree_info(w, running=self._in_use(w.name)) for w in found]

        return await asyncio.to_thread(read)

    async def find(self, folder: Path, name: str) -> Worktree:
        return await asyncio.to_thread(find, folder, name)

    async def plan_apply(self, worktree: Worktree, files: FileAccess) -> ApplyPlan:
        """The worktree's changes as a change set for ``files`` (see
        ``worktrees.plan_apply``); WorktreeBusy while a run works in it."""
        self._refuse_while_running(worktree)
        return await plan_apply(worktree, files)

    def _refuse_while_running(self, worktree: Worktree) -> None:
        if self._in_use(worktree.name):
            raise WorktreeBusy(
                f"a run still works in the worktree {worktree.name}: apply it when the run "
                "has ended"
            )

    def check_apply(self, folder: Path, worktree: Worktree) -> ApplyCheck:
        """Whether the branch's patch applies to the user's tree on disk (blocking)."""
        self._refuse_while_running(worktree)
        return check_apply(folder, worktree)

    def apply(self, folder: Path, checked: ApplyCheck, only: list[str] | None = None) -> None:
        """Write a checked patch into the user's tree (blocking)."""
        apply(folder, checked, only=only)

    async def discard(
        self, folder: Path, name: str, *, keep_branch: bool, force: bool = False
    ) -> Worktree:
        """Remove the worktree (and its branch unless kept); WorktreeBusy while a run
        works in it, WorktreeError while it holds changes nobody committed (unless
        ``force``)."""
        worktree = await self.find(folder, name)
        if self._in_use(name):
            raise WorktreeBusy(f"a run still works in the worktree {name}: cancel it first")
        await asyncio.to_thread(discard, folder, worktree, keep_branch=keep_branch, force=force)
        return worktree
