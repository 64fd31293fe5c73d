"""Fixtures for the LLM adapter tests: adapters pointed at the scripted model server
(``scripted``, from tests/conftest.py), each test run on both clients: litellm itself, and
``openai_http`` (what ``adapter_for`` gives an OpenAI-compatible endpoint)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from llm_helpers import FAST_RETRIES, KEY_ENV, TEST_KEY, MakeLLM

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import LiteLLMAdapter, openai_http
from agentls.agent.llm.scripted_server import ScriptedModelServer


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, TEST_KEY)
    return TEST_KEY


@pytest.fixture(params=["litellm", "openai_http"])
def make_llm(
    request: pytest.FixtureRequest, scripted: ScriptedModelServer, api_key: str
) -> MakeLLM:
    """``make_llm(**config)`` -> (adapter, model queue name); each call gets its own queue."""
    client = openai_http.load_client if request.param == "openai_http" else None

    def make(**overrides: Any) -> tuple[LiteLLMAdapter, str]:
        name = overrides.pop("name", None) or f"m-{uuid.uuid4().hex[:8]}"
        settings: dict[str, Any] = {
            "model": f"openai/{name}",
            "api_base": scripted.api_base,
            "api_key_env": KEY_ENV,
            "timeout": 10,
            "retries": 2,
        }
        settings.update(overrides)
        config = LLMConfig(**settings)
        return LiteLLMAdapter(config, retry_policy=FAST_RETRIES, client=client), name

    return make
