"""litellm's model list (prices, context windows, tool calling) read without importing litellm.

litellm ships its list as one JSON file in its package
(``model_prices_and_context_window_backup.json``) and, with ``LITELLM_LOCAL_MODEL_COST_MAP``
set as agentls always sets it, that file is the list it uses. Importing litellm to read it
costs seconds; parsing the whole 3.5 MB file 50-100 ms; a call needs one entry. So the file
is located with ``importlib.util.find_spec`` (which imports nothing) and one model's entry
is decoded where its top-level key starts; the whole list is parsed only when every name is
needed (close matches of a typo).

The lookups answer as litellm's do for the OpenAI-compatible models ``openai_http`` calls
(tests compare them with litellm's own answers): a model is listed under its full name or
the name after its provider prefix, and priced per token, with the higher rate of a tier
(``input_cost_per_token_above_200k_tokens``) once the prompt passes it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

FILE_NAME = "model_prices_and_context_window_backup.json"

#: A tier's rate: ``input_cost_per_token_above_200k_tokens`` and the like.
_TIER = re.compile(r"^(input|output)_cost_per_token_above_(\d+)k_tokens$")


@functools.cache
def cost_map_path() -> Path | None:
    """Where litellm's model list is, or None when litellm is not installed."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / FILE_NAME
        if path.is_file():
            return path
    return None


@functools.cache
def _raw() -> str:
    path = cost_map_path()
    return path.read_text(encoding="utf-8") if path is not None else "{}"


@functools.cache
def whole_list() -> dict[str, dict[str, Any]]:
    """Every entry (parsed once, on the paths that need every name)."""
    data = json.loads(_raw())
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


@functools.cache
def entry(key: str) -> dict[str, Any] | None:
    """The entry listed under exactly ``key``, decoded alone where its key starts."""
    raw = _raw()
    needle = "\n    " + json.dumps(key) + ": {"
    at = raw.find(needle)
    if at < 0:
        # Not where litellm's pretty-printed file puts its top-level keys: either not
        # listed, or a file laid out otherwise (then the whole list decides).
        if raw.startswith('{\n    "'):
            return None
        found = whole_list().get(key)
        return dict(found) if found is not None else None
    start = at + len(needle) - 1
    value, _ = json.JSONDecoder().raw_decode(raw, start)
    return value if isinstance(value, dict) else None


def model_entry(model: str) -> tuple[str, dict[str, Any]] | None:
    """The key and entry of ``model``: its full name, else the name after its prefix."""
    candidates = [model]
    if "/" in model:
        candidates.append(model.split("/", 1)[1])
    for key in candidates:
        found = entry(key)
        if found is not None:
            return key, found
    return None


def is_listed(model: str) -> bool:
    return model_entry(model) is not None


def cost_per_token(model: str, prompt_tokens: int, completion_tokens: int) -> tuple[float, float]:
    """US dollars for the prompt and the completion; KeyError when ``model`` has no price."""
    found = model_entry(model)
    if found is None:
        raise KeyError(f"{model} is not in litellm's model list")
    info = found[1]
    # A listed model without a rate costs nothing, as litellm counts it.
    prompt_rate = _rate(info, "input", prompt_tokens)
    completion_rate = _rate(info, "output", prompt_tokens)
    return prompt_tokens * (prompt_rate or 0.0), completion_tokens * (completion_rate or 0.0)


def _rate(info: dict[str, Any], side: str, prompt_tokens: int) -> float | None:
    """The per-token rate of ``side``: the highest tier the prompt passed, else the base."""
    base = info.get(f"{side}_cost_per_token")
    rate = float(base) if isinstance(base, int | float) else None
    passed = 0
    for name, value in info.items():
        tier = _TIER.match(name)
        if tier is None or tier.group(1) != side or not isinstance(value, int | float):
            continue
        threshold = int(tier.group(2)) * 1000
        if prompt_tokens > threshold and threshold >= passed:
            passed, rate = threshold, float(value)
    return rate
