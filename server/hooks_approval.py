"""Asking the editor whether a trusted workspace's hooks may run.

Clients that declare ``experimental.agentls.approveHooks`` (the VS Code extension) get an
``agent/approveHooks`` request per hook file that waits for approval, and show its
commands and the workspace files they run (with a fingerprint each) in a modal dialog;
others get a ``window/showMessageRequest`` naming the same.
An approval is stored like ``agentls hooks approve``'s. A refusal is remembered while the
server lives (file and digest), so the user is not asked again at every run; a changed
definition is asked about again.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from agentls.agent.cancel import CancelToken
from agentls.agent.hooks import HooksApprover, HooksToApprove
from agentls.server.mcp_approval import ALLOW, REFUSE, request_answer
from agentls.server.protocol import HookEntry, HooksApprovalParams, HooksApprovalResult
from agentls.server.settings import agentls_capability

METHOD = "agent/approveHooks"


def client_approves_hooks(caps: types.ClientCapabilities | None) -> bool:
    return agentls_capability(caps, "approveHooks") is True


def approval_params(item: HooksToApprove) -> HooksApprovalParams:
    return HooksApprovalParams(
        source=item.label,
        hooks=[
            HookEntry(
                event=h.event,
                matcher=h.matcher,
                command=h.command,
                timeout=h.timeout,
                files=list(h.files),
            )
            for h in item.lines()
        ],
        changed=item.changed,
    )


def question(item: HooksToApprove) -> str:
    """The plain-text question for clients without the dialog."""
    return f"agentls: {item.question()}"


def lsp_hooks_approver(
    ls: LanguageServer, cancel: CancelToken, refused: set[tuple[str, str]]
) -> HooksApprover:
    """A HooksApprover for one run of this editor; ``refused`` lives as long as the server."""

    async def approve(item: HooksToApprove) -> bool | None:
        key = (item.label, item.digest)
        if key in refused:
            return False
        if client_approves_hooks(ls.client_capabilities):
            result = await request_answer(ls, cancel, METHOD, approval_params(item).to_wire())
            if not isinstance(result, HooksApprovalResult):
                return None  # not answered: asked again next run
            answer = result.approved
        else:
            params = types.ShowMessageRequestParams(
                type=types.MessageType.Warning,
                message=question(item),
                actions=[
                    types.MessageActionItem(title=ALLOW),
                    types.MessageActionItem(title=REFUSE),
                ],
            )
            reply = await request_answer(ls, cancel, types.WINDOW_SHOW_MESSAGE_REQUEST, params)
            title = getattr(reply, "title", None)
            if title is None and isinstance(reply, dict):
                title = reply.get("title")
            if title is None:
                return None
            answer = title == ALLOW
        if not answer:
            refused.add(key)
        return answer

    return approve
