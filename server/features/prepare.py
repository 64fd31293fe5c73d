"""``agent/prepare`` (a notification, ``{}``): the user is about to run the agent (the
VS Code panel became visible, the first keystroke in a prompt box), so the model worker
is started now rather than by the run, which would wait ~3 s for litellm's import, and
the symbol process if it was stopped for being idle. It also restarts both idle clocks.
Nothing is answered; a worker that cannot start is logged, and the run says why."""

from __future__ import annotations

from typing import Any

from agentls.server.app import AgentLanguageServer
from agentls.server.warm_up import prepare_model_worker

METHOD = "agent/prepare"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD, notification=True)
    def agent_prepare(ls: AgentLanguageServer, params: Any) -> None:
        # In the background: a notification's handler should not hold anything up, and
        # the worker's start outlives it.
        ls.spawn(prepare_model_worker(ls), name="prepare-model-worker")
        ls.index_service.prepare()
