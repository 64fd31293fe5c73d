"""``agent/ping`` → ``{pong, runs, llmReady, watching, litellmLoaded, tokenizerLoaded,
parserLoaded, indexedFiles}``: a trivial request, for health checks and for measuring the server's
responsiveness (bench/server_responsiveness.py). ``llmReady`` turns true once the model
worker is ready (after ``initialized``); ``watching`` once the index is built and its
watcher keeps it live; ``litellmLoaded`` and ``tokenizerLoaded`` say whether this process
imported litellm or tiktoken (it should not: the model worker makes the calls and counts
the tokens); ``parserLoaded`` whether it loaded a tree-sitter grammar (it should not: the
symbol process parses); ``indexedFiles`` counts
the text files in the index (null before it is built), so a client can tell when a new file
has been indexed.

The answer's type is ``PingResult`` (``server/protocol.py``), but it is written here as a
plain dict: ping must answer before pydantic and the models are loaded."""

from __future__ import annotations

import sys
from typing import Any

from agentls.server.app import AgentLanguageServer

METHOD = "agent/ping"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    def agent_ping(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        task = ls.warm_up_task
        ready = task is not None and task.done() and not task.cancelled() and not task.exception()
        watcher = ls.index_service.watcher
        watching = watcher is not None and watcher.running
        index = ls.index_service.index
        return {
            "pong": True,
            "runs": ls.active_runs,
            "llmReady": ready,
            "watching": watching,
            "litellmLoaded": "litellm" in sys.modules,
            "tokenizerLoaded": "tiktoken" in sys.modules,
            # A copy: another thread may be importing, and a dict must not change size
            # while it is iterated.
            "parserLoaded": any(name.startswith("tree_sitter_") for name in list(sys.modules)),
            "indexedFiles": None if index is None else index.total_files,
        }
