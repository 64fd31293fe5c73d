"""Every question of a run, asked with ``session/request_permission``.

The ACP options map onto the approval policy as the CLI's and the editor's answers do:
allow once; "Always allow `pytest*`", offered only when a rule fits the command, saves
that allow rule (the same rule the CLI and the editor would save, ``suggest_rule``) and
allows nothing else; reject once; reject always (this tool is refused for the rest of
the session). A question the policy insists on (an ask rule, a command the rules cannot
check, a protected file) is asked whatever was answered before. A cancelled request
(the user cancelled the turn) stops the run. An edit that needs confirmation is asked
about with its diff, then written only when allowed: "Always allow edits by <tool>"
writes that tool's later edits of the session without asking (protected files still
ask); the model is told when an edit was not written. A program the workspace declares
(an MCP server, a file's hooks) is asked about with its exact definition: "Allow" or
"Don't allow".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.protocol.client import Client
from agentls.acp_agent.protocol.schema import AllowedOutcome, PermissionOption, ToolCallUpdate
from agentls.acp_agent.updates import UpdateSender, subagent_title, tool_kind, tool_title
from agentls.agent.policy.approval import ApprovalAnswer, ApprovalRequest, BaseApprover, EditRequest
from agentls.agent.text import shorten
from agentls.agent.workspace import EditOutcome, FileAccess

if TYPE_CHECKING:
    from agentls.agent.policy.program_approval import ProgramToApprove

log = logging.getLogger(__name__)

ALLOW_ONCE = PermissionOption(option_id="allow_once", name="Allow", kind="allow_once")
REJECT_ONCE = PermissionOption(option_id="reject_once", name="Reject", kind="reject_once")
REJECT_ALWAYS = PermissionOption(
    option_id="reject_always", name="Always reject", kind="reject_always"
)
MAX_PREVIEW_CHARS = 4000


def always_allow_option(name: str) -> PermissionOption:
    """The "always" option, named for exactly what it allows."""
    return PermissionOption(option_id="allow_always", name=name, kind="allow_always")


def call_options(rule: str | None) -> list[PermissionOption]:
    """The options of a tool call: "always" only as the allow rule that fits it, the
    rule the CLI and the editor offer to save (``suggested_rule``); a call no rule fits
    (``curl … | sh``, a tool that is not a command) has no "always" to give."""
    always = [always_allow_option(f"Always allow `{rule}`")] if rule else []
    return [ALLOW_ONCE, *always, REJECT_ONCE, REJECT_ALWAYS]


def edit_options(tool: str) -> list[PermissionOption]:
    return [
        ALLOW_ONCE,
        always_allow_option(f"Always allow edits by {tool} in this session"),
        REJECT_ONCE,
        REJECT_ALWAYS,
    ]


@dataclass
class SessionRules:
    """What the user answered "always" to in this session, by tool: ``allowed`` holds
    the tools whose edits are written without asking, ``rejected`` the refused tools."""

    allowed: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)


class AcpApprover(BaseApprover):
    def __init__(
        self, client: Client, session_id: str, rules: SessionRules, updates: UpdateSender
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.rules = rules
        self.updates = updates

    async def _choose(
        self,
        tool: str,
        call: ToolCallUpdate,
        options: list[PermissionOption],
        *,
        remembered_allow: bool = False,
    ) -> str:
        """The option the user picked among ``options``, or "cancelled".
        ``remembered_allow``: an earlier "always" of the session answers it."""
        if remembered_allow:
            return "allow_always"
        if tool in self.rules.rejected:
            return "reject_always"
        await self.updates.flush()  # the tool call is shown before the question about it
        answer = await self.client.request_permission(
            session_id=self.session_id, tool_call=call, options=options
        )
        outcome = answer.outcome
        choice = outcome.option_id if isinstance(outcome, AllowedOutcome) else "cancelled"
        if choice not in {option.option_id for option in options}:
            # An option that was not offered (an "always" for a call no rule fits) is no
            # answer to this question.
            return "reject_once" if choice != "cancelled" else choice
        if choice == "reject_always":
            self.rules.rejected.add(tool)
        return choice

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        preview = "\n\n".join(p for p in (request.explanation, request.preview) if p)
        content = (
            [helpers.tool_content(helpers.text_block(shorten(preview, MAX_PREVIEW_CHARS)))]
            if preview
            else None
        )
        call = _call_update(request.call_id, request.tool, request.args, content, request.subagent)
        rule = request.suggested_rule
        try:
            choice = await self._choose(request.tool, call, call_options(rule))
        except Exception as exc:
            log.warning("session/request_permission failed", exc_info=True)
            return ApprovalAnswer("deny", message=f"the editor could not ask the user ({exc})")
        if choice == "allow_always" and rule:
            # The engine saves the rule (only the one it proposed) and applies it at once.
            return ApprovalAnswer("approve_always", rule=rule)
        return _ANSWERS.get(choice, _ANSWERS["reject_once"])

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        paths = [change.path for change in request.changes]
        diffs = [
            helpers.tool_diff_content(
                str(files.resolve(change.path)), change.new_text or "", change.base_text
            )
            for change in request.changes
        ]
        content: list[Any] = diffs
        if request.reason:  # why this edit is asked about whatever was allowed before
            content = [
                helpers.tool_content(helpers.text_block(f"Asked because {request.reason}.")),
                *diffs,
            ]
        call = _call_update(
            request.call_id, request.tool, {"paths": paths}, content, request.subagent
        )
        remembered = request.tool in self.rules.allowed and not request.insist
        try:
            choice = await self._choose(
                request.tool, call, edit_options(request.tool), remembered_allow=remembered
            )
        except Exception as exc:
            log.warning("session/request_permission failed", exc_info=True)
            return EditOutcome(
                "rejected", f"the editor could not ask the user ({exc}); nothing changed", paths
            )
        if choice == "allow_always":
            self.rules.allowed.add(request.tool)
        if choice in {"allow_once", "allow_always"}:
            return await files.apply(request.changes, confirm=False)
        why = "the run was cancelled" if choice == "cancelled" else "the user rejected this change"
        return EditOutcome("rejected", f"{why}; nothing was changed", paths)

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        """Asks before a program the workspace declares runs (an MCP server, a file's
        hooks), its exact definition in the question: Allow (stored, so "always"), or
        Don't allow. A cancelled or failed request is no answer."""
        call = ToolCallUpdate(
            tool_call_id=f"program-approval-{program.kind}-{program.name}",
            title=program.headline,
            kind="execute",
            status="pending",
            content=[helpers.tool_content(helpers.text_block(program.question()))],
            raw_input={"kind": program.kind, "name": program.name, "source": program.source},
        )
        await self.updates.flush()
        try:
            answer = await self.client.request_permission(
                session_id=self.session_id, tool_call=call, options=PROGRAM_OPTIONS
            )
        except Exception:
            log.warning("session/request_permission failed", exc_info=True)
            return None
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):
            return None  # the turn was cancelled: no decision
        return outcome.option_id == "allow"


def _call_update(
    call_id: str, tool: str, args: dict[str, Any], content: list[Any] | None, subagent: str = ""
) -> ToolCallUpdate:
    """The tool call a question is about; a subagent's is titled with its name and says
    who asks above the rest, so the user knows which agent wants it."""
    title = tool_title(tool, args)
    if subagent:
        title = subagent_title(subagent, title)
        asks = helpers.tool_content(helpers.text_block(f"The subagent {subagent} asks."))
        content = [asks, *(content or [])]
    return ToolCallUpdate(
        tool_call_id=call_id,
        title=title,
        kind=tool_kind(tool),
        status="pending",
        content=content,
        raw_input=args,
    )


_ANSWERS = {
    "allow_once": ApprovalAnswer("approve"),
    "reject_once": ApprovalAnswer("deny", message="the user rejected this call"),
    "reject_always": ApprovalAnswer(
        "deny", message="the user rejected this tool for the rest of the session"
    ),
    "cancelled": ApprovalAnswer("abort", message="the user cancelled the turn"),
}


PROGRAM_OPTIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Don't allow", kind="reject_once"),
]
