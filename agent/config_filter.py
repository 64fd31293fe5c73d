"""What an untrusted workspace's ``.agentls.yaml`` may set: nothing that widens anything.

A folder the user has not trusted may still describe itself (how to index it, how much
context to keep, custom agents with their prompts and descriptions) and may make the
agent more careful (a stricter confirm mode, sandbox or network setting, fewer tools,
fewer steps, ``deny`` and ``ask`` command rules) and say how problems after edits are
reported (``diagnostics`` without ``servers``). Everything else is ignored and named in
the run's notice: the model endpoint and key (``llm``), MCP servers, the language servers
to start, logging, where state is written, the workspace root, what the editor declares,
allow-lists, a built-in agent's system prompt, and evaluation (it spends the user's model
budget).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentls.agent.config import AgentConfig

#: Sections an untrusted workspace sets freely: they describe the workspace.
FREE_SECTIONS = frozenset({"indexer", "context"})

_CONFIRM_RANK = {"yolo": 0, "confirm-sensitive": 1, "confirm-all": 2}
_SANDBOX_RANK = {"off": 0, "workspace-write": 1, "read-only": 2}


@dataclass
class Filtered:
    """The part of a workspace file that applies, and the keys that do not (with why)."""

    kept: dict[str, Any] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def filter_untrusted(
    data: Mapping[str, Any], below: Mapping[str, AgentConfig], builtin: frozenset[str]
) -> Filtered:
    """Keep from ``data`` (a validated workspace file) what an untrusted folder may set.

    ``below`` holds each agent as the layers under the workspace define it (the user
    config over the built-in defaults): a setting may only be at least as strict as that.
    ``builtin`` names the built-in agents, whose system prompts the workspace may not
    replace.
    """
    result = Filtered()
    for key, value in data.items():
        if key in FREE_SECTIONS:
            result.kept[key] = value
        elif key == "diagnostics" and isinstance(value, Mapping):
            # How problems are reported describes the workspace; which programs start does not.
            kept = {k: v for k, v in value.items() if k != "servers"}
            if kept:
                result.kept["diagnostics"] = kept
            if "servers" in value:
                result.ignored.append("diagnostics.servers")
        elif key == "commands" and isinstance(value, Mapping):
            tightening = {tier: value[tier] for tier in ("ask", "deny") if value.get(tier)}
            if tightening:
                result.kept["commands"] = tightening
            if value.get("allow"):
                result.ignored.append("commands.allow")
        elif key == "agents" and isinstance(value, Mapping):
            agents: dict[str, Any] = {}
            for name, entry in value.items():
                if not isinstance(entry, Mapping):
                    continue
                kept = _filter_agent(
                    str(name), entry, below.get(name), str(name) in builtin, result.ignored
                )
                if kept:
                    agents[str(name)] = kept
            if agents:
                result.kept["agents"] = agents
        else:
            result.ignored.extend(_keys_of(key, value))
    return result


def _filter_agent(
    name: str,
    entry: Mapping[str, Any],
    below: AgentConfig | None,
    builtin: bool,
    ignored: list[str],
) -> dict[str, Any]:
    base = below if below is not None else AgentConfig(system_prompt="")
    kept: dict[str, Any] = {}
    where = f"agents.{name}"
    for key, value in entry.items():
        why = _loosens(key, value, base, builtin)
        if why is None:
            kept[key] = value
        else:
            ignored.append(f"{where}.{key} ({why})")
    return kept


def _loosens(key: str, value: Any, base: AgentConfig, builtin: bool) -> str | None:
    """Why ``key: value`` would widen what the agent may do, or None when it may stay."""
    if key == "description":
        return None
    if key == "system_prompt":
        if not builtin or value == base.system_prompt:
            return None
        return "a built-in agent's prompt"
    if key == "allowed_tools":
        if not value:
            return None if not base.allowed_tools else "would allow every tool"
        if base.allowed_tools and not set(value) <= set(base.allowed_tools):
            extra = sorted(set(value) - set(base.allowed_tools))
            return "would add " + ", ".join(extra)
        return None
    if key == "allowed_commands":
        return "an allow-list" if value else None
    if key == "confirm_mode":
        return _stricter(_CONFIRM_RANK, value, base.confirm_mode)
    if key == "sandbox":
        return _stricter(_SANDBOX_RANK, value, base.sandbox)
    if key == "network":
        return None if value is False or base.network else "would turn the network on"
    if key in ("max_steps", "command_timeout"):
        limit = getattr(base, key)
        return None if isinstance(value, int) and value <= limit else f"more than {limit}"
    return "not settable by an untrusted folder"


def _stricter(rank: dict[str, int], value: Any, current: str) -> str | None:
    if rank.get(str(value), -1) >= rank[current]:
        return None
    return f"{value} is looser than {current}"


def _keys_of(key: str, value: Any) -> list[str]:
    """The dotted keys a section sets, one level down (``llm.api_base``), for the notice."""
    if isinstance(value, Mapping) and value:
        return [f"{key}.{sub}" for sub in value]
    return [key]
