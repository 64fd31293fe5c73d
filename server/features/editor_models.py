"""``agent/modelPart`` (notification): a part of the editor's answer to an
``agent/modelRequest`` (server/editor_models.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import ModelPartParams

METHOD = "agent/modelPart"


def register(ls: AgentLanguageServer) -> None:
    # Not async: the part must be queued before the request's answer, which follows it
    # on the wire, is read.
    @ls.handler(METHOD, notification=True)
    def model_part(ls: AgentLanguageServer, params: ModelPartParams) -> None:
        ls.editor_models.part(params)
