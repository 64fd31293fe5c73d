"""What a run writes through: ``SessionRecorder`` (one run's entries, in order) and
``RecordingApprover`` (every human decision as an entry: tool approvals, edits, the
late keep/undo of an edit reviewed in the editor, answers to the model's questions)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.policy.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    EditRequest,
    EditReview,
)
from agentls.agent.sessions.entries import (
    ApprovalDecision,
    AssistantMessage,
    CompactionEntry,
    ContextUpdate,
    ModelChoiceEntry,
    NoteEntry,
    PlanEntry,
    RunFinishEntry,
    RunStartEntry,
    StoredToolCall,
    SubagentEntry,
    ToolCallEntry,
    ToolResultEntry,
    UserMessage,
)
from agentls.agent.sessions.store import Session
from agentls.agent.workspace import EditOutcome, FileAccess

if TYPE_CHECKING:
    from agentls.agent.llm.models import Usage
    from agentls.agent.policy.program_approval import ProgramToApprove

# -- what the loop writes through -------------------------------------------------------


class SessionRecorder:
    """Writes one run's entries; the loop sets ``model_call_index`` before each model call."""

    def __init__(self, session: Session, run_id: str, agent: str = "build") -> None:
        self.session = session
        self.run_id = run_id
        self.agent = agent
        self.model_call_index = session.last_model_call_index(run_id)

    @property
    def path(self) -> Path:
        return self.session.path

    def _base(self, index: int | None = None) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "model_call_index": self.model_call_index if index is None else index,
        }

    def history(self) -> list[dict[str, Any]]:
        return self.session.history()

    async def start(
        self, prompt: str, instructions: Sequence[str] = (), model: str | None = None
    ) -> None:
        await self.session.append(
            RunStartEntry(
                prompt=prompt,
                agent=self.agent,
                instructions=list(instructions),
                model=model,
                **self._base(),
            )
        )

    def earlier_instructions(self) -> list[str]:
        """The instruction files earlier runs of the session gave the model, in order."""
        seen: list[str] = []
        for entry in self.session.entries:
            if isinstance(entry, RunStartEntry | RunFinishEntry) and entry.run_id != self.run_id:
                seen += [label for label in entry.instructions if label not in seen]
        return seen

    async def user(self, content: str) -> None:
        await self.session.append(UserMessage(content=content, **self._base()))

    async def note(self, content: str) -> None:
        await self.session.append(NoteEntry(content=content, **self._base()))

    async def assistant(
        self,
        content: str | None,
        tool_calls: Sequence[Any] = (),
        finish_reason: str = "stop",
        model: str | None = None,
    ) -> bool:
        calls = [StoredToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in tool_calls]
        entry = AssistantMessage(
            content=content,
            tool_calls=calls,
            finish_reason=finish_reason,
            model=model,
            **self._base(),
        )
        return await self.session.append(entry)

    async def tool_call(self, index: int, call_id: str, name: str, args: dict[str, Any]) -> None:
        entry = ToolCallEntry(call_id=call_id, name=name, arguments=args, **self._base(index))
        await self.session.append(entry)

    async def tool_result(
        self, index: int, call_id: str, name: str, success: bool, content: str
    ) -> None:
        entry = ToolResultEntry(
            call_id=call_id, name=name, success=success, content=content, **self._base(index)
        )
        await self.session.append(entry)

    def stored_result(self, index: int, call_id: str) -> ToolResultEntry | None:
        return self.session.result_for(self.run_id, index, call_id)

    async def decision(
        self, call_id: str, tool: str, decision: str, message: str, args: dict[str, Any]
    ) -> None:
        """One human decision, whatever was asked: the one way they reach the session."""
        entry = ApprovalDecision(
            call_id=call_id,
            tool=tool,
            decision=decision,
            message=message,
            args=args,
            **self._base(),
        )
        await self.session.append(entry)

    async def approval(self, request: ApprovalRequest, answer: ApprovalAnswer) -> None:
        # An "always allow" keeps the rule it saved; a modification, the arguments run.
        args = {**answer.args, "rule": answer.rule} if answer.rule else answer.args
        await self.decision(request.call_id, request.tool, answer.kind, answer.message, args)

    async def edit_decision(
        self, request: EditRequest, decision: str, outcome: EditOutcome
    ) -> None:
        paths = outcome.paths or [change.path for change in request.changes]
        args: dict[str, Any] = {"paths": paths}
        if outcome.kept_hunks or outcome.dropped_hunks:
            args.update(kept_hunks=outcome.kept_hunks, dropped_hunks=outcome.dropped_hunks)
        await self.decision(request.call_id, request.tool, decision, outcome.message, args)

    async def plan(self, goal: str, steps: Sequence[dict[str, str]]) -> None:
        await self.session.append(PlanEntry(goal=goal, steps=list(steps), **self._base()))

    async def model_choice(self, model: str | None) -> None:
        """The user's ``/model``: the session's next runs use ``model`` (None: the default)."""
        await self.session.append(ModelChoiceEntry(model=model, **self._base()))

    async def compaction(self, summary: str, replaced: int) -> None:
        await self.session.append(
            CompactionEntry(summary=summary, replaced=replaced, **self._base())
        )

    async def context_update(self, kind: str, before: int, after: int) -> None:
        entry = ContextUpdate(
            kind=kind, messages_before=before, messages_after=after, **self._base()
        )
        await self.session.append(entry)

    async def subagent(
        self,
        call_id: str,
        agent: str,
        task: str,
        *,
        status: str,
        steps: int,
        usage: Usage,
        report: str,
        model: str | None,
    ) -> None:
        entry = SubagentEntry(
            call_id=call_id,
            agent=agent,
            task=task[:4000],
            status=status,
            steps=steps,
            model=model,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            total_tokens=usage.total_tokens,
            report=report[:4000],
            **self._base(),
        )
        await self.session.append(entry)

    async def finish(
        self, status: str, state: str, output: str, instructions: Sequence[str] = ()
    ) -> None:
        entry = RunFinishEntry(
            status=status,
            state=state,
            output=output[:4000],
            instructions=list(instructions),
            **self._base(),
        )
        await self.session.append(entry)


