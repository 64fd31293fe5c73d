"""Asking the editor's user before a workspace's MCP server starts.

Clients that declare ``experimental.agentls.approveMcpServer`` (the VS Code extension)
get ``agent/approveMcpServer`` with the exact definition (every value as written, which
of the user's variables each reads, the workspace files it runs with a fingerprint) and
answer with a modal of their own; every other client gets ``window/showMessageRequest``
with the definition in the message and "Allow" / "Don't allow". A closed message, a
failed request or a cancelled run starts nothing, and is asked again at the next run;
only "Don't allow" is remembered as a refusal.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from agentls.agent.cancel import CancelToken, Interrupted, race_cancel
from agentls.agent.mcp.approval import McpApprover, ServerToApprove, variables_lines
from agentls.server.protocol import McpServerApprovalParams, McpServerApprovalResult
from agentls.server.settings import agentls_capability

log = logging.getLogger(__name__)

METHOD = "agent/approveMcpServer"
ALLOW = "Allow"
REFUSE = "Don't allow"


def client_approves_mcp(caps: types.ClientCapabilities | None) -> bool:
    return bool(agentls_capability(caps, "approveMcpServer"))


def approval_params(item: ServerToApprove) -> McpServerApprovalParams:
    server = item.server
    stdio = server.transport == "stdio"
    import shlex

    return McpServerApprovalParams(
        name=item.name,
        source=item.source,
        transport=server.transport,
        command=shlex.join([server.command or "", *server.args]) if stdio else None,
        cwd=server.cwd,
        env=dict(server.env),
        env_file=server.env_file,
        url=server.url,
        header_names=sorted(server.headers),
        headers=dict(server.headers),
        token_env=server.token_env,
        reads=variables_lines(server),
        files=item.files(),
        trusted=server.trusted,
        changed=item.changed,
    )


def lsp_mcp_approver(ls: LanguageServer, cancel: CancelToken) -> McpApprover:
    """An McpApprover for one run of this editor."""

    async def approve(item: ServerToApprove) -> bool | None:
        if client_approves_mcp(ls.client_capabilities):
            result = await request_answer(ls, cancel, METHOD, approval_params(item).to_wire())
            if not isinstance(result, McpServerApprovalResult):
                return None  # not answered: asked again next time
            return result.approved
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"agentls: {item.question()}",
            actions=[types.MessageActionItem(title=ALLOW), types.MessageActionItem(title=REFUSE)],
        )
        result = await request_answer(ls, cancel, types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        title = getattr(result, "title", None)
        if title is None and isinstance(result, dict):
            title = result.get("title")
        if title is None:
            return None  # the message was closed, or the run cancelled: not a decision
        return bool(title == ALLOW)

    return approve


async def request_answer(ls: LanguageServer, cancel: CancelToken, method: str, params: Any) -> Any:
    """The client's answer; None when the request failed or the run was cancelled."""
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
