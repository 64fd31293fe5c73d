"""Which models this user can call now: ``available_models``, the engine's one answer
behind ``agent/models``, ``agentls models`` and ACP's model selection.

What it gathers, in this order in the catalog:

- the configured model (``llm.model``);
- what the model server at ``llm.api_base`` serves (or Ollama's / LM Studio's default
  address for such a model): see ``local_servers``;
- the editor's models, when the front end has an editor that offers them
  (``EditorModels``);
- for each provider whose key is set in ``environ`` (``provider_keys``), the chat models
  litellm lists for it with tool calling (``model_facts`` says which). Only without an
  ``api_base``: with one, every call goes to that server, so a provider's model could not
  be reached with this config.

Each model carries what is known of it (tool calling, images, context window, price per
token): a local server's own word first (Ollama's capabilities), else litellm's model
list. litellm is asked through a ``ModelKnowledge``: in this process by default, the
model worker's in the language server (which never imports litellm itself). Whatever
fails (a server that is down, litellm's list) is one line in ``problems``; the rest is
still listed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import Field

from agentls.agent.config.models import AppConfig
from agentls.agent.llm.editor import EDITOR_PREFIX
from agentls.agent.llm.local_servers import (
    ServedModel,
    ServerAnswer,
    is_loopback,
    served_models,
    server_base,
)
from agentls.agent.llm.model_facts import KnownModels, ModelFacts
from agentls.agent.llm.openai_http import speaks_openai
from agentls.agent.llm.provider_keys import (
    BY_NAME,
    label_of,
    provider_of,
    providers_with_keys,
)
from agentls.agent.wire_model import WireModel

log = logging.getLogger(__name__)

ModelSource = Literal["configured", "server", "provider", "editor"]


class AvailableModel(WireModel):
    """A model a run can use, with what is known of it."""

    #: An unknown capability is sent as null: every field is always there.
    omit_none: ClassVar[bool] = False

    id: str = Field(description="What `llm.model` and `agent/run`'s `model` take.")
    label: str = Field(description='For pickers: "gpt-4o-mini (OpenAI)", "llama3.1 (local)".')
    source: ModelSource = Field(
        description="`configured` (llm.model), `server` (what llm.api_base serves), "
        "`provider` (a provider whose key is set), `editor` (the editor's models)."
    )
    tools: bool | None = Field(description="Whether it can call tools; null: unknown.")
    images: bool | None = Field(description="Whether it takes images; null: unknown.")
    context_window: int | None = Field(description="Input tokens it takes; null: unknown.")
    input_cost_per_token: float | None = Field(description="US dollars; null: unknown.")
    output_cost_per_token: float | None = Field(description="US dollars; null: unknown.")
    note: str = Field("", description='"set OPENAI_API_KEY to use it", "no tool calling".')


class ModelCatalog(WireModel):
    """``agent/models`` result: the models that can be used now."""

    #: Its models' unknown capabilities go as null (see AvailableModel).
    omit_none: ClassVar[bool] = False

    current: str = Field(description="The model a run would use now.")
    models: list[AvailableModel]
    problems: list[str] = Field(
        description='One line each: "the model server at … did not answer: …".'
    )


class EditorModels(Protocol):
    """The editor's language models (VS Code's ``vscode.lm``), as the server learns them."""

    async def list(self) -> list[AvailableModel]: ...


class ModelKnowledge(Protocol):
    """litellm's model list, read where litellm is loaded; ``from_file``: read from its
    file instead (``openai_http``), when only the facts of OpenAI-compatible ids are asked."""

    async def known_models(
        self, ids: list[str], providers: list[str], *, from_file: bool = False
    ) -> KnownModels: ...


class LocalKnowledge:
    """litellm in this process, imported and read in a thread (the CLI, ACP); or its list
    read from the file, without importing it."""

    async def known_models(
        self, ids: list[str], providers: list[str], *, from_file: bool = False
    ) -> KnownModels:
        from agentls.agent.llm import _litellm, openai_http
        from agentls.agent.llm.model_facts import known_models

        litellm: Any = openai_http.client() if from_file else await _litellm.load_litellm()
        return await asyncio.to_thread(known_models, litellm, ids, providers)


async def available_models(
    config: AppConfig,
    *,
    environ: Mapping[str, str],
    editor: EditorModels | None = None,
    knowledge: ModelKnowledge | None = None,
) -> ModelCatalog:
    """The models this user can call now (see the module's doc)."""
    llm = config.llm
    problems: list[str] = []
    base = server_base(llm, environ)
    served, editors = await asyncio.gather(
        served_models(llm, base) if base is not None else _nothing_served(),
        _editor_models(editor, problems),
    )
    if served.problem:
        problems.append(served.problem)
    providers = [] if llm.api_base else [p.name for p in providers_with_keys(environ)]
    ids = [llm.model, *(m.id for m in served.models)]
    try:
        # An OpenAI-compatible endpoint's ids, or an editor's model, need no import of
        # litellm (~3 s) to be known.
        from_file = not providers and (speaks_openai(llm) or llm.model.startswith(EDITOR_PREFIX))
        known = await (knowledge or LocalKnowledge()).known_models(
            ids, providers, from_file=from_file
        )
    except Exception as exc:  # the worker died, litellm failed to load
        log.warning("litellm's model list could not be read", exc_info=True)
        problems.append(f"litellm's model list could not be read: {exc}")
        known = KnownModels()
    facts = {f.id: f for f in known.facts}

    models: dict[str, AvailableModel] = {}
    known_facts = facts.get(llm.model)
    configured = _from_server(served, llm.model, known_facts) or _from_facts(known_facts, llm.model)
    known_provider = facts[llm.model].provider if llm.model in facts else None
    note = _note(configured, config, known_provider, environ)
    models[llm.model] = configured.model_copy(update={"source": "configured", "note": note})
    for entry in served.models:
        models.setdefault(entry.id, _served(entry, served.base, facts.get(entry.id)))
    for model in editors:
        models.setdefault(model.id, model)
    for listed in known.provider_models:
        models.setdefault(listed.id, _provider_model(listed))
    return ModelCatalog(current=llm.model, models=list(models.values()), problems=problems)


async def _nothing_served() -> ServerAnswer:
    return ServerAnswer(base="")


async def _editor_models(editor: EditorModels | None, problems: list[str]) -> list[AvailableModel]:
    if editor is None:
        return []
    try:
        return await editor.list()
    except Exception as exc:  # the editor is gone, refused, or answered nonsense
        problems.append(f"the editor's models could not be listed: {exc}")
        return []


def _name(model_id: str) -> str:
    return model_id.split("/", 1)[1] if "/" in model_id else model_id


def _where(base: str) -> str:
    return "local" if is_loopback(base) else (urlsplit(base).hostname or base)


def _served(entry: ServedModel, base: str, facts: ModelFacts | None) -> AvailableModel:
    """A model a server lists: its own word on tools and images first, then litellm's."""
    return AvailableModel(
        id=entry.id,
        label=f"{entry.name} ({_where(base)})",
        source="server",
        tools=entry.tools if entry.tools is not None else (facts.tools if facts else None),
        images=entry.images if entry.images is not None else (facts.images if facts else None),
        context_window=entry.context_window or (facts.context_window if facts else None),
        input_cost_per_token=facts.input_cost_per_token if facts else None,
        output_cost_per_token=facts.output_cost_per_token if facts else None,
        note="no tool calling" if entry.tools is False else "",
    )


def _from_server(
    served: ServerAnswer, model_id: str, facts: ModelFacts | None
) -> AvailableModel | None:
    for entry in served.models:
        if entry.id == model_id:
            return _served(entry, served.base, facts)
    return None


def _from_facts(facts: ModelFacts | None, model_id: str) -> AvailableModel:
    provider = provider_of(model_id) or (facts.provider if facts else None)
    where = label_of(provider) if provider else "configured"
    return AvailableModel(
        id=model_id,
        label=f"{_name(model_id)} ({where})",
        source="configured",
        tools=facts.tools if facts else None,
        images=facts.images if facts else None,
        context_window=facts.context_window if facts else None,
        input_cost_per_token=facts.input_cost_per_token if facts else None,
        output_cost_per_token=facts.output_cost_per_token if facts else None,
    )


def _provider_model(facts: ModelFacts) -> AvailableModel:
    model = _from_facts(facts, facts.id)
    return model.model_copy(update={"source": "provider"})


def _note(
    model: AvailableModel,
    config: AppConfig,
    known_provider: str | None,
    environ: Mapping[str, str],
) -> str:
    """What stands between the configured model and a first answer, if anything."""
    if model.tools is False:
        return "no tool calling"
    llm = config.llm
    if llm.api_base or llm.mode == "proxy" or environ.get(llm.api_key_env):
        return ""
    provider = BY_NAME.get(provider_of(llm.model) or known_provider or "")
    if provider is not None and not any(environ.get(v) for v in provider.variables):
        return f"set {provider.variables[0]} (or {llm.api_key_env}) to use it"
    return ""
