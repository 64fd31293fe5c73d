"""``agent/worktrees``, ``agent/applyWorktree`` and ``agent/discardWorktree``: the
worktree sessions of the workspace's repository (runs started with ``agent/run
{worktree}``), what they changed, and bringing that into the user's tree.

- ``agent/worktrees {}`` → ``{worktrees: [WorktreeInfo]}``
- ``agent/applyWorktree {name}`` → ``ApplyWorktreeResult``: the branch's changes written
  to the user's tree as one agent edit (reviewed inline or confirmed, like a run's);
  files the user changed in the same lines are conflicts and nothing is written.
- ``agent/discardWorktree {name, keepBranch?, force?}`` → ``{discarded}``; refused (an
  error) while a run works in it, or while it holds changes nobody committed unless
  ``force``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import DiscardWorktreeParams, FolderParams, WorktreeParams

LIST_METHOD = "agent/worktrees"
APPLY_METHOD = "agent/applyWorktree"
DISCARD_METHOD = "agent/discardWorktree"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(LIST_METHOD)
    async def agent_worktrees(ls: AgentLanguageServer, params: FolderParams) -> dict[str, Any]:
        from agentls.server.worktrees_view import list_worktrees

        folder = await ls.folder_named(params.folder)
        return await list_worktrees(folder)

    @ls.handler(APPLY_METHOD)
    async def agent_apply_worktree(
        ls: AgentLanguageServer, params: WorktreeParams
    ) -> dict[str, Any]:
        from agentls.server.worktrees_view import apply_worktree

        folder = await ls.folder_named(params.folder)
        return await apply_worktree(ls, folder, params.name)

    @ls.handler(DISCARD_METHOD)
    async def agent_discard_worktree(
        ls: AgentLanguageServer, params: DiscardWorktreeParams
    ) -> dict[str, Any]:
        from agentls.server.worktrees_view import discard_worktree

        folder = await ls.folder_named(params.folder)
        return await discard_worktree(
            folder, params.name, keep_branch=params.keep_branch, force=params.force
        )
