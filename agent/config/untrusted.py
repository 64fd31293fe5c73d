"""What an untrusted workspace's ``.agentls.yaml`` may set: nothing that widens anything.

A folder the user has not trusted may still describe itself (how to index it, how much
context to keep, custom agents with their prompts and descriptions) and may make the
agent more careful (a stricter confirm mode, sandbox or network setting, fewer tools,
fewer steps, ``deny`` and ``ask`` command rules) and say how problems after edits are
reported (``diagnostics`` without ``servers``). What sets a run's cost (the sizes, budgets
and waits of ``indexer``, ``context`` and ``diagnostics``) it may only lower
(``agent.config.cost_keys``). An agent it adds starts from the user's own ``build`` agent, not
from the defaults, and may only narrow it. Everything else is ignored and named in the
run's notice: the model, its endpoint and key (``llm``, an agent's ``model``), MCP
servers, the language servers to start, logging, where state is written, the workspace
root, what the editor declares,
allow-lists, a built-in agent's system prompt, and evaluation (it spends the user's model
budget).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from agentls.agent.config.agent_bounds import REACH_KEYS, loosening, reach_of
from agentls.agent.config.cost_keys import SECTIONS, bound_section
from agentls.agent.config.models import AgentConfig, AppConfig

#: The agent a new agent of an untrusted folder starts from: the one that does the user's
#: tasks, as the user set it.
BASE_AGENT = "build"


@dataclass
class Filtered:
    """The part of a workspace file that applies, and the keys that do not (with why)."""

    kept: dict[str, Any] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def filter_untrusted(
    data: Mapping[str, Any],
    below: AppConfig,
    agents: Mapping[str, AgentConfig],
    builtin: frozenset[str],
) -> Filtered:
    """Keep from ``data`` (a validated workspace file) what an untrusted folder may set.

    ``below`` is the config the layers under the workspace make (the user config over the
    defaults): a cost may only be lowered from there. ``agents`` holds each agent as those
    layers define it (built-ins included): a setting may only be at least as strict as
    that. ``builtin`` names the built-in agents, whose system prompts the workspace may
    not replace.
    """
    result = Filtered()
    for key, value in data.items():
        if key == "diagnostics" and isinstance(value, Mapping) and "servers" in value:
            # How problems are reported describes the workspace; which programs start does not.
            result.ignored.append("diagnostics.servers")
            value = {k: v for k, v in value.items() if k != "servers"}
        if key in SECTIONS and isinstance(value, Mapping):
            current: BaseModel = getattr(below, key)
            kept = bound_section(key, value, current, result.ignored)
            if kept:
                result.kept[key] = kept
        elif key == "commands" and isinstance(value, Mapping):
            tightening = {tier: value[tier] for tier in ("ask", "deny") if value.get(tier)}
            if tightening:
                result.kept["commands"] = tightening
            if value.get("allow"):
                result.ignored.append("commands.allow")
        elif key == "agents" and isinstance(value, Mapping):
            added: dict[str, Any] = {}
            for name, entry in value.items():
                if not isinstance(entry, Mapping):
                    continue
                kept = _filter_agent(str(name), entry, agents, str(name) in builtin, result)
                if kept:
                    added[str(name)] = kept
            if added:
                result.kept["agents"] = added
        else:
            result.ignored.extend(_keys_of(key, value))
    return result


def _filter_agent(
    name: str,
    entry: Mapping[str, Any],
    agents: Mapping[str, AgentConfig],
    builtin: bool,
    result: Filtered,
) -> dict[str, Any]:
    own = agents.get(name)
    # A new agent would otherwise get the model's defaults (every tool, a writable
    # sandbox, confirm-sensitive), wider than what the user allowed their own agent.
    base = own if own is not None else agents[BASE_AGENT]
    kept: dict[str, Any] = {} if own is not None else reach_of(base)
    where = f"agents.{name}"
    for key, value in entry.items():
        why = _loosens(key, value, base, builtin)
        if why is None:
            kept[key] = value
        else:
            result.ignored.append(f"{where}.{key} ({why})")
    return kept if entry else {}


def _loosens(key: str, value: Any, base: AgentConfig, builtin: bool) -> str | None:
    """Why ``key: value`` would widen what the agent may do, or None when it may stay."""
    if key == "description":
        return None
    if key == "system_prompt":
        if not builtin or value == base.system_prompt:
            return None
        return "a built-in agent's prompt"
    if key == "allowed_commands":
        # Not even the user's own patterns: an untrusted folder adds no allow rule.
        return "an allow-list" if value else None
    if key in REACH_KEYS:
        return loosening(key, value, base)
    return "not settable by an untrusted folder"


def _keys_of(key: str, value: Any) -> list[str]:
    """The dotted keys a section sets, one level down (``llm.api_base``), for the notice."""
    if isinstance(value, Mapping) and value:
        return [f"{key}.{sub}" for sub in value]
    return [key]
