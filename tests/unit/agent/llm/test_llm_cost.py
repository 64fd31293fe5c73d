"""The cost of a run: the model worker prices each call with litellm's price list, and
``Usage.add`` sums it only while every call that used tokens has a price."""

from __future__ import annotations

import pytest

from agentls.agent.llm import _litellm
from agentls.agent.llm.models import LLMResponse, Usage
from agentls.agent.llm.worker import with_cost


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


@pytest.fixture(scope="module")
def litellm_loaded() -> None:
    _litellm.import_litellm_sync()


usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}


@pytest.mark.usefixtures("litellm_loaded")
def test_with_cost_prices_a_known_model() -> None:
    litellm = _litellm.loaded()
    assert litellm is not None
    prompt, completion = litellm.cost_per_token(
        model="openai/gpt-4o-mini", prompt_tokens=1000, completion_tokens=100
    )
    priced = with_cost(LLMResponse(content="x", usage=usage), "openai/gpt-4o-mini")
    assert priced.usage is not None
    assert priced.usage["cost"] == pytest.approx(prompt + completion)
    assert priced.usage["cost"] > 0
    assert priced.usage["total_tokens"] == 1100


@pytest.mark.usefixtures("litellm_loaded")
def test_with_cost_leaves_an_unknown_model_unpriced() -> None:
    response = LLMResponse(content="x", usage=usage)
    assert with_cost(response, "openai/no-such-model-e2e").usage == usage
    assert with_cost(LLMResponse(content="x"), "openai/gpt-4o-mini").usage is None
