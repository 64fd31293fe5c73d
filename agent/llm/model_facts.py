"""What litellm knows of models, read where litellm is loaded: the model worker in the
language server, the process itself in the CLI and ACP.

``ModelFacts`` is what one model can do (tool calling, images, context window, price per
token) as litellm's model list says; ``KnownModels`` answers one question of the engine's
``available_models`` (facts of some ids, the chat models of some providers) and crosses the
model worker's pipe as JSON. The functions here take the litellm module and are plain
synchronous code: callers run them in a thread (``asyncio.to_thread``), never on a loop
that answers an editor.

Which of a provider's models are listed, to keep the list short: litellm's chat models
(``mode: chat``) that it says support tool calls, not past their deprecation date, without
a date or a version stamp in the name (``gpt-4o-2024-08-06``: the undated alias is
listed), and not audio, search, realtime or routing variants; at most
``MAX_PER_PROVIDER`` of them, sorted by id.
"""

from __future__ import annotations

import contextlib
import datetime
import difflib
import re
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, Field

MAX_PER_PROVIDER = 30

# Dated snapshots and variants that are not for a coding agent's chat.
_SKIPPED = re.compile(
    r"(?:-|@|:)(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{2}-\d{2})(?:-v\d+:\d+)?$"
    r"|preview|-latest$|^ft:|audio|realtime|search|tts|transcribe|/routers/|embed|image",
)


class ModelFacts(BaseModel):
    """One model as litellm's model list describes it (None: it does not say)."""

    id: str
    provider: str | None = None
    tools: bool | None = None
    images: bool | None = None
    context_window: int | None = None
    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None


class KnownModels(BaseModel):
    """litellm's answer to ``available_models``: facts of the ids it knows, and the
    models listed for the providers asked about."""

    facts: list[ModelFacts] = Field(default_factory=list)
    provider_models: list[ModelFacts] = Field(default_factory=list)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """litellm's own warnings (pydantic's about its types, on a provider's first use)
    are not the user's business, and where warnings are errors they fail the lookup."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def is_listed(litellm: Any, model: str) -> bool:
    """Whether litellm's model list has ``model`` (with or without its provider prefix).
    Its ``get_model_info`` makes facts up for an unlisted name that looks like a known
    family (``claude-...``), which must not pass for knowledge."""
    cost = litellm.model_cost
    return model in cost or ("/" in model and model.split("/", 1)[1] in cost)


def facts_of(litellm: Any, model: str) -> ModelFacts | None:
    """What litellm knows of ``model``, or None when it is not in its list."""
    if not is_listed(litellm, model):
        return None
    try:
        with _quiet():
            info: Any = litellm.get_model_info(model)
    except Exception:  # not mapped: a local model, a proxy alias, a typo
        return None
    return _facts(model, info)


def _facts(model: str, info: Any) -> ModelFacts:
    def flag(name: str) -> bool | None:
        value = info.get(name)
        return value if isinstance(value, bool) else None

    def number(name: str) -> float | None:
        value = info.get(name)
        return float(value) if isinstance(value, int | float) else None

    window = info.get("max_input_tokens") or info.get("max_tokens")
    return ModelFacts(
        id=model,
        provider=info.get("litellm_provider") or None,
        tools=flag("supports_function_calling"),
        images=flag("supports_vision"),
        context_window=int(window) if isinstance(window, int | float) and window else None,
        input_cost_per_token=number("input_cost_per_token"),
        output_cost_per_token=number("output_cost_per_token"),
    )


def provider_models(litellm: Any, provider: str) -> list[ModelFacts]:
    """The chat models with tool calls that litellm lists for ``provider`` (see the
    module's doc for which), with ids that carry the provider's prefix."""
    today = datetime.date.today().isoformat()
    prefix = f"{provider}/"
    found: dict[str, ModelFacts] = {}
    for name in litellm.models_by_provider.get(provider, ()):
        info = litellm.model_cost.get(name) or litellm.model_cost.get(prefix + name)
        if not isinstance(info, dict) or info.get("mode") != "chat":
            continue
        if info.get("supports_function_calling") is not True:
            continue
        deprecated = info.get("deprecation_date")
        if isinstance(deprecated, str) and deprecated < today:
            continue
        if _SKIPPED.search(name):
            continue
        model_id = name if name.startswith(prefix) else prefix + name
        found.setdefault(model_id, _facts(model_id, info))
    return [found[key] for key in sorted(found)[:MAX_PER_PROVIDER]]


def known_models(litellm: Any, ids: Iterable[str], providers: Iterable[str]) -> KnownModels:
    facts = [f for f in (facts_of(litellm, model) for model in ids) if f is not None]
    listed = [m for provider in providers for m in provider_models(litellm, provider)]
    return KnownModels(facts=facts, provider_models=listed)


def provider_known(litellm: Any, model: str) -> str | None:
    """The provider litellm would send ``model`` to, or None when it cannot tell."""
    try:
        with _quiet():
            return str(litellm.get_llm_provider(model=model)[1])
    except Exception:
        return None


def key_variables(litellm: Any, model: str) -> tuple[bool, list[str]]:
    """Whether the key litellm reads for ``model``'s provider is set in this process's
    environment, and the variables it would read it from."""
    try:
        with _quiet():
            checked = litellm.validate_environment(model=model)
    except Exception:  # a provider it cannot check: assume nothing is missing
        return True, []
    missing = [str(name) for name in checked.get("missing_keys") or []]
    return bool(checked.get("keys_in_environment")) or not missing, missing


def close_matches(litellm: Any, model: str, extra: Iterable[str] = ()) -> list[str]:
    """Up to three ids of litellm's chat models (and ``extra``) that look like ``model``."""
    chat = [name for name, info in litellm.model_cost.items() if info.get("mode") == "chat"]
    candidates = list(dict.fromkeys([*extra, *chat]))
    found = difflib.get_close_matches(model, candidates, n=3, cutoff=0.6)
    if not found and "/" in model:  # a typo in the name behind a known prefix
        name = model.split("/", 1)[1]
        found = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    return found
