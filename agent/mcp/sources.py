"""The MCP servers a workspace already declares for other tools.

Besides ``mcp.servers`` of ``.agentls.yaml``, a workspace may have:

- ``.vscode/mcp.json`` (VS Code): ``{"servers": {name: {type, command, args, env, envFile,
  cwd} | {type: "http" | "sse", url, headers}}, "inputs": [...]}``, JSON with comments;
- ``.mcp.json`` (Claude Code, Cursor): ``{"mcpServers": {name: {command, args, env} |
  {type, url, headers}}}``, where ``${VAR}`` and ``${VAR:-default}`` name environment
  variables.

Each source can be turned off (``mcp.vscode_config``, ``mcp.mcp_json``). On a name clash
the earlier source wins: ``.agentls.yaml``, then ``.vscode/mcp.json``, then ``.mcp.json``.
An entry that cannot be used (an ``${input:...}`` only VS Code can prompt for, a wrong
shape) is skipped with one warning naming the file and the entry; a key agentls does not
know is reported and ignored, since these files are shared with other tools.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agentls.agent.config.models import MCP_JSON_FILE, VSCODE_MCP_FILE, AppConfig, MCPServerConfig
from agentls.agent.mcp.expand import input_variables

log = logging.getLogger(__name__)


#: Source key -> MCPServerConfig field, per file.
_VSCODE_KEYS = {
    "type": "type",
    "command": "command",
    "args": "args",
    "env": "env",
    "envFile": "env_file",
    "cwd": "cwd",
    "url": "url",
    "headers": "headers",
}
_MCP_JSON_KEYS = {
    "type": "type",
    "command": "command",
    "args": "args",
    "env": "env",
    "cwd": "cwd",
    "url": "url",
    "headers": "headers",
}
#: Keys that only matter to the editor that wrote them (VS Code's dev mode, gallery data).
_IGNORED_KEYS = {"dev", "gallery", "version", "description", "disabled", "timeout"}


@dataclass(frozen=True)
class _FileFormat:
    """How one kind of workspace file declares its servers."""

    relative: Path
    section: str
    keys: dict[str, str]
    #: How a value is read: ``.mcp.json``'s ``${VAR}`` becomes agentls' ``${env:VAR}``.
    convert: Callable[[Any], Any]

    @property
    def label(self) -> str:
        return self.relative.as_posix()


@dataclass
class WorkspaceServers:
    """The servers to use, and what the user should hear about the skipped ones."""

    servers: list[MCPServerConfig] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def workspace_servers(config: AppConfig) -> WorkspaceServers:
    """``mcp.servers`` plus the enabled workspace files' servers (blocking: reads files)."""
    found = WorkspaceServers(servers=list(config.mcp.servers))
    root = config.workspace.root
    taken = {server.name for server in config.mcp.servers}
    enabled = ((_VSCODE, config.mcp.vscode_config), (_MCP_JSON, config.mcp.mcp_json))
    for fmt in (fmt for fmt, on in enabled if on):
        path = root / fmt.relative
        if not path.is_file():
            continue
        for server in _read(path, fmt, found):
            if server.name in taken:
                log.info(
                    "MCP server %r of %s is shadowed by an earlier one of that name",
                    server.name,
                    fmt.label,
                )
                continue
            taken.add(server.name)
            found.servers.append(server)
    return found


def _read(path: Path, fmt: _FileFormat, found: WorkspaceServers) -> list[MCPServerConfig]:
    label, section = fmt.label, fmt.section
    try:
        data = json.loads(strip_jsonc(path.read_text(encoding="utf-8")))
    except OSError as exc:
        found.warnings.append(f"MCP: cannot read {label}: {exc.strerror or exc}")
        return []
    except json.JSONDecodeError as exc:
        found.warnings.append(
            f"MCP: {label} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
            f"{exc.msg}); its servers are not used"
        )
        return []
    if not isinstance(data, dict):
        found.warnings.append(f"MCP: {label}: the top level must be an object")
        return []
    entries = data.get(section, {})
    if not isinstance(entries, dict):
        found.warnings.append(f"MCP: {label}: {section!r} must be an object of servers by name")
        return []
    servers = []
    for name, entry in entries.items():
        server = _server(str(name), entry, fmt, found)
        if server is not None:
            servers.append(server)
    return servers


def _server(
    name: str, entry: Any, fmt: _FileFormat, found: WorkspaceServers
) -> MCPServerConfig | None:
    where = f"MCP server {name!r} in {fmt.label}"
    if not isinstance(entry, dict):
        found.warnings.append(f"{where}: skipped: an entry must be an object")
        return None
    needs_input = input_variables(entry)
    if needs_input:
        found.warnings.append(
            f"{where}: skipped: it uses ${{{needs_input[0]}}}, which only VS Code can prompt "
            "for; put the value in an environment variable and write ${env:VAR} instead"
        )
        return None
    fields: dict[str, Any] = {"name": name}
    unknown = []
    for key, value in entry.items():
        target = fmt.keys.get(key)
        if target is None:
            if key not in _IGNORED_KEYS:
                unknown.append(key)
            continue
        fields[target] = fmt.convert(value)
    if unknown:
        found.warnings.append(
            f"{where}: ignoring key(s) agentls does not know: " + ", ".join(sorted(unknown))
        )
    if isinstance(fields.get("env"), dict):
        # VS Code allows numbers and null (unset) as values.
        fields["env"] = {
            str(key): str(value) for key, value in fields["env"].items() if value is not None
        }
    try:
        server = MCPServerConfig.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in item['loc']) or 'entry'}: "
            f"{item['msg'].removeprefix('Value error, ')}"
            for item in exc.errors()
        )
        found.warnings.append(f"{where}: skipped: {problems}")
        return None
    server.set_source("workspace", fmt.label)
    return server


_SHELL_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}")


def _variables(value: Any) -> Any:
    """``.mcp.json``'s ``${VAR}`` / ``${VAR:-default}`` in agentls' ``${env:...}`` form."""
    if isinstance(value, str):
        return _SHELL_VARIABLE.sub(lambda m: f"${{env:{m.group(1)}{m.group(2) or ''}}}", value)
    if isinstance(value, dict):
        return {key: _variables(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_variables(item) for item in value]
    return value


def _as_written(value: Any) -> Any:
    return value


_VSCODE = _FileFormat(VSCODE_MCP_FILE, "servers", _VSCODE_KEYS, convert=_as_written)
_MCP_JSON = _FileFormat(MCP_JSON_FILE, "mcpServers", _MCP_JSON_KEYS, convert=_variables)


def strip_jsonc(text: str) -> str:
    """JSON with comments (``//``, ``/* */``) and trailing commas, as plain JSON.

    VS Code's own files allow both. Strings are copied untouched; a removed comment
    leaves its newlines, so error positions still match the file.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            end = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif char == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma
            else:
                out.append(char)
                i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)
