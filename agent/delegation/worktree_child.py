"""A subagent that edits in a worktree of its own (``isolation: worktree``).

Its edits go to a new worktree of the repository, made from the user's current state, so
that it changes nothing in the user's tree and may work while other children edit there.
They are written without a question and kept as one commit on the worktree's branch; the
user reviews the branch when applying it (``agentls apply``, the panel's worktrees), as
for any worktree session. Files that change what runs or what is trusted are refused, as
in every worktree. Commands still ask as the run's policy says.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from agentls.agent.config.models import AppConfig
from agentls.agent.policy.approval import Approver
from agentls.agent.workspace import DiskFileAccess
from agentls.agent.worktree_edits import EditsUnasked, refuse_protected
from agentls.agent.worktrees import Worktree, commit_run, prepare, status


@dataclass
class ChildWorktree:
    worktree: Worktree

    @classmethod
    async def open(cls, folder: Path) -> ChildWorktree:
        """A new worktree of ``folder``'s repository (WorktreeError says why not)."""
        worktree, _ = await asyncio.to_thread(prepare, folder, None)
        return cls(worktree)

    def config_for(self, config: AppConfig) -> AppConfig:
        workspace = config.workspace.model_copy(update={"root": self.worktree.folder})
        return config.model_copy(update={"workspace": workspace})

    def files(self) -> DiskFileAccess:
        folder = self.worktree.folder
        return DiskFileAccess(folder, confirmer=refuse_protected(folder))

    def approver(self, asks: Approver) -> Approver:
        return EditsUnasked(asks)

    async def finish(self, agent: str, task: str) -> str:
        """Commits what the child changed; what the parent (and the user) are told."""
        worktree = self.worktree
        title = f"agentls ({agent}): " + (task.strip().splitlines() or ["task"])[0][:60]
        await asyncio.to_thread(commit_run, worktree, title)
        now = await asyncio.to_thread(status, worktree)
        if not now.files:
            return f"[It worked in worktree {worktree.name} and changed nothing there.]"
        return (
            f"[Its changes are in worktree {worktree.name} (branch {worktree.branch}): "
            f"{now.files} file(s), +{now.added} -{now.removed}; not in the user's tree. The "
            f"user applies them with `agentls apply {worktree.name}` or the editor's worktree "
            f"view, or discards them with `agentls discard {worktree.name}`.]"
        )
