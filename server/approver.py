"""Approvals and questions for the human, over LSP.

- ``LspApprover.ask`` implements ``agent.policy.approval.Approver`` with
  ``window/showMessageRequest``: "Allow once" / "Allow for this run" / "Always allow
  `pytest*`" / "Edit…" / "Deny" / "Stop the run"; a null answer (the user closed the
  message) is a denial. "Always allow" is offered when the tool proposes an allow rule
  (saved in the user config by the engine); "Allow for this run" is not offered for a
  question the policy insists on (an ask rule, a protected file), which it would not
  cover. "Edit…" is offered for tools whose command or code a human may rewrite, to
  clients that can answer ``agent/askUser``: the edited text is what runs, and the model
  is told. File edits do not come here: their confirmation travels with the edit
  (server.lsp_files).
- ``LspApprover.ask_user`` sends ``agent/askUser {runId, question}`` → ``{answer}`` to
  clients that declare ``experimental.agentls.askUser``; for others it raises
  ``AskUserUnsupported``, which the tool reports to the model as a clear error.
- ``LspApprover.approve_program`` asks whether a program the workspace declares may run
  (``server.program_approval``: ``agent/approveProgram``, else ``window/showMessageRequest``).

When the run is cancelled while a question is open, the pending request is withdrawn
with ``$/cancelRequest`` and the approval answers ``abort`` so nothing runs.
"""

from __future__ import annotations

import logging
import uuid
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from agentls.agent.cancel import CancelToken, Interrupted, race_cancel
from agentls.agent.errors import AgentError, NoTTYError
from agentls.agent.policy.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    BaseApprover,
    EditRequest,
)
from agentls.agent.text import shorten
from agentls.server.edits import EDIT_AUTHOR
from agentls.server.protocol import AskUserParams, AskUserResult
from agentls.server.settings import plain

if TYPE_CHECKING:
    from agentls.agent.policy.program_approval import ProgramToApprove
    from agentls.agent.workspace import EditOutcome, FileAccess

log = logging.getLogger(__name__)

ALLOW_ONCE = "Allow once"
ALLOW_RUN = "Allow for this run"
DENY = "Deny"
EDIT = "Edit…"
STOP = "Stop the run"
MAX_PREVIEW_CHARS = 1500


def always_allow(rule: str) -> str:
    """The title of the action that saves ``rule`` as an allow rule."""
    return f"Always allow `{rule}`"


class AskUserUnsupported(NoTTYError):
    """The client cannot answer questions (no ``experimental.agentls.askUser``)."""


def client_supports_ask_user(caps: types.ClientCapabilities | None) -> bool:
    experimental = plain(caps.experimental) if caps is not None else None
    if not isinstance(experimental, dict):
        return False
    agentls = experimental.get("agentls")
    return isinstance(agentls, dict) and bool(agentls.get("askUser"))


def approval_message(request: ApprovalRequest) -> str:
    """The text of the approval question: what, why, and the exact thing that will run."""
    # A subagent's call names it; the message still starts as every approval does, which
    # is how a client tells an approval from the server's other questions.
    by = f" (subagent {request.subagent})" if request.subagent else ""
    lines = [f"agentls wants to run {request.tool}{by}."]
    if request.explanation:
        lines.append(request.explanation)
    if request.preview:
        lines.append(shorten(request.preview, MAX_PREVIEW_CHARS, marker="\n… (truncated)"))
    if request.reason:
        lines.append(f"(Asked because {request.reason}.)")
    return "\n\n".join(lines)


