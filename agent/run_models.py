"""The models of one run: which one each of its loops uses, and the access to it.

``config.model_choice`` decides the model (the run's, the session's ``/model``, the
agent's, ``llm.model``); this gives a loop its model access: the run's own for the model
of the config it was given, else the front end's ``llm_for`` with that model, made once
per model. In mixed mode the planner and the builder may so answer on different models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agentls.agent.config.model_choice import chosen_model, with_model
from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.llm.protocol import LLM


@dataclass
class RunModels:
    """Model access by model id for a run whose config names ``config.llm.model``."""

    config: AppConfig
    llm: LLM
    #: The front end's model access for another config (None: it cannot switch).
    llm_for: Callable[[AppConfig], LLM] | None
    #: The run's own ``model`` (the request's, or its command's).
    run: str | None = None
    #: The session's ``/model`` choice.
    session: str | None = None
    #: Told once when a model cannot be switched to.
    warn: Callable[[str], None] = lambda message: None
    _made: dict[str, tuple[AppConfig, LLM]] = field(default_factory=dict)

    def model_for(self, agent: AgentConfig) -> str:
        return chosen_model(self.config, agent, run=self.run, session=self.session)

    def access(self, agent: AgentConfig) -> tuple[AppConfig, LLM]:
        """The config (its ``llm.model`` the model that answers) and the model access
        for a loop of ``agent``."""
        return self.access_model(self.model_for(agent))

    def child_model(self, child: AgentConfig, parent_model: str) -> str:
        """The model of a subagent: its own agent's when it names one (what it was defined
        for, a cheaper one for searches), else the one its parent answers on."""
        return child.model or parent_model

    def access_model(self, model: str) -> tuple[AppConfig, LLM]:
        """The config and the model access for ``model``."""
        if model == self.config.llm.model:
            return self.config, self.llm
        made = self._made.get(model)
        if made is not None:
            return made
        if self.llm_for is None:
            self.warn(
                f"this front end cannot switch models: {model} is not used, "
                f"{self.config.llm.model} answers"
            )
            made = (self.config, self.llm)
        else:
            config = with_model(self.config, model)
            made = (config, self.llm_for(config))
        self._made[model] = made
        return made
