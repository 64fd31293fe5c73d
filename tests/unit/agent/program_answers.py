"""An Approver that answers the questions about a workspace's programs as a test says, and
keeps what it was asked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agentls.agent.policy.approval import BaseApprover
from agentls.agent.policy.program_approval import ProgramToApprove


class ProgramAnswers(BaseApprover):
    """Answers ``answers`` in turn, then ``then``; ``meanwhile`` runs while the user would
    read the question."""

    def __init__(
        self,
        *answers: bool | None,
        then: bool | None = None,
        meanwhile: Callable[[ProgramToApprove], None] | None = None,
    ) -> None:
        self.answers = list(answers)
        self.then = then
        self.meanwhile = meanwhile
        self.asked: list[ProgramToApprove] = []

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        self.asked.append(program)
        if self.meanwhile is not None:
            self.meanwhile(program)
        return self.answers.pop(0) if self.answers else self.then


def a_program(root: Path, digest: str = "d1", **fields: object) -> ProgramToApprove:
    """A file's hooks waiting for approval, as the engine describes them."""
    values: dict[str, object] = {
        "kind": "hooks",
        "name": ".agentls/hooks.json",
        "source": ".agentls/hooks.json",
        "root": root,
        "headline": "Allow the hooks of .agentls/hooks.json to run?",
        "lines": ("PreToolUse: ./guard.sh",),
        "warning": "Each runs as a program with your permissions.",
        "digest": digest,
        **fields,
    }
    return ProgramToApprove.model_validate(values)
