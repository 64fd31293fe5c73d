"""Before a run's first model call: can the configured model be called at all?

A new user's first run used to call the model three times and fail with the provider's
"Missing credentials" reported as an HTTP 500. What can be known without calling is said
first, in one ``LLMSetupError`` that names the way out, and never retried:

- litellm cannot tell the model's provider, or it has no provider prefix and litellm
  does not list it (``gpt-4oo``, ``claude-sonet-4``): the close matches, and
  ``agentls models``;
- no key: neither ``llm.api_key_env`` nor the variable litellm reads for the provider
  (``OPENAI_API_KEY``...) is set, and no ``api_base`` points elsewhere; the other ways
  (a local server, the editor's models) are named;
- litellm's model list says the model has no tool calling (only then: a model it does
  not know may well have it);
- the local model server (a loopback ``api_base``, or Ollama's and LM Studio's default
  address) does not accept a connection.

It runs where litellm is loaded (the model worker, or the CLI's process), through the
``LLM``'s ``check``; the facts it returns (images...) serve the run afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm import _litellm
from agentls.agent.llm.errors import LLMSetupError
from agentls.agent.llm.local_servers import answers, is_loopback, server_base
from agentls.agent.llm.model_facts import (
    ModelFacts,
    close_matches,
    facts_of,
    key_variables,
    provider_known,
)
from agentls.agent.llm.provider_keys import LOCAL_PROVIDERS

LIST_COMMAND = "`agentls models` lists the models you can use"
OTHER_WAYS = (
    "or use a model on your machine (Ollama, LM Studio: set llm.model and llm.api_base), "
    "or, in VS Code, one of the editor's models"
)


async def check_model(
    config: LLMConfig, environ: Mapping[str, str], litellm: Any = None
) -> ModelFacts | None:
    """What litellm knows of the configured model; LLMSetupError when it cannot be called.
    ``litellm`` is the module or ``openai_http``'s client (None: litellm, imported now)."""
    if litellm is None:
        litellm = await _litellm.load_litellm()
    facts = await asyncio.to_thread(known_and_usable, litellm, config, environ)
    base = server_base(config, environ)
    if base is not None and is_loopback(base):
        why = await answers(base)
        if why is not None:
            raise LLMSetupError(
                f"the model server at {base} does not answer ({why}): start it (Ollama: "
                "`ollama serve`; LM Studio: its local server), or change llm.api_base"
            )
    return facts


def known_and_usable(
    litellm: Any, config: LLMConfig, environ: Mapping[str, str]
) -> ModelFacts | None:
    """The checks that need litellm's model list (synchronous: run it in a thread)."""
    model = config.model
    if config.mode == "proxy":  # the proxy's aliases are its own names, its keys its own
        return facts_of(litellm, model)
    provider = provider_known(litellm, model)
    facts = facts_of(litellm, model)
    # Without a prefix, litellm guesses the provider from the name ("claude-*"): a name
    # it does not list is then most likely a typo of one it does.
    if provider is None or ("/" not in model and facts is None):
        matches = close_matches(litellm, model)
        hint = f"; did you mean {', '.join(matches)}?" if matches else "."
        raise LLMSetupError(
            f"unknown model {model!r}: litellm does not know it{hint} A model it does not "
            f"list is written with its provider's prefix (openai/..., anthropic/..., "
            f"ollama/...); {LIST_COMMAND}"
        )
    if not environ.get(config.api_key_env) and not config.api_base:
        _check_key(litellm, config, provider, environ)
    if facts is not None and facts.tools is False:
        raise LLMSetupError(
            f"{model} cannot call tools (litellm's model list says so), and agentls works "
            f"through tool calls: choose another model; {LIST_COMMAND}"
        )
    return facts


def _check_key(litellm: Any, config: LLMConfig, provider: str, environ: Mapping[str, str]) -> None:
    if provider in LOCAL_PROVIDERS:
        return
    present, variables = key_variables(litellm, config.model)
    if present or any(environ.get(name) for name in variables):
        return
    named = " or ".join(f"${name}" for name in variables)
    raise LLMSetupError(
        f"no API key for {config.model}: set {named} (what litellm reads for {provider}) or "
        f"${config.api_key_env} (llm.api_key_env); {OTHER_WAYS}. {LIST_COMMAND}"
    )
