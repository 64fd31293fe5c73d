"""``agentls run --output-format stream-json``: the run's events on stdout, one JSON object
a line (``agent.event_stream``'s models), written as they happen and flushed each.

``StreamWriter`` is the run's observer; ``StreamingApprover`` wraps the run's approver so
every approval asked and answered, and every question to the user and its answer, is a
line too. Everything written is masked like the rest of what leaves the process.
"""

from __future__ import annotations

import json
import sys
import threading
from itertools import count
from typing import IO, TYPE_CHECKING, Any

from agentls.agent.contract import RunResult
from agentls.agent.event_stream import (
    AnswerEvent,
    ApprovalAnswerEvent,
    ApprovalRequestEvent,
    QuestionEvent,
    RunEnded,
    RunLines,
    RunStarted,
    StreamEventBase,
)
from agentls.agent.events import StreamRestarted, StreamText
from agentls.agent.secrets import HeldText, mask_tree

if TYPE_CHECKING:
    from agentls.agent.events import AgentEvent
    from agentls.agent.policy.approval import (
        ApprovalAnswer,
        ApprovalRequest,
        Approver,
        EditRequest,
        EditReview,
    )
    from agentls.agent.policy.program_approval import ProgramToApprove
    from agentls.agent.run import RunRequest
    from agentls.agent.workspace import EditOutcome, FileAccess
    from agentls.cli.stream_input import StreamInput


class StreamWriter:
    """Writes stream objects to ``out`` whole, one a line; callable as the run's observer.

    Streamed text is held up to its last whitespace (``HeldText``), as the terminal
    and the server hold it, so a secret split across two chunks is masked whole; any other
    event writes what is held first, so the lines keep the order of the run's events.
    """

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        # Observers may be called from the loop and from worker threads (command output).
        self._lock = threading.RLock()
        self._held = HeldText()
        #: The run's lines; named anew by ``start`` once the run book has named the run.
        self.lines = RunLines("")

    def write(self, event: StreamEventBase) -> None:
        with self._lock:
            self._release()
            self._line(event)

    def _line(self, event: StreamEventBase) -> None:
        line = json.dumps(mask_tree(event.to_wire()), ensure_ascii=False)
        self.out.write(line + "\n")
        self.out.flush()

    def _release(self) -> None:
        """All the text held, before a line that is not text."""
        # Masked before it is counted: a restart's ``discard`` counts what was written.
        masked = self._held.rest()
        if masked:
            self._line(self.lines.text(masked))

    def _text(self, text: str) -> None:
        with self._lock:
            masked = self._held.add(text)
            if masked:
                self._line(self.lines.text(masked))

    def _restart(self, event: StreamRestarted) -> None:
        with self._lock:
            self._held.discard()  # void: the step's text comes again
            self._line(self.lines.restart(event))

    def start(self, request: RunRequest) -> None:
        """The first line: the run and its session as the run book named them."""
        self.lines = RunLines(request.run_id or "")
        self.write(
            RunStarted(
                run_id=request.run_id or "",
                session_id=request.session_id or "",
                agent=request.agent,
                model=request.model,
                prompt=request.prompt,
            )
        )

    def end(self, result: dict[str, Any], exit_code: int) -> None:
        """The last line: ``result`` is the run's ``RunResult`` as on the wire."""
        self.write(RunEnded(exit_code=exit_code, result=RunResult.model_validate(result)))

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, StreamText):
            self._text(event.text)
            return
        if isinstance(event, StreamRestarted):
            self._restart(event)
            return
        with self._lock:
            self._release()  # the text before the event, counted in its step
            line = self.lines.line(event)
            if line is not None:
                self._line(line)


class StreamingApprover:
    """The run's approver, each question and its answer also written to the stream."""

    def __init__(
        self, inner: Approver, writer: StreamWriter, answers: StreamInput | None = None
    ) -> None:
        self.inner = inner
        self.writer = writer
        #: With ``--input-format stream-json``: where the answers to questions come from.
        self.answers = answers
        self._questions = count(1)

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.writer.write(
            ApprovalRequestEvent(
                run_id=self.writer.lines.run_id,
                call_id=request.call_id,
                tool=request.tool,
                args=request.args,
                reason=request.reason,
                preview=request.preview,
                agent=request.subagent or None,
            )
        )
        answer = await self.inner.ask(request)
        self.writer.write(
            ApprovalAnswerEvent(
                run_id=self.writer.lines.run_id,
                call_id=request.call_id,
                kind=answer.kind,
                message=answer.message,
                args=answer.args or None,
            )
        )
        return answer

    async def ask_user(self, question: str) -> str | None:
        question_id = f"q{next(self._questions)}"
        self.writer.write(
            QuestionEvent(
                run_id=self.writer.lines.run_id, question_id=question_id, question=question
            )
        )
        answer: str | None = None
        try:
            if self.answers is None:
                answer = await self.inner.ask_user(question)
            else:
                given = await self.answers.answer(question_id)
                answer = None if given is None else given.answer
        finally:
            self.writer.write(
                AnswerEvent(run_id=self.writer.lines.run_id, question_id=question_id, answer=answer)
            )
        return answer

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        return await self.inner.confirm_edit(request, files)

    async def edit_reviewed(self, review: EditReview) -> None:
        await self.inner.edit_reviewed(review)

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        return await self.inner.approve_program(program)
