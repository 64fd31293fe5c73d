"""The variables MCP server entries may use: ``${workspaceFolder}``, ``${env:VAR}``.

They are VS Code's syntax (``.vscode/mcp.json`` uses them); agentls accepts them in every
source, so one entry can be copied between files. They are substituted when the server
is started, not when the config is read, so a secret in ``${env:API_KEY}`` never sits in
the config object and a changed variable is picked up on the next start.
``${input:id}`` asks the user through VS Code's own prompt; agentls cannot, so such
entries are refused with a message saying what to write instead.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from agentls.agent.errors import MCPConnectionError

_VARIABLE = re.compile(r"\$\{([^}]*)\}")


def input_variables(value: object) -> list[str]:
    """Every ``${input:id}`` in ``value`` (strings, lists and mappings, recursively)."""
    found: list[str] = []
    if isinstance(value, str):
        found.extend(
            match.group(1)
            for match in _VARIABLE.finditer(value)
            if match.group(1).startswith("input:")
        )
    elif isinstance(value, Mapping):
        for item in value.values():
            found.extend(input_variables(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(input_variables(item))
    return found


def variables_read(value: str) -> list[str]:
    """The user's environment variables ``value`` reads (``${env:VAR}``), each once, so
    that a person approving it sees which of their secrets it would receive."""
    found: list[str] = []
    for match in _VARIABLE.finditer(value):
        name = match.group(1)
        if name.startswith("env:"):
            variable = name.removeprefix("env:").partition(":-")[0]
            if variable not in found:
                found.append(variable)
    return found


def expand(
    value: str,
    *,
    server: str,
    where: str,
    workspace: Path,
    environ: Mapping[str, str] | None = None,
) -> str:
    """``value`` with its variables substituted.

    Raises MCPConnectionError naming the server and the key (``where``) for a variable
    that is not set, an ``${input:...}``, or a variable agentls does not know.
    """
    env = os.environ if environ is None else environ

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in ("workspaceFolder", "workspaceRoot"):
            return str(workspace)
        if name == "workspaceFolderBasename":
            return workspace.name
        if name == "userHome":
            return str(Path.home())
        if name == "pathSeparator":
            return os.sep
        if name.startswith("env:"):
            # ``${env:VAR:-default}`` is how ``.mcp.json``'s ``${VAR:-default}`` arrives.
            variable, has_default, default = name.removeprefix("env:").partition(":-")
            if variable not in env and has_default:
                return default
            if variable not in env:
                raise MCPConnectionError(
                    f"MCP server {server!r}: environment variable {variable} "
                    f"(${{env:{variable}}} in {where}) is not set"
                )
            return env[variable]
        if name.startswith("input:"):
            raise MCPConnectionError(
                f"MCP server {server!r}: {where} uses ${{{name}}}, which only VS Code can "
                "ask for; use ${env:VAR} instead"
            )
        raise MCPConnectionError(
            f"MCP server {server!r}: unknown variable ${{{name}}} in {where} (agentls knows "
            "${workspaceFolder}, ${env:VAR}, ${userHome})"
        )

    return _VARIABLE.sub(replace, value)


def _read_regular(path: Path) -> bytes:
    """The bytes of a regular file; OSError for anything else (a FIFO a command left in
    the workspace must not block the start)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return handle.read()


def read_env_file(path: Path, *, server: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (a dotenv file); ``#`` comments, ``export`` and quotes allowed."""
    try:
        text = _read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise MCPConnectionError(
            f"MCP server {server!r}: cannot read env_file {path}: {why}"
        ) from None
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").strip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key:
            raise MCPConnectionError(
                f"MCP server {server!r}: {path.name} line {number}: expected KEY=VALUE"
            )
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key] = value
    return values
