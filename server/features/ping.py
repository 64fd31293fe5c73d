"""``agent/ping`` → ``{pong, runs, llmReady, workerRunning, watching, litellmLoaded,
tokenizerLoaded, parserLoaded, indexedFiles}``: a trivial request, for health checks and for
measuring the server's responsiveness (bench/server_responsiveness.py). ``workerRunning``
says a model worker process is up (it starts at ``agent/prepare`` or the first run, and
ends after ``llm.worker_idle_seconds`` idle), ``llmReady`` that it is also ready for calls
(it imports litellm only for a model whose calls need it);
``watching`` that the index is built and its watcher keeps it live; ``litellmLoaded`` and
``tokenizerLoaded`` say whether this process imported litellm or tiktoken (it should not:
the model worker makes the calls and counts the tokens); ``parserLoaded`` whether it loaded
a tree-sitter grammar (it should not: the symbol process parses); ``indexedFiles`` counts
the text files in the index (null before it is built), so a client can tell when a new file
has been indexed.

The answer's type is ``PingResult`` (``server/protocol.py``), but it is written here as a
plain dict: ping must answer before pydantic and the models are loaded."""

from __future__ import annotations

import sys
from typing import Any

from agentls.server.app import AgentLanguageServer

METHOD = "agent/ping"


#: The module that loads tree-sitter grammars (never imported by the server in normal use).
SYMBOLS_MODULE = "agentls.indexer.symbols"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    def agent_ping(ls: AgentLanguageServer, params: Any) -> dict[str, Any]:
        worker = ls.existing_model_worker
        folder = ls.folders.first
        watcher = folder.index_service.watcher if folder is not None else None
        watching = watcher is not None and watcher.running
        indexes = [f.index_service.index for f in ls.folders]
        indexed = [index.total_files for index in indexes if index is not None]
        return {
            "pong": True,
            "runs": ls.active_runs,
            "llmReady": worker is not None and worker.is_ready,
            "workerRunning": worker is not None and worker.running,
            "watching": watching,
            "litellmLoaded": "litellm" in sys.modules,
            "tokenizerLoaded": "tiktoken" in sys.modules,
            # Asked of the module that loads grammars, if it was imported at all: scanning
            # every module's name cost each ping ~2 ms of the loop.
            "parserLoaded": getattr(sys.modules.get(SYMBOLS_MODULE), "grammar_loaded", False),
            # Every folder's (a multi-root workspace has an index per folder).
            "indexedFiles": sum(indexed) if indexed else None,
        }
