"""Which model answers a run, decided in one place for every front end.

The first of these that is set wins:

1. the run's own ``model`` (``agent/run``'s ``model``, ``agentls run --model``, a slash
   command's ``model:``, which becomes the run's);
2. the session's ``/model`` choice (stored in the session, so it outlives the process);
3. the agent's ``model`` (``agents.<name>.model``: in mixed mode the planner and the
   builder each have their own);
4. ``llm.model``.

A model is reached through the same ``llm`` settings whatever is chosen: only
``llm.model`` changes (``with_model``), so the front end's ``llm_for`` gives the run its
model access as it does for any config.
"""

from __future__ import annotations

from agentls.agent.config.models import AgentConfig, AppConfig


def chosen_model(
    config: AppConfig, agent: AgentConfig, *, run: str | None, session: str | None
) -> str:
    """The model a run of ``agent`` uses (see the module's doc for the order)."""
    return run or session or agent.model or config.llm.model


def with_model(config: AppConfig, model: str) -> AppConfig:
    """``config`` with ``model`` as its ``llm.model`` (``config`` itself when it is already)."""
    if model == config.llm.model:
        return config
    llm = config.llm.model_copy(update={"model": model})
    return config.model_copy(update={"llm": llm})
