"""What a model call cost, in US dollars, from litellm's price list.

Every model call through litellm is priced here (the adapter does it, in whichever process
makes the call), so a run's ``usage.cost`` means the same in every front end. A model the
list does not know (a local model, a proxy's alias) gets no price: ``Usage.add`` then leaves
the run's cost unknown rather than understated.
"""

from __future__ import annotations

from typing import Any

from agentls.agent.llm.models import LLMResponse


def priced(response: LLMResponse, model: str, litellm: Any) -> LLMResponse:
    """The response with ``usage.cost`` when litellm's price list (``litellm`` is the
    module, or ``openai_http``'s client that reads the same list) knows the model."""
    usage = response.usage
    if not usage or litellm is None:
        return response
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        )
    except Exception:  # not in litellm's price list (local models, proxies' aliases)
        return response
    return response.model_copy(
        update={"usage": {**usage, "cost": float(prompt_cost) + float(completion_cost)}}
    )
