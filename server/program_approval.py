"""Asking the editor's user whether a program the workspace declares may run (an MCP
server, a workspace file's hooks: ``agent.policy.program_approval``).

Clients that declare ``experimental.agentls.approveProgram`` (the VS Code extension) get
``agent/approveProgram`` with what the program runs (every value or command as written,
which of the user's variables a value reads, the workspace files it runs with a
fingerprint each) and answer with a modal of their own; every other client gets
``window/showMessageRequest`` with the same in the message and "Allow" / "Don't allow".
A closed message, a failed request or a cancelled run is no answer: nothing runs, and it
is asked again at the next run; only "Don't allow" is a refusal.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from agentls.agent.cancel import CancelToken, Interrupted, race_cancel
from agentls.agent.policy.program_approval import ProgramToApprove
from agentls.server.protocol import ProgramApprovalParams, ProgramApprovalResult
from agentls.server.settings import agentls_capability

log = logging.getLogger(__name__)

METHOD = "agent/approveProgram"
ALLOW = "Allow"
REFUSE = "Don't allow"


def client_approves_programs(caps: types.ClientCapabilities | None) -> bool:
    return agentls_capability(caps, "approveProgram") is True


def approval_params(program: ProgramToApprove) -> ProgramApprovalParams:
    return ProgramApprovalParams(
        kind=program.kind,
        name=program.name,
        source=program.source,
        headline=program.headline,
        lines=list(program.lines),
        files=list(program.files),
        warning=program.warning,
        changed=program.changed,
    )


async def ask_editor(
    ls: LanguageServer, cancel: CancelToken, program: ProgramToApprove
) -> bool | None:
    """The user's answer: True (allowed), False (refused), None (no answer)."""
    if client_approves_programs(ls.client_capabilities):
        result = await _request(ls, cancel, METHOD, approval_params(program).to_wire())
        return result.approved if isinstance(result, ProgramApprovalResult) else None
    params = types.ShowMessageRequestParams(
        type=types.MessageType.Warning,
        message=f"agentls: {program.question()}",
        actions=[types.MessageActionItem(title=ALLOW), types.MessageActionItem(title=REFUSE)],
    )
    reply = await _request(ls, cancel, types.WINDOW_SHOW_MESSAGE_REQUEST, params)
    title = getattr(reply, "title", None)
    if title is None and isinstance(reply, dict):
        title = reply.get("title")
    if title is None:
        return None  # the message was closed, or the run cancelled: not a decision
    return bool(title == ALLOW)


async def _request(ls: LanguageServer, cancel: CancelToken, method: str, params: Any) -> Any:
    """The client's answer; None when the request failed or the run was cancelled (the
    question is then withdrawn)."""
    msg_id = f"agentls-{uuid.uuid4().hex[:12]}"
    answer = ls.protocol.send_request_async(method, params, msg_id=msg_id)
    try:
        return await race_cancel(answer, cancel)
    except Interrupted:
        ls.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        return None
    except Exception as exc:
        log.warning("%s failed: %s", method, exc)
        return None
