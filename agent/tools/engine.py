"""Runs one tool call: validate, decide approval, ask, run. Never raises for a tool error.

Everything that can go wrong with a call the model made (an unknown tool, arguments
that are not JSON or do not fit the schema, a refusal, a tool that fails) comes back
as ``ToolResult(success=False)`` with a message the model can act on. Only two
things leave by exception: cancellation, and ``RunAborted`` when the human chose to
abort the whole run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from agentls.agent.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    DenyingApprover,
    decide,
)
from agentls.agent.cancel import Interrupted, race_cancel
from agentls.agent.config import AgentConfig, AppConfig
from agentls.agent.errors import AgentError, ToolNotFoundError
from agentls.agent.events import RunState
from agentls.agent.llm.models import ToolCall
from agentls.agent.state import ToolCallResult
from agentls.agent.tools.base import Tool, ToolContext, ToolResult
from agentls.agent.tools.registry import ToolRegistry
from agentls.agent.workspace import FileAccess

log = logging.getLogger(__name__)


class RunAborted(Exception):
    """The human chose to abort the run while approving a tool call."""

    def __init__(self, message: str = "the user aborted the run") -> None:
        super().__init__(message)


def format_args_error(tool: Tool, error: PydanticValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        message = "unexpected argument" if item["type"] == "extra_forbidden" else item["msg"]
        problems.append(f"{where}: {message}")
    fields = tool.args_model.model_json_schema().get("properties", {})
    required = tool.args_model.model_json_schema().get("required", [])
    expected = ", ".join(f"{name}{'' if name in required else '?'}" for name in fields)
    return (
        f"Invalid arguments for {tool.name}: {'; '.join(problems)}. "
        f"Expected arguments: {expected}. Fix the arguments and call it again."
    )


class ExecutionEngine:
    """Executes tool calls for one run."""

    def __init__(
        self,
        registry: ToolRegistry,
        files: FileAccess,
        config: AppConfig,
        *,
        approver: Approver | None = None,
        index: Any = None,
        dry_run: bool = False,
        run_id: str = "",
        on_state: Callable[[RunState], None] | None = None,
        extras: dict[str, Any] | None = None,
    ) -> None:
        self.registry = registry
        self.files = files
        self.config = config
        self.approver: Approver = approver or DenyingApprover(
            "no one can be asked to approve this (no interactive front end)"
        )
        self.index = index
        self.dry_run = dry_run
        self.run_id = run_id
        self._on_state = on_state
        self.extras = extras or {}
        self._allowed_for_run: set[str] = set()

    def _state(self, state: RunState) -> None:
        if self._on_state is not None:
            self._on_state(state)

    async def execute_tool_call(self, call: ToolCall, agent: AgentConfig) -> ToolCallResult:
        def done(
            result: ToolResult, args: dict[str, Any] | None = None, **kw: Any
        ) -> ToolCallResult:
            return ToolCallResult(
                tool_name=call.name,
                args=call.arguments if args is None else args,
                result=result,
                call_id=call.id,
                **kw,
            )

        try:
            tool = self.registry.get(call.name)
        except ToolNotFoundError as exc:
            return done(ToolResult.fail(f"{exc}. Call one of the available tools."))
        if call.parse_error is not None:
            raw = (call.raw_arguments or "")[:200]
            return done(
                ToolResult.fail(
                    f"The arguments for {call.name} were not valid JSON ({call.parse_error}): "
                    f"{raw!r}. Send the arguments as one JSON object."
                )
            )
        try:
            args = tool.args_model.model_validate(call.arguments)
        except PydanticValidationError as exc:
            return done(ToolResult.fail(format_args_error(tool, exc)))

        decision = decide(
            tool, call.arguments, agent, allowed_for_run=frozenset(self._allowed_for_run)
        )
        if decision.kind == "forbidden":
            return done(ToolResult.fail(f"Not allowed: {decision.reason}."), was_confirmed=False)

        confirm_edits = False
        note = ""
        arguments = call.arguments
        if decision.kind == "needs_approval":
            if tool.edits_files and not self.dry_run:
                confirm_edits = True  # the FileAccess carries the question with the edit
            elif not self.dry_run:
                answer = await self._ask(tool, call, decision.reason, args)
                if answer.kind == "abort":
                    raise RunAborted(answer.message or "the user aborted the run")
                if answer.kind == "deny":
                    why = f" ({answer.message})" if answer.message else ""
                    return done(
                        ToolResult.fail(
                            f"The user denied this {call.name} call{why}. It did not run. "
                            "Do not repeat it unchanged: choose another approach or ask the user."
                        ),
                        was_confirmed=False,
                    )
                if answer.kind == "approve_run":
                    self._allowed_for_run.add(tool.name)
                if answer.kind == "modify":
                    try:
                        args = tool.args_model.model_validate(answer.args)
                    except PydanticValidationError as exc:
                        return done(
                            ToolResult.fail(f"The user's modified arguments were invalid: {exc}"),
                            was_confirmed=False,
                        )
                    arguments = answer.args
                    note = (
                        "Note: the user modified this call before it ran; it ran with "
                        f"{json.dumps(_short(answer.args))}.\n"
                    )

        ctx = ToolContext(
            files=self.files,
            config=self.config,
            dry_run=self.dry_run,
            confirm_edits=confirm_edits,
            index=self.index,
            call_id=call.id,
            run_id=self.run_id,
            extras=self.extras,
            agent=agent,
        )
        try:
            result = await self._run(tool, args, ctx)
        except AgentError as exc:
            result = ToolResult.fail(str(exc))
        except Exception as exc:  # a bug in a tool must not end the run
            log.exception("tool %s failed", call.name)
            result = ToolResult.fail(f"Internal error in {call.name}: {type(exc).__name__}: {exc}")
        if note:
            result = result.model_copy(update={"output": note + result.output})
        return done(result, arguments, was_dry_run=self.dry_run and tool.sensitive)

    async def _run(self, tool: Tool, args: Any, ctx: ToolContext) -> ToolResult:
        cancel = self.extras.get("cancel")
        if not tool.interruptible or cancel is None:
            return await tool.run(args, ctx)
        try:
            # The tool kills what it started (the whole process group) when cancelled.
            return await race_cancel(tool.run(args, ctx), cancel)
        except Interrupted:
            return ToolResult.fail(
                f"{tool.name} was stopped because the run was cancelled; what it started was "
                "killed."
            )

    async def _ask(self, tool: Tool, call: ToolCall, reason: str, args: Any) -> ApprovalAnswer:
        explanation, preview = await tool.describe_for_approval(args, self)
        self._state(RunState.AWAITING_HUMAN)
        try:
            return await self.approver.ask(
                ApprovalRequest(
                    run_id=self.run_id,
                    call_id=call.id,
                    tool=call.name,
                    args=call.arguments,
                    reason=reason,
                    explanation=explanation,
                    preview=preview,
                    editable_arg=tool.editable_arg,
                )
            )
        finally:
            self._state(RunState.TOOL_RUNNING)


def _short(args: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v[:200] + "..." if isinstance(v, str) and len(v) > 200 else v) for k, v in args.items()
    }
