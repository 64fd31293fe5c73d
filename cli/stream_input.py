"""``agentls run --input-format stream-json``: a program drives the run through stdin, one
JSON object a line in the stream's own shapes (``agent.event_stream.StreamInput``):
``user_message`` (a message to the run while it works, through its ``RunMessages``),
``answer`` (to a ``question`` the stream showed, by its ``questionId``) and
``approval_answer`` (to an ``approval_request``, by its ``callId``).

A line that is not one of them is reported as a notice on the stream and skipped. At the
end of stdin every question still waiting, and every later one, is answered as nobody
can answer: an approval denied, a question unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
from typing import IO, TYPE_CHECKING

from pydantic import ValidationError

from agentls.agent.event_stream import (
    STREAM_INPUTS,
    AnswerEvent,
    ApprovalAnswerEvent,
    ApprovalRequestEvent,
    NoticeEvent,
    UserMessageEvent,
)
from agentls.agent.policy.approval import ApprovalAnswer, BaseApprover
from agentls.agent.workspace import EditOutcome, make_proposal

if TYPE_CHECKING:
    from agentls.agent.policy.approval import ApprovalRequest, EditRequest
    from agentls.agent.run_messages import RunMessages
    from agentls.agent.workspace import FileAccess
    from agentls.cli.stream_output import StreamWriter

ENDED = "stdin ended: nobody is left to answer"


class NoPrompt(ValueError):
    """The first line of stdin is not the run's prompt; the message says why."""


def prompt_from_stdin(stdin: IO[str] | None = None) -> str:
    """The run's prompt as a program gives it when it drives the whole run through stdin:
    the first non-empty line, a ``user_message``. Read before the run starts (the rest of
    stdin is then ``StreamInput``'s)."""
    source = stdin or sys.stdin
    for line in iter(source.readline, ""):
        if not line.strip():
            continue
        try:
            item = STREAM_INPUTS.validate_python(json.loads(line))
        except (ValueError, ValidationError) as exc:
            raise NoPrompt(
                f"the first line of stdin is no stream input: {str(exc).splitlines()[0]}"
            ) from None
        if not isinstance(item, UserMessageEvent):
            raise NoPrompt(f"the first line of stdin must be a user_message, not {item.type}")
        return item.text
    raise NoPrompt("stdin ended before the prompt (a user_message line)")


