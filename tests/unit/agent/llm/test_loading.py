"""litellm is loaded lazily, configured quietly, and counts the tokens."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import LiteLLMAdapter, _litellm, warm_up
from agentls.agent.llm.tokens import estimate_tokens

MESSAGES = [
    {"role": "system", "content": "You are a careful coding agent. " * 10},
    {"role": "user", "content": "Rename the function parse_args to read_arguments everywhere."},
]


def test_importing_agent_llm_does_not_import_litellm() -> None:
    code = (
        "import sys, agent.llm, agent.llm.adapter, agent.llm.scripted_server;"
        "print('litellm' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.strip() == "False"


async def test_warm_up_configures_litellm_to_stay_off_stdout() -> None:
    await warm_up()
    litellm = _litellm.loaded()
    assert litellm is not None
    assert litellm.suppress_debug_info is True and litellm.drop_params is True
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        for handler in logging.getLogger(name).handlers:
            assert getattr(handler, "stream", None) is not sys.stdout


async def test_count_tokens_counts_with_litellm() -> None:
    llm = LiteLLMAdapter(LLMConfig(model="gpt-4o"))
    counted = await llm.count_tokens(MESSAGES)
    litellm = _litellm.loaded()
    assert litellm is not None  # counting loaded it, off the event loop
    assert counted == litellm.token_counter(model="gpt-4o", messages=MESSAGES)
    estimate = estimate_tokens(MESSAGES)
    assert abs(counted - estimate) < estimate  # same order of magnitude
    proxied = LiteLLMAdapter(LLMConfig(model="gpt-4o", mode="proxy", api_base="http://x"))
    assert proxied.model_name == "litellm_proxy/gpt-4o"
    assert await proxied.count_tokens(MESSAGES) == counted


def test_proxy_prefix_is_added_once() -> None:
    config = LLMConfig(model="litellm_proxy/fast", mode="proxy", api_base="http://x")
    assert LiteLLMAdapter(config).model_name == "litellm_proxy/fast"
    assert LiteLLMAdapter(LLMConfig(model="openai/fast")).model_name == "openai/fast"
