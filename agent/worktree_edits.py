"""How edits are made in a worktree: written without a question (the user reviews the
whole branch when applying it), except files that change what runs or what is trusted,
which are refused: nobody would review them before they take effect in the worktree's own
commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentls.agent.policy.approval import (
        ApprovalAnswer,
        ApprovalRequest,
        Approver,
        EditRequest,
        EditReview,
    )
    from agentls.agent.policy.program_approval import ProgramToApprove
    from agentls.agent.workspace import EditConfirmer, EditOutcome, EditProposal, FileAccess


def refuse_protected(root: Path) -> EditConfirmer:
    """The confirmer of a worktree's files: no question, but files that change what runs
    or what is trusted (.agentls.yaml, .vscode/, git hooks...) are refused: nobody would
    review them before they take effect in the worktree's own commands."""
    from agentls.agent.protected.edits import protected_targets

    async def confirm(proposal: EditProposal) -> bool:
        return not protected_targets([c.path for c in proposal.changes], root)

    return confirm


class EditsUnasked:
    """An Approver whose edit confirmations go to the files' own confirmer (a worktree's:
    no question); every other question goes to ``inner``."""

    def __init__(self, inner: Approver) -> None:
        self.inner = inner

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return await self.inner.ask(request)

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        return await files.apply(request.changes, confirm=True)

    async def ask_user(self, question: str) -> str | None:
        return await self.inner.ask_user(question)

    async def edit_reviewed(self, review: EditReview) -> None:
        await self.inner.edit_reviewed(review)

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        return await self.inner.approve_program(program)

    def __getattr__(self, name: str) -> Any:  # what other front ends' approvers add
        return getattr(self.inner, name)
