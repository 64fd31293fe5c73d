"""``available_models`` against the scripted model server's real HTTP (``/v1/models``,
Ollama's ``/api/tags`` and ``/api/show``), a port nothing listens on, and litellm's model
list in this process."""

from __future__ import annotations

import socket
import warnings
from typing import Any

import pytest

from agentls.agent.config.models import AppConfig
from agentls.agent.llm import _litellm
from agentls.agent.llm.available import ModelCatalog, available_models
from agentls.agent.llm.model_facts import provider_models
from agentls.agent.llm.provider_keys import PROVIDERS
from agentls.agent.llm.scripted_server import ListedModel, ScriptedModelServer

MODELS = (
    ListedModel(name="llama3.1", tools=True, context_length=131072),
    ListedModel(name="llava", tools=True, vision=True),
    ListedModel(name="gemma2", tools=False, context_length=8192),
)


def _config(**llm: Any) -> AppConfig:
    return AppConfig.model_validate({"llm": llm})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _by_id(catalog: ModelCatalog) -> dict[str, Any]:
    return {m.id: m for m in catalog.models}


async def test_ollama_models_with_their_capabilities(scripted: ScriptedModelServer) -> None:
    scripted.list_models(*MODELS)
    config = _config(model="ollama/llama3.1", api_base=scripted.base_url)
    catalog = await available_models(config, environ={})
    models = _by_id(catalog)
    assert catalog.current == "ollama/llama3.1"
    assert catalog.problems == []
    assert list(models) == ["ollama/llama3.1", "ollama/llava", "ollama/gemma2"]
    configured = models["ollama/llama3.1"]
    assert (configured.source, configured.label) == ("configured", "llama3.1 (local)")
    assert configured.tools is True
    assert configured.context_window == 131072
    assert models["ollama/llava"].images is True
    gemma = models["ollama/gemma2"]
    assert (gemma.source, gemma.tools, gemma.note) == ("server", False, "no tool calling")
    assert gemma.context_window == 8192


async def test_an_openai_compatible_server_lists_ids_with_the_configured_prefix(
    scripted: ScriptedModelServer,
) -> None:
    scripted.list_models(*MODELS)
    config = _config(model="lm_studio/llama3.1", api_base=scripted.api_base)
    models = _by_id(await available_models(config, environ={"OPENAI_API_KEY": "sk-x"}))
    assert list(models) == ["lm_studio/llama3.1", "lm_studio/llava", "lm_studio/gemma2"]
    # /v1/models says nothing of tools; with an api_base no provider's model is listed
    # (every call would go to that server).
    assert models["lm_studio/gemma2"].tools is None
    assert all(m.source in ("configured", "server") for m in models.values())


async def test_a_server_that_is_down_is_one_line_and_the_rest_is_listed() -> None:
    base = f"http://127.0.0.1:{_free_port()}"
    catalog = await available_models(_config(model="ollama/llama3.1", api_base=base), environ={})
    assert len(catalog.problems) == 1
    assert catalog.problems[0].startswith(f"the model server at {base} did not answer")
    assert "refused" in catalog.problems[0].lower()
    assert [m.id for m in catalog.models] == ["ollama/llama3.1"]
    # litellm knows this one: its facts still come.
    assert catalog.models[0].tools is True


async def test_providers_whose_keys_are_set_list_their_chat_models_with_tools() -> None:
    catalog = await available_models(
        _config(model="openai/gpt-4o-mini"), environ={"ANTHROPIC_API_KEY": "sk-ant"}
    )
    providers = {m.id.split("/", 1)[0] for m in catalog.models if m.source == "provider"}
    assert providers == {"anthropic"}
    listed = [m for m in catalog.models if m.source == "provider"]
    assert 0 < len(listed) <= 30
    assert all(m.tools is True for m in listed)
    assert all(m.label.endswith("(Anthropic)") for m in listed)
    configured = catalog.models[0]
    assert configured.id == "openai/gpt-4o-mini"
    assert configured.input_cost_per_token and configured.context_window
    assert configured.note == "set OPENAI_API_KEY (or LITELLM_API_KEY) to use it"


class _CopilotEditor:
    """An editor that offers one model."""

    async def list(self) -> list[Any]:
        from agentls.agent.llm.available import AvailableModel

        return [
            AvailableModel(
                id="editor/copilot/gpt-4o",
                label="GPT-4o (Copilot)",
                source="editor",
                tools=True,
                images=None,
                context_window=None,
                input_cost_per_token=None,
                output_cost_per_token=None,
            )
        ]


async def test_the_editors_models_are_listed_and_its_failure_is_one_line() -> None:
    from agentls.agent.llm.available import AvailableModel

    class Broken:
        async def list(self) -> list[AvailableModel]:
            raise RuntimeError("the editor went away")

    config = _config(model="anthropic/claude-sonnet-4-5")
    listed = await available_models(config, environ={}, editor=_CopilotEditor())
    assert "editor/copilot/gpt-4o" in _by_id(listed)
    failed = await available_models(config, environ={}, editor=Broken())
    assert failed.problems == ["the editor's models could not be listed: the editor went away"]


async def test_an_editors_model_is_listed_from_litellms_file_without_importing_it() -> None:
    from agentls.agent.llm.model_facts import KnownModels

    class Recording:
        def __init__(self) -> None:
            self.asked: list[bool] = []

        async def known_models(
            self, ids: list[str], providers: list[str], *, from_file: bool = False
        ) -> KnownModels:
            self.asked.append(from_file)
            return KnownModels()

    knowledge = Recording()
    config = _config(model="editor/copilot/gpt-4o")
    listed = await available_models(
        config, environ={}, editor=_CopilotEditor(), knowledge=knowledge
    )
    assert listed.current == "editor/copilot/gpt-4o"
    assert "editor/copilot/gpt-4o" in _by_id(listed)
    # With a provider's key set, its models are listed from litellm itself.
    await available_models(config, environ={"OPENAI_API_KEY": "sk-x"}, knowledge=knowledge)
    assert knowledge.asked == [True, False]


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_the_key_variables_are_the_ones_litellm_reads(
    provider: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    litellm = _litellm.import_litellm_sync()
    for name in provider.variables:
        monkeypatch.delenv(name, raising=False)
    model = provider_models(litellm, provider.name)[0].id  # one agentls would list
    with warnings.catch_warnings():  # litellm's own, on a provider's first use
        warnings.simplefilter("ignore")
        missing = litellm.validate_environment(model=model)["missing_keys"]
    assert set(provider.variables) == set(missing)
