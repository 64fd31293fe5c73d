"""``agent/run``: run an agent to the end.

Params ``RunParams`` (``server/protocol.py``: ``{prompt, agent?, runId?, sessionId?,
confirmMode?, maxSteps?, selfEval?, dryRun?, workDoneToken?}``); result ``RunResult``
(``agent/contract.py``: ``{status, output, steps, tools_used, duration_seconds, model,
runId, sessionId, usage}``). Progress arrives meanwhile as
``agent/stream``, ``agent/step``, ``agent/status``, ``agent/plan`` and ``$/progress``.
``$/cancelRequest`` on this request stops the run cleanly, then answers RequestCancelled.
The run starts the model worker if ``agent/prepare`` has not, and waits for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentls.server.app import AgentLanguageServer

if TYPE_CHECKING:
    from agentls.server.protocol import RunParams

METHOD = "agent/run"


def register(ls: AgentLanguageServer) -> None:
    @ls.handler(METHOD)
    async def agent_run(ls: AgentLanguageServer, params: RunParams) -> dict[str, Any]:
        await ls.wait_ready()
        # A run in flight keeps the model worker between its calls (a tool that runs for
        # minutes, a question to the user): it is not stopped for being idle.
        with ls.model_worker.hold():
            return await ls.runs.run(params)
