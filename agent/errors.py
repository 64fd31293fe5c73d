"""The agent's error hierarchy.

These exceptions signal inside the agent. ExecutionEngine turns them into
``ToolResult(success=False)`` and AgentLoop into a status change, so none of them
ever reaches the user as a traceback.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every agentls error, so front ends can catch ours and only ours."""


class MCPError(AgentError):
    """Something went wrong talking to a remote MCP server."""


class MCPConnectionError(MCPError):
    """The MCP server could not be reached or dropped the connection."""


class MCPToolCallError(MCPError):
    """The remote MCP tool ran and reported an error."""


class PathTraversalError(AgentError):
    """A path points outside the workspace (``..``, absolute, symlink, ``~``, NUL, ``.git``)."""


class InvalidTargetError(AgentError):
    """A file or directory named by a tool does not exist or is not what the tool needs."""


class PatchError(AgentError):
    """A unified diff could not be parsed or applied; nothing was changed."""


class NoTTYError(AgentError):
    """Confirmation is needed but nobody can be asked (headless run without a TTY)."""


class ToolNotFoundError(AgentError):
    """The model asked for a tool that is not registered."""


class DuplicateToolError(AgentError):
    """A tool with this name is already registered (use ``allow_override=True``)."""


class AgentNotFoundError(AgentError):
    """No agent of this name among the defaults or the ``agents:`` of the config."""


class ConfigError(AgentError):
    """The configuration is invalid; the message names the key path and the source."""


class StepTimeoutError(AgentError, TimeoutError):
    """One step of the agent took longer than the configured timeout."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"step exceeded its timeout of {seconds:g}s")
        self.seconds = seconds
