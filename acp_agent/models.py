"""A session's model as ACP offers it: one ``select`` config option of category ``model``
(``configOptions`` in ``session/new`` and ``session/load``, changed by
``session/set_config_option``), listing the engine's ``available_models``.

The SDK this agent speaks (0.12) has config options and no ``session/set_model``; a
client shows the option as its model picker. The models litellm says cannot call tools
are left out (a run would refuse them); the chosen id goes with each of the session's
runs as the run's ``model``."""

from __future__ import annotations

import os

from agentls.acp_agent.protocol.schema import SessionConfigOptionSelect, SessionConfigSelectOption
from agentls.agent.config.models import AppConfig
from agentls.agent.llm.available import AvailableModel, ModelCatalog, available_models

MODEL_OPTION = "model"


async def model_catalog(config: AppConfig) -> ModelCatalog:
    """What the session may choose from (litellm read in this process, in a thread)."""
    return await available_models(config, environ=os.environ)


def model_option(catalog: ModelCatalog, current: str | None) -> SessionConfigOptionSelect:
    """The config option that shows ``catalog`` with ``current`` (else its own) chosen."""
    chosen = current or catalog.current
    offered = [m for m in catalog.models if m.tools is not False or m.id == chosen]
    if chosen not in {m.id for m in offered}:  # a model chosen before the list changed
        offered.insert(0, _unlisted(chosen))
    return SessionConfigOptionSelect(
        id=MODEL_OPTION,
        name="Model",
        description="The model of this session's runs",
        category="model",
        type="select",
        current_value=chosen,
        options=[
            SessionConfigSelectOption(value=m.id, name=m.label, description=_described(m))
            for m in offered
        ],
    )


def _described(model: AvailableModel) -> str | None:
    parts = []
    if model.context_window:
        parts.append(f"{model.context_window // 1000}k context")
    if model.input_cost_per_token is not None and model.output_cost_per_token is not None:
        parts.append(
            f"${model.input_cost_per_token * 1e6:.2f}/${model.output_cost_per_token * 1e6:.2f}"
            " per 1M tokens in/out"
        )
    if model.note:
        parts.append(model.note)
    return "; ".join(parts) or None


def _unlisted(model_id: str) -> AvailableModel:
    return AvailableModel(
        id=model_id,
        label=model_id,
        source="configured",
        tools=None,
        images=None,
        context_window=None,
        input_cost_per_token=None,
        output_cost_per_token=None,
    )
