"""``agent/message {runId, text, mode}`` → ``{accepted, messageId?, reason?}``: the user
writes to a run while it works. ``queue`` gives it to the model before its next call;
``steer`` also cuts the model call in flight. ``agent/messageDelivered`` says when the model
has it. A run that has ended (or never was) does not take it, and the answer says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import MessageParams

METHOD = "agent/message"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    def agent_message(ls: AgentLanguageServer, params: MessageParams) -> dict[str, Any]:
        from agentls.agent.run_messages import RunMessageError
        from agentls.server.protocol import MessageResult

        try:
            folder = ls.folders.with_run(params.run_id) or ls.default_folder
            sent = folder.runs.message(params.run_id, params.text, params.mode)
        except RunMessageError as exc:
            return MessageResult(accepted=False, reason=str(exc)).to_wire()
        return MessageResult(accepted=True, message_id=sent.id).to_wire()
