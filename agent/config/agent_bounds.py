"""Whether one agent may do more than another: the comparison behind "a workspace can only
narrow what the user's own agent may do".

An agent's reach is the settings that decide what it may do without the user: its tools,
its allow-list of commands, its confirm mode, its sandbox and network, and how long it may
go on (steps, command timeout). Its prompt and description say what it is for, not what it
may do, and are not compared. ``loosening`` judges one setting, ``widening`` a whole agent.
"""

from __future__ import annotations

from typing import Any

from agentls.agent.config.models import AgentConfig

#: The settings that bound what an agent may do, in the order messages list them.
REACH_KEYS = (
    "allowed_tools",
    "allowed_commands",
    "confirm_mode",
    "sandbox",
    "network",
    "max_steps",
    "command_timeout",
)

_CONFIRM_RANK = {"yolo": 0, "confirm-sensitive": 1, "confirm-all": 2}
_SANDBOX_RANK = {"off": 0, "workspace-write": 1, "read-only": 2}


def loosening(key: str, value: Any, base: AgentConfig) -> str | None:
    """Why ``key: value`` lets an agent do more than ``base`` does, or None when it does not.
    ``key`` must be one of ``REACH_KEYS``."""
    if key == "allowed_tools":
        if not value:
            return None if not base.allowed_tools else "would allow every tool"
        if base.allowed_tools and not set(value) <= set(base.allowed_tools):
            extra = sorted(set(value) - set(base.allowed_tools))
            return "would add " + ", ".join(extra)
        return None
    if key == "allowed_commands":
        extra = sorted(set(value or ()) - set(base.allowed_commands))
        return "would allow " + ", ".join(extra) if extra else None
    if key == "confirm_mode":
        return _stricter(_CONFIRM_RANK, value, base.confirm_mode)
    if key == "sandbox":
        return _stricter(_SANDBOX_RANK, value, base.sandbox)
    if key == "network":
        return None if value is False or base.network else "would turn the network on"
    if key in ("max_steps", "command_timeout"):
        limit = getattr(base, key)
        return None if isinstance(value, int) and value <= limit else f"more than {limit}"
    raise ValueError(f"{key} is not a setting of an agent's reach")


def widening(agent: AgentConfig, base: AgentConfig) -> list[str]:
    """What ``agent`` may do that ``base`` may not, one ``key (why)`` each; empty when
    ``agent`` is no wider than ``base``."""
    found = []
    for key in REACH_KEYS:
        why = loosening(key, getattr(agent, key), base)
        if why is not None:
            found.append(f"{key} ({why})")
    return found


def reach_of(agent: AgentConfig) -> dict[str, Any]:
    """``agent``'s reach settings as config data, to start a new agent from."""
    return agent.model_dump(mode="json", include=set(REACH_KEYS))


def _stricter(rank: dict[str, int], value: Any, current: str) -> str | None:
    if rank.get(str(value), -1) >= rank[current]:
        return None
    return f"{value} is looser than {current}"