#: What a human's answer to an edit was, by the edit's outcome. A stale or failed edit
#: was never decided by anybody, so it is not a decision; nor, yet, is a pending one.
EDIT_DECISIONS = {"applied": "approve", "rejected": "deny", "partial": "partial"}


class RecordingApprover:
    """An Approver that records every human decision in the session, then returns it:
    tool approvals and edit confirmations alike."""

    def __init__(self, inner: Approver, recorder: SessionRecorder) -> None:
        self.inner = inner
        self.recorder = recorder

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        answer = await self.inner.ask(request)
        await self.recorder.approval(request, answer)
        return answer

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        outcome = await self.inner.confirm_edit(request, files)
        decision = EDIT_DECISIONS.get(outcome.status)
        if decision is not None and not outcome.pending:
            await self.recorder.edit_decision(request, decision, outcome)
        return outcome

    async def ask_user(self, question: str) -> str | None:
        call_id = f"ask_user-{uuid.uuid4().hex[:8]}"
        try:
            answer = await self.inner.ask_user(question)
        except Exception as exc:  # nobody could be asked: that is what happened, too
            await self.recorder.decision(
                call_id, "ask_user", "unanswered", str(exc), {"question": question}
            )
            raise
        kind, message = ("answered", answer) if answer is not None else ("unanswered", "")
        args = {"question": question, "answer": answer}
        await self.recorder.decision(call_id, "ask_user", kind, message or "", args)
        return answer

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        # Stored in the user's trust.json (or remembered as refused) by the asker.
        return await self.inner.approve_program(program)

    async def edit_reviewed(self, review: EditReview) -> None:
        await self.inner.edit_reviewed(review)
        await self.recorder.decision(
            review.call_id, review.tool, review.decision, review.message, review.args
        )
