"""``agent/ping`` → ``{pong: true, runs, llmReady, watching}``: a trivial request, for
health checks and for measuring the server's responsiveness (bench/server_responsiveness.py).
``llmReady`` turns true once the model worker is ready and the tokenizer is loaded for token
counts (after ``initialized``);
``watching`` once the index is built and its watcher keeps it live.

The answer's type is ``PingResult`` (``server/protocol.py``), but it is written here as a
plain dict: ping must answer before pydantic and the models are loaded."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentls.server.app import AgentLanguageServer

METHOD = "agent/ping"


def register(ls: AgentLanguageServer) -> None:
    from agentls.server.app import guarded

    @ls.feature(METHOD)
    @guarded(METHOD)
    def agent_ping(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        task = ls.warm_up_task
        ready = task is not None and task.done() and not task.cancelled() and not task.exception()
        watcher = ls.index_service.watcher
        watching = watcher is not None and watcher.running
        return {
            "pong": True,
            "runs": ls.active_runs,
            "llmReady": ready,
            "watching": watching,
            # The server counts tokens without litellm; this says it stayed that way.
            "litellmLoaded": "litellm" in sys.modules,
        }
