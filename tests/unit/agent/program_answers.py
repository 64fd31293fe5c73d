"""An Approver that answers the questions about a workspace's programs as a test says, and
keeps what it was asked."""

from __future__ import annotations

from collections.abc import Callable

from agentls.agent.approval import BaseApprover
from agentls.agent.program_approval import ProgramToApprove


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
