"""Runs one tool call: validate, decide approval, ask, run. Never raises for a tool error.

Everything that can go wrong with a call the model made (an unknown tool, arguments
that are not JSON or do not fit the schema, a refusal, a tool that fails) comes back
as ``ToolResult(success=False)`` with a message the model can act on. Only two
things leave by exception: cancellation, and ``AbortedByUser`` when the human chose to
abort the whole run.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from agentls.agent.cancel import Interrupted, race_cancel
from agentls.agent.config.models import AgentConfig
from agentls.agent.config.user_rules import add_allow_rule, saved_allow_rules
from agentls.agent.errors import AgentError, ConfigError, ToolNotFoundError
from agentls.agent.events import Notice, RunState
from agentls.agent.exec.sandbox import find_bwrap
from agentls.agent.llm.models import ToolCall
from agentls.agent.policy.approval import ApprovalAnswer, ApprovalRequest, Decision, decide
from agentls.agent.policy.command_rules import CommandRules
from agentls.agent.secrets import Masker
from agentls.agent.text import shorten_args
from agentls.agent.tools.base import AnyTool, RunContext, ToolCallResult, ToolContext, ToolResult
from agentls.agent.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


class AbortedByUser(Exception):
    """The human chose to abort the run while approving a tool call."""

    def __init__(self, message: str = "the user aborted the run") -> None:
        super().__init__(message)


def format_args_error(tool: AnyTool, error: PydanticValidationError) -> str:
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


class _Refused(Exception):
    """The call does not run; ``result`` says why (to the model)."""

    def __init__(self, result: ToolResult, *, was_confirmed: bool = True) -> None:
        self.result = result
        #: False when the policy or the human refused it (rather than its arguments).
        self.was_confirmed = was_confirmed


class ExecutionEngine:
    """Executes tool calls for one run, with the run's context."""

    def __init__(self, registry: ToolRegistry, run: RunContext) -> None:
        self.registry = registry
        self.run = run
        self._allowed_for_run: set[str] = set()
        #: Allow rules the human saved during this run ("always allow"): they count at
        #: once, before the config is next read.
        self._saved_rules: list[str] = []

    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def rules(self) -> CommandRules:
        """The run's command rules: the config's, plus the allow rules saved since it was
        loaded (in the user config, or this run's when it could not be written)."""
        saved = [*saved_allow_rules(), *self._saved_rules]
        return CommandRules.from_config(self.run.config.commands, saved)

    def decision_for(self, call: ToolCall, agent: AgentConfig) -> Decision:
        """The approval policy for ``call`` now (the loop asks it before going parallel)."""
        if not self.registry.has_tool(call.name):
            return Decision("forbidden", f"unknown tool {call.name}")
        return decide(
            self.registry.get(call.name),
            call.arguments,
            agent,
            allowed_for_run=frozenset(self._allowed_for_run),
            rules=self.rules,
            sandbox_available=find_bwrap() is not None,
            root=self.run.files.root,
            extra_protected=self.run.protected_extra,
        )

    async def execute_tool_call(self, call: ToolCall, agent: AgentConfig) -> ToolCallResult:
        """Validate, decide, ask if needed, run. Every refusal is a result for the model."""
        try:
            tool, args = self._validated(call)
            await self._pre_tool_hooks(call)
            approved = await self._approved(tool, call, args, agent)
        except _Refused as refused:
            return self._done(
                call, refused.result, call.arguments, was_confirmed=refused.was_confirmed
            )
        args, arguments, decision, note = approved
        confirm_edits = decision is not None
        ctx = ToolContext(
            self.run,
            agent=agent,
            call_id=call.id,
            tool=tool.name,
            confirm_edits=confirm_edits,
            confirm_reason=decision.reason if decision is not None and decision.insist else "",
            confirm_insists=decision is not None and decision.insist,
        )
        result = await self._run(tool, args, ctx)
        if note:
            result = result.model_copy(update={"output": note + result.output})
        result = await self._post_tool_hooks(call, result)
        was_dry_run = self.run.dry_run and tool.sensitive
        return self._done(call, result, arguments, was_dry_run=was_dry_run)

    async def _pre_tool_hooks(self, call: ToolCall) -> None:
        """PreToolUse hooks, before anybody is asked: a block refuses the call, and the
        model reads the hook's reason."""
        hooks = self.run.hooks
        if hooks is None or not hooks.has("PreToolUse"):
            return
        payload = {"tool_name": call.name, "tool_input": call.arguments}
        outcome = await hooks.run("PreToolUse", payload, tool=call.name)
        self._report(outcome.problems)
        if outcome.blocked:
            raise _Refused(
                ToolResult.fail(f"A PreToolUse hook blocked this call: {outcome.reason}"),
                was_confirmed=False,
            )

    async def _post_tool_hooks(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """PostToolUse hooks, after the call ran (it cannot be undone): a block's reason
        is added to the result for the model."""
        hooks = self.run.hooks
        if hooks is None or not hooks.has("PostToolUse"):
            return result
        payload = {
            "tool_name": call.name,
            "tool_input": call.arguments,
            "tool_response": {"success": result.success, "output": result.output[:4000]},
        }
        outcome = await hooks.run("PostToolUse", payload, tool=call.name)
        self._report(outcome.problems)
        if not outcome.blocked:
            return result
        told = f"{result.output}\n\nA PostToolUse hook says: {outcome.reason}"
        return result.model_copy(update={"output": told})

    def _report(self, problems: list[str]) -> None:
        for problem in problems:
            self.run.observer(Notice("warning", problem))

    @staticmethod
    def _done(
        call: ToolCall, result: ToolResult, args: dict[str, Any], **kw: Any
    ) -> ToolCallResult:
        """The call's result as everyone sees it: every tool's (MCP tools', a command's
        output, a file's text) through the outward pass before the model, the session or
        a front end gets it."""
        masker = Masker.current()
        masked = result.model_copy(
            update={
                "output": masker.mask(result.output),
                "error": masker.mask(result.error) if result.error is not None else None,
            }
        )
        return ToolCallResult(tool_name=call.name, args=args, result=masked, call_id=call.id, **kw)

    def _validated(self, call: ToolCall) -> tuple[AnyTool, Any]:
        try:
            tool = self.registry.get(call.name)
        except ToolNotFoundError as exc:
            raise _Refused(ToolResult.fail(f"{exc}. Call one of the available tools.")) from None
        if call.parse_error is not None:
            raw = (call.raw_arguments or "")[:200]
            raise _Refused(
                ToolResult.fail(
                    f"The arguments for {call.name} were not valid JSON ({call.parse_error}): "
                    f"{raw!r}. Send the arguments as one JSON object."
                )
            )
        try:
            return tool, tool.args_model.model_validate(call.arguments)
        except PydanticValidationError as exc:
            raise _Refused(ToolResult.fail(format_args_error(tool, exc))) from None

    async def _approved(
        self, tool: AnyTool, call: ToolCall, args: Any, agent: AgentConfig
    ) -> tuple[Any, dict[str, Any], Decision | None, str]:
        """(args, arguments as run, the decision when the edits must be confirmed, note
        for the model) once the policy and, if asked, the human let the call run. Raises
        ``_Refused`` or ``AbortedByUser``."""
        decision = self.decision_for(call, agent)
        if decision.kind == "forbidden":
            raise _Refused(
                ToolResult.fail(
                    f"Not allowed: {decision.reason}. It did not run; a rule of the user's "
                    "configuration forbids it, so do not try to get around it."
                    if decision.rule is not None
                    else f"Not allowed: {decision.reason}."
                ),
                was_confirmed=False,
            )
        if decision.kind == "skip" or self.run.dry_run:
            return args, call.arguments, None, ""
        if tool.edits_files:
            return args, call.arguments, decision, ""  # the Approver confirms the edit itself
        answer = await self._ask(tool, call, decision, args)
        if answer.kind == "abort":
            raise AbortedByUser(answer.message or "the user aborted the run")
        if answer.kind == "deny":
            why = f" ({answer.message})" if answer.message else ""
            raise _Refused(
                ToolResult.fail(
                    f"The user denied this {call.name} call{why}. It did not run. "
                    "Do not repeat it unchanged: choose another approach or ask the user."
                ),
                was_confirmed=False,
            )
        if answer.kind == "approve_run":
            self._allowed_for_run.add(tool.name)
        if answer.kind == "approve_always":
            self._save_rule(answer.rule, tool.suggested_rule(call.arguments))
        if answer.kind != "modify":
            return args, call.arguments, None, ""
        try:
            args = tool.args_model.model_validate(answer.args)
        except PydanticValidationError as exc:
            raise _Refused(
                ToolResult.fail(f"The user's modified arguments were invalid: {exc}"),
                was_confirmed=False,
            ) from None
        note = (
            "Note: the user modified this call before it ran; it ran with "
            f"{json.dumps(shorten_args(answer.args, 200))}.\n"
        )
        return args, answer.args, None, note

    def _save_rule(self, rule: str, suggested: str | None) -> None:
        """Save the rule the human chose to always allow: in the user config for later
        runs, and for the rest of this one at once. Only the rule the tool proposed is
        saved, whatever a front end sent."""
        if not rule or rule != suggested:
            log.warning("run %s: not saving %r, which is not the proposed rule", self.run_id, rule)
            return
        if rule not in self._saved_rules:
            self._saved_rules.append(rule)
        try:
            added = add_allow_rule(rule)
        except ConfigError as exc:
            self.run.observer(Notice("warning", f"`{rule}` is allowed for this run only: {exc}"))
            return
        if added:
            self.run.observer(
                Notice(
                    "info", f"`{rule}` is now allowed without asking (saved in your user config)"
                )
            )

    async def _run(self, tool: AnyTool, args: Any, ctx: ToolContext) -> ToolResult:
        try:
            return await self._interruptible(tool, args, ctx)
        except AgentError as exc:
            return ToolResult.fail(str(exc))
        except Exception as exc:  # a bug in a tool must not end the run
            log.exception("tool %s failed", tool.name)
            return ToolResult.fail(f"Internal error in {tool.name}: {type(exc).__name__}: {exc}")

    async def _interruptible(self, tool: AnyTool, args: Any, ctx: ToolContext) -> ToolResult:
        cancel = self.run.cancel
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

    async def _ask(
        self, tool: AnyTool, call: ToolCall, decision: Decision, args: Any
    ) -> ApprovalAnswer:
        explanation, preview = await tool.describe_for_approval(args, self.run)
        suggested = tool.suggested_rule(call.arguments) if decision.rule_would_skip else None
        self.run.set_state(RunState.AWAITING_HUMAN)
        try:
            return await self.run.approver.ask(
                ApprovalRequest(
                    run_id=self.run.run_id,
                    call_id=call.id,
                    tool=call.name,
                    args=call.arguments,
                    reason=decision.reason,
                    explanation=explanation,
                    preview=preview,
                    editable_arg=tool.editable_arg,
                    suggested_rule=suggested,
                    insist=decision.insist,
                )
            )
        finally:
            self.run.set_state(RunState.TOOL_RUNNING)