class StreamInput:
    """Reads stdin off the event loop and hands each line where it belongs."""

    def __init__(
        self, mailbox: RunMessages, writer: StreamWriter, stdin: IO[str] | None = None
    ) -> None:
        self.mailbox = mailbox
        self.writer = writer
        self.stdin = stdin or sys.stdin
        self.ended = False
        self._approvals: dict[str, asyncio.Future[ApprovalAnswerEvent | None]] = {}
        self._answers: dict[str, asyncio.Future[AnswerEvent | None]] = {}
        # Answers that came before their question was registered (a fast writer).
        self._early: dict[tuple[str, str], ApprovalAnswerEvent | AnswerEvent] = {}

    def start(self) -> None:
        """Reads stdin in a daemon thread: a program may keep stdin open after the run
        ends, and the process must not wait for it."""
        loop = asyncio.get_running_loop()

        def read() -> None:
            try:
                for line in iter(self.stdin.readline, ""):
                    if line.strip():
                        loop.call_soon_threadsafe(self._take, line)
            except (OSError, ValueError):  # stdin closed under the thread
                pass
            with contextlib.suppress(RuntimeError):  # the loop is gone: the run ended
                loop.call_soon_threadsafe(self._end)

        threading.Thread(target=read, name="agentls-stream-input", daemon=True).start()

    def stop(self) -> None:
        """The run ended: whatever comes later is for nobody."""
        self._end()

    def _take(self, line: str) -> None:
        try:
            item = STREAM_INPUTS.validate_python(json.loads(line))
        except (ValueError, ValidationError) as exc:
            message = f"stdin: skipped a line that is no stream input: {str(exc).splitlines()[0]}"
            self.writer.write(
                NoticeEvent(run_id=self.writer.lines.run_id, level="warning", message=message)
            )
            return
        if isinstance(item, UserMessageEvent):
            self.mailbox.send(item.text, item.mode)
        elif isinstance(item, ApprovalAnswerEvent):
            self._resolve(self._approvals, ("approval", item.call_id), item)
        else:
            self._resolve(self._answers, ("answer", item.question_id), item)

    def _resolve(
        self,
        waiting: dict[str, asyncio.Future[ApprovalAnswerEvent | None]]
        | dict[str, asyncio.Future[AnswerEvent | None]],
        key: tuple[str, str],
        item: ApprovalAnswerEvent | AnswerEvent,
    ) -> None:
        future = waiting.pop(key[1], None)
        if future is None or future.done():
            self._early[key] = item
        else:
            future.set_result(item)  # type: ignore[arg-type]

    def _end(self) -> None:
        self.ended = True
        for approval in self._approvals.values():
            if not approval.done():
                approval.set_result(None)
        for answer in self._answers.values():
            if not answer.done():
                answer.set_result(None)
        self._approvals.clear()
        self._answers.clear()

    async def approval(self, call_id: str) -> ApprovalAnswerEvent | None:
        early = self._early.pop(("approval", call_id), None)
        if isinstance(early, ApprovalAnswerEvent):
            return early
        if self.ended:
            return None
        future: asyncio.Future[ApprovalAnswerEvent | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._approvals[call_id] = future
        return await future

    async def answer(self, question_id: str) -> AnswerEvent | None:
        early = self._early.pop(("answer", question_id), None)
        if isinstance(early, AnswerEvent):
            return early
        if self.ended:
            return None
        future: asyncio.Future[AnswerEvent | None] = asyncio.get_running_loop().create_future()
        self._answers[question_id] = future
        return await future


class StreamInputApprover(BaseApprover):
    """Approvals answered by the lines of stdin (the questions too, through
    ``StreamingApprover``, which names them). Used inside ``StreamingApprover``, which
    writes each request before it is asked here, so the program reads what it answers."""

    def __init__(self, source: StreamInput) -> None:
        self.source = source

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer = await self.source.approval(request.call_id)
        if answer is None:
            return ApprovalAnswer("deny", message=ENDED)
        if answer.kind == "modify" and not answer.args:
            return ApprovalAnswer("deny", message="`modify` came without `args`")
        if answer.kind == "approve_always" and not request.suggested_rule:
            return ApprovalAnswer("approve")
        return ApprovalAnswer(
            answer.kind,
            args=answer.args or {},
            message=answer.message,
            rule=request.suggested_rule or "" if answer.kind == "approve_always" else "",
        )

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        """A change to confirm is an ``approval_request`` too (its diff the preview): the
        file access has no terminal to ask, so the change is asked about here and applied
        as confirmed."""
        proposal = make_proposal(request.changes)
        paths = [c.path for c in request.changes]
        writer = self.source.writer
        writer.write(
            ApprovalRequestEvent(
                run_id=writer.lines.run_id,
                call_id=request.call_id,
                tool=request.tool,
                args={"paths": paths},
                reason=request.reason or "the change needs confirmation",
                preview=proposal.diff,
                agent=request.subagent or None,
            )
        )
        answer = await self.source.approval(request.call_id)
        kind = "deny" if answer is None else answer.kind
        message = ENDED if answer is None else answer.message
        writer.write(
            ApprovalAnswerEvent(
                run_id=writer.lines.run_id, call_id=request.call_id, kind=kind, message=message
            )
        )
        if kind in ("approve", "approve_run", "approve_always"):
            return await files.apply(request.changes, confirm=False)
        if kind == "abort":
            return EditOutcome("rejected", "the user stopped the run here", paths)
        return EditOutcome("rejected", message or "the user rejected this change", paths)
