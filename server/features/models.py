"""``agent/models`` → ``ModelCatalog``: the models a run can use now (the configured one,
what ``llm.api_base`` serves, the providers whose keys are set, the editor's own models
when the client lends them), each with what is known
of it, and one line per source that failed (a local server that is down).

litellm's part is answered by the model worker (started if it is not running): the
server never imports litellm itself."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import FolderParams

METHOD = "agent/models"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_models(ls: AgentLanguageServer, params: FolderParams) -> dict[str, Any]:
        folder = await ls.folder_named(params.folder)
        from agentls.agent.llm.available import available_models

        catalog = await available_models(
            folder.config,
            environ=os.environ,
            editor=ls.editor_model_list(),
            knowledge=ls.model_worker,
        )
        return catalog.to_wire()
