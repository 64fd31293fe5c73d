"""What the worktree requests answer (server.features.worktrees).

Applying writes through the same FileAccess as a run (the editor's buffers and
``workspace/applyEdit``), so the user reviews the worktree's changes like any agent
edit, and a file changed in the editor since is merged or reported, never overwritten."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.errors import AgentError
from agentls.agent.folder.worktree_book import SpecialChange, Worktree
from agentls.server.protocol import (
    ApplyWorktreeResult,
    DiscardWorktreeResult,
    WorktreeConflict,
    WorktreesResult,
)

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer
    from agentls.server.folders import ServerFolder


async def list_worktrees(folder: ServerFolder) -> dict[str, Any]:
    infos = await folder.engine.worktrees.infos(folder.config.workspace.root)
    return WorktreesResult(worktrees=infos).to_wire()


async def apply_worktree(
    ls: AgentLanguageServer, folder: ServerFolder, name: str
) -> dict[str, Any]:
    files = ls.files_for(folder.config)
    book = folder.engine.worktrees
    try:
        worktree = await book.find(folder.config.workspace.root, name)
        plan = await book.plan_apply(worktree, files)
    except AgentError as exc:  # none of that name, a run works in it, it is gone
        raise JsonRpcInvalidParams(str(exc)) from None
    paths = [change.path for change in (*plan.changes, *plan.protected)]
    if plan.conflicts:
        conflicts = [WorktreeConflict(path=p, reason=r) for p, r in sorted(plan.conflicts.items())]
        listed_paths = ", ".join(f"{c.path} ({c.reason})" for c in conflicts)
        return ApplyWorktreeResult(
            status="conflict",
            message=f"not applied, nothing was written: {listed_paths}; the changes stay "
            f"on {worktree.branch}",
            files=sorted([*paths, *plan.conflicts]),
            conflicts=conflicts,
        ).to_wire()
    held = _held_note(plan.held, worktree)
    if not plan.changes and not plan.protected:
        return ApplyWorktreeResult(
            status="nothing",
            message=held or f"the worktree {name} holds nothing your tree does not have",
            files=[],
        ).to_wire()
    outcome = await files.apply(plan.changes, confirm=True) if plan.changes else None
    if plan.protected and (outcome is None or outcome.status == "applied"):
        # Protected files (hooks, agent and editor configuration) get their own question,
        # after the ordinary ones: a "yes" to the text changes is not a yes to them.
        protected = await files.apply(plan.protected, confirm=True)
        if outcome is None:
            outcome = protected
        elif protected.status != "applied":
            kept = ", ".join(c.path for c in plan.protected)
            outcome.status = "partial"
            outcome.message = f"{outcome.message}; the protected files were not: {kept}"
    assert outcome is not None
    return ApplyWorktreeResult(
        status=outcome.status,
        message="; ".join(filter(None, [outcome.message, held])),
        files=paths,
        merged=plan.merged,
        pending=outcome.pending,
    ).to_wire()


def _held_note(held: list[SpecialChange], worktree: Worktree) -> str:
    """What stayed on the branch because an editor's text edit cannot make it."""
    if not held:
        return ""
    listed = "; ".join(f"{change.path}: {change.what}" for change in held)
    return (
        f"not applied (more than a file's text, each needs its own answer): {listed}; they "
        f"stay on {worktree.branch}: run `agentls apply {worktree.name}` in a terminal to "
        "be asked about each"
    )


async def discard_worktree(
    folder: ServerFolder, name: str, *, keep_branch: bool, force: bool = False
) -> dict[str, Any]:
    from agentls.agent.folder.worktree_book import WorktreeBusy

    book, root = folder.engine.worktrees, folder.config.workspace.root
    try:
        await book.find(root, name)
    except AgentError as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    try:
        await book.discard(root, name, keep_branch=keep_branch, force=force)
    except WorktreeBusy as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    except AgentError as exc:  # it holds changes nobody committed
        hint = "" if force else " (or discard it with force: true, which loses them)"
        raise JsonRpcInvalidParams(f"{exc}{hint}") from None
    return DiscardWorktreeResult(discarded=True).to_wire()