class LspApprover(BaseApprover):
    """Asks the editor's user; one per run (``cancel`` is the run's token)."""

    def __init__(
        self,
        ls: LanguageServer,
        run_id: str,
        *,
        cancel: CancelToken | None = None,
    ) -> None:
        self._ls = ls
        self.run_id = run_id
        self._cancel = cancel or CancelToken()

    async def _request(self, method: str, params: Any) -> tuple[bool, Any]:
        """Send a request to the client; (False, None) if the run was cancelled meanwhile."""
        msg_id = f"agentls-{uuid.uuid4().hex[:12]}"
        answer = self._ls.protocol.send_request_async(method, params, msg_id=msg_id)
        try:
            return True, await race_cancel(answer, self._cancel)
        except Interrupted:
            self._ls.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            return False, None

    async def _ask_user(self, params: AskUserParams) -> tuple[bool, str | None]:
        """``agent/askUser``: (False, None) if the run was cancelled meanwhile; an answer
        that does not fit ``AskUserResult`` (the protocol refuses it) is no answer."""
        try:
            answered, result = await self._request("agent/askUser", params.to_wire())
        except JsonRpcInvalidParams as exc:
            log.warning("run %s: agent/askUser: %s", self.run_id, exc.message)
            return True, None
        return answered, result.answer if isinstance(result, AskUserResult) else None

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        titles = [ALLOW_ONCE] if request.insist else [ALLOW_ONCE, ALLOW_RUN]
        rule = request.suggested_rule
        if rule:
            titles.append(always_allow(rule))
        editable = request.editable_arg if self.can_ask_user else None
        if editable:
            titles.append(EDIT)
        titles += [DENY, STOP]
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=approval_message(request),
            actions=[types.MessageActionItem(title=title) for title in titles],
        )
        try:
            answered, result = await self._request(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        except Exception as exc:
            log.warning("run %s: approval request failed: %s", self.run_id, exc)
            return ApprovalAnswer("deny", message=f"the editor could not ask the user ({exc})")
        if not answered:
            return ApprovalAnswer("abort", message="the run was cancelled")
        title = getattr(result, "title", None)
        if title is None and isinstance(result, dict):
            title = result.get("title")
        if title == ALLOW_ONCE:
            return ApprovalAnswer("approve")
        if title == ALLOW_RUN and not request.insist:
            return ApprovalAnswer("approve_run")
        if rule and title == always_allow(rule):
            return ApprovalAnswer("approve_always", rule=rule)
        if title == DENY:
            return ApprovalAnswer("deny", message="the user chose Deny")
        if title == STOP:
            return ApprovalAnswer("abort", message="the user stopped the run")
        if title == EDIT and editable:
            return await self._edit(request, editable)
        return ApprovalAnswer("deny", message="the user dismissed the question")

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        """Confirmed with the edit itself (server.lsp_files), which names the subagent
        whose edit it is in its label and question."""
        author = EDIT_AUTHOR.set(request.subagent)
        try:
            return await files.apply(request.changes, confirm=True)
        finally:
            EDIT_AUTHOR.reset(author)

    async def _edit(self, request: ApprovalRequest, editable: str) -> ApprovalAnswer:
        current = str(request.args.get(editable, ""))
        by = f", for the subagent {request.subagent}" if request.subagent else ""
        question = f"Edit the {editable} to run ({request.tool}{by}):"
        params = AskUserParams(run_id=self.run_id, question=question, default=current)
        answered, new_value = await self._ask_user(params)
        if not answered:
            return ApprovalAnswer("abort", message="the run was cancelled")
        if new_value is None or not new_value.strip():
            return ApprovalAnswer("deny", message="the user cancelled the edit")
        return ApprovalAnswer("modify", args={**request.args, editable: new_value})

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        from agentls.server.program_approval import ask_editor

        return await ask_editor(self._ls, self._cancel, program)

    @property
    def can_ask_user(self) -> bool:
        return client_supports_ask_user(self._ls.client_capabilities)

    async def ask_user(self, question: str) -> str | None:
        """The user's answer, or None when they declined to answer.

        Raises ``AskUserUnsupported`` for clients that cannot be asked and when the
        run is cancelled while the question is open.
        """
        if not self.can_ask_user:
            raise AskUserUnsupported(
                "This editor cannot answer questions (it does not declare "
                "experimental.agentls.askUser). Do not ask again: proceed with the most "
                "reasonable assumption, or finish and state the question in your answer."
            )
        params = AskUserParams(run_id=self.run_id, question=question)
        answered, answer = await self._ask_user(params)
        if not answered:
            raise AgentError("the run was cancelled while waiting for the user's answer")
        return answer
