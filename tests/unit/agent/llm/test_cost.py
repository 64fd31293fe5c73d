"""The cost of a run: the adapter prices each call with litellm's price list (in the
model worker or in the CLI's process; read from its file on the ``openai_http`` path), and
``Usage.add`` sums it only while every call that used tokens has a price."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentls.agent.llm.models import Usage


def test_usage_sums_known_costs() -> None:
    total = Usage().add(
        {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cost": 0.5}
    )
    total = total.add({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "cost": 0.25})
    assert total == Usage(prompt_tokens=11, completion_tokens=3, total_tokens=14, cost=0.75)


def test_an_unpriced_call_makes_the_cost_unknown() -> None:
    total = Usage().add(
        {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cost": 0.5}
    )
    total = total.add({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
    assert total.cost is None
    assert total.total_tokens == 14
    assert "cost" not in total.model_dump(exclude_none=True)


def test_empty_parts_do_not_hide_the_cost() -> None:
    priced = Usage(prompt_tokens=1, completion_tokens=1, total_tokens=2, cost=0.1)
    assert Usage().add(priced).cost == 0.1
    assert priced.add(Usage()).cost == 0.1
    assert priced.add(None) is priced


# litellm is imported in a child process, as in the model worker: importing it here would
# change the in-process adapter tests that run after this file.
PRICE_SCRIPT = """
import asyncio, json, os
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
from agentls.agent.llm import _litellm
from agentls.agent.llm.models import LLMResponse
from agentls.agent.llm.openai_http import client
from agentls.agent.llm.pricing import priced as with_cost
litellm = asyncio.run(_litellm.load_litellm())
http = client()
usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
expected = sum(
    litellm.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=1000, completion_tokens=100)
)
print(json.dumps({
    "expected": expected,
    "known": with_cost(LLMResponse(content="x", usage=usage), "openai/gpt-4o-mini", litellm).usage,
    "unknown": with_cost(
        LLMResponse(content="x", usage=usage), "openai/no-such-model-e2e", litellm
    ).usage,
    "none": with_cost(LLMResponse(content="x"), "openai/gpt-4o-mini", litellm).usage,
    "http_known": with_cost(
        LLMResponse(content="x", usage=usage), "openai/gpt-4o-mini", http
    ).usage,
    "http_unknown": with_cost(
        LLMResponse(content="x", usage=usage), "openai/no-such-model-e2e", http
    ).usage,
}))
"""


def test_with_cost_prices_known_models_only() -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-c", PRICE_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["expected"] > 0
    assert out["known"]["cost"] == pytest.approx(out["expected"])
    assert out["known"]["total_tokens"] == 1100
    assert out["unknown"] == {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    assert out["none"] is None
    # Without litellm (openai_http reads its price list from the file): the same prices.
    assert out["http_known"] == out["known"]
    assert out["http_unknown"] == out["unknown"]
