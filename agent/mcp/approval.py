"""The user's approval before a workspace's MCP server starts.

A stdio MCP server is a program, and an HTTP one receives whatever headers its entry
names: a repository that declares one in ``.agentls.yaml``, ``.vscode/mcp.json`` or
``.mcp.json`` would otherwise run code or reach the user's secrets on the first agent
run. So a server the workspace declares starts only after the user approved that
exact definition, and the approval is stored with a digest of everything that decides
what runs or where secrets go (command, arguments, environment as written, working
directory, URL, header names, token variable). Changing any of it under the same name
asks again. Servers from the user's own config or the editor's settings need no
approval: they are the user's.

Each front end asks in its own way (a terminal question, a VS Code modal, an ACP
permission request) through an ``McpApprover``; without anybody to ask, the server is
skipped with one line naming the command that approves it.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.agent.config import MCPServerConfig
from agentls.agent.trust import TrustStore, canonical


def definition_digest(server: MCPServerConfig) -> str:
    """A digest of what decides what the server runs and which secrets it gets."""
    definition = {
        "transport": server.transport,
        "command": server.command,
        "args": server.args,
        "env": server.env,
        "env_file": server.env_file,
        "cwd": server.cwd,
        "url": server.url,
        "header_names": sorted(server.headers),
        "token_env": server.token_env,
        "trusted": server.trusted,
    }
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def describe_definition(server: MCPServerConfig) -> list[str]:
    """The definition as the user should see it before approving: exact, unexpanded."""
    lines = []
    if server.transport == "stdio":
        lines.append("command: " + shlex.join([server.command or "", *server.args]))
        if server.cwd:
            lines.append(f"working directory: {server.cwd}")
        for name, value in server.env.items():
            lines.append(f"env {name}={value}")
        if server.env_file:
            lines.append(f"env file: {server.env_file}")
    else:
        lines.append(f"{server.transport} url: {server.url}")
        if server.headers:
            lines.append("headers: " + ", ".join(sorted(server.headers)))
        if server.token_env:
            lines.append(f"bearer token from ${server.token_env}")
    if server.trusted:
        lines.append("trusted: its tools run without asking")
    return lines


@dataclass(frozen=True)
class ServerToApprove:
    """A workspace's server the user has not approved in this exact form."""

    server: MCPServerConfig
    digest: str
    #: The user approved another definition of this name before.
    changed: bool

    @property
    def name(self) -> str:
        return self.server.name

    @property
    def source(self) -> str:
        return self.server.source_label

    def question(self) -> str:
        """The question, whole, for front ends that show plain text."""
        head = (
            f"The MCP server {self.name!r} declared in {self.source} changed since you approved it."
            if self.changed
            else f"{self.source} declares the MCP server {self.name!r}."
        )
        body = "\n".join(f"  {line}" for line in describe_definition(self.server))
        return f"{head}\n{body}\nStart it?"


#: Asks the user about one server: True when they allow it (the approval is then
#: stored), False when they refuse, None when nobody answered (closed, cancelled).
McpApprover = Callable[[ServerToApprove], Awaitable[bool | None]]


@dataclass
class Gated:
    """The servers that may start, and one message per server that may not."""

    allowed: list[MCPServerConfig] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def approve_command(name: str, root: Path) -> str:
    return f"agentls mcp approve {shlex.quote(name)} --workspace {shlex.quote(str(root))}"


def pending(
    servers: Sequence[MCPServerConfig], root: Path, store: TrustStore
) -> list[ServerToApprove]:
    """The workspace's servers that would need the user's approval now."""
    waiting = []
    for server in servers:
        if server.source != "workspace":
            continue
        digest = definition_digest(server)
        approved = store.approved_digest(root, "mcp", server.name)
        if approved != digest:
            waiting.append(ServerToApprove(server, digest, changed=approved is not None))
    return waiting


async def gate(
    servers: Sequence[MCPServerConfig],
    root: Path,
    *,
    approve: McpApprover | None,
    store: TrustStore | None = None,
    refused: set[tuple[str, str]] | None = None,
) -> Gated:
    """Which of ``servers`` may start: the user's own, the approved ones, and those the
    user approves now through ``approve`` (stored). ``refused`` remembers (name, digest)
    pairs declined earlier, so a long-lived front end does not ask again each run."""
    store = store if store is not None else TrustStore()
    asking = {item.name: item for item in pending(servers, root, store)}
    result = Gated()
    for server in servers:
        item = asking.get(server.name)
        if item is None:
            result.allowed.append(server)
            continue
        key = (item.name, item.digest)
        if refused is not None and key in refused:
            result.skipped.append(f"MCP server {item.name!r} ({item.source}): not allowed")
            continue
        if approve is None:
            result.skipped.append(
                f"MCP server {item.name!r} from {item.source} was not started: it is not "
                f"approved{' in this form' if item.changed else ''}. To allow it, run "
                f"`{approve_command(item.name, root)}`"
            )
            continue
        answer = await approve(item)
        if answer:
            store.approve(root, "mcp", item.name, item.digest)
            result.allowed.append(server)
        elif answer is None:
            result.skipped.append(
                f"MCP server {item.name!r} ({item.source}) was not started: nobody answered "
                "the question; you will be asked again"
            )
        else:
            if refused is not None:
                refused.add(key)
            result.skipped.append(
                f"MCP server {item.name!r} ({item.source}) was not started: you did not allow it"
            )
    return result


# -- listing and approving outside a run (``agentls mcp list`` / ``approve``) ---------------


def declared_servers(root: Path) -> tuple[list[MCPServerConfig], list[str]]:
    """Every server the configuration and the workspace's files declare, trusted or not
    (to list them), with the warnings about entries that cannot be used."""
    from agentls.agent.config_loader import load_config
    from agentls.agent.errors import ConfigError
    from agentls.agent.mcp.sources import workspace_servers

    try:
        config = load_config(root, trusted=True)
    except ConfigError:
        # What only a trusted folder may set is broken: list its MCP files at least.
        config = load_config(root, trusted=False)
        config.mcp.vscode_config = config.mcp.mcp_json = True
    found = workspace_servers(config)
    return found.servers, found.warnings


def server_state(server: MCPServerConfig, folder: Path, trusted: bool, store: TrustStore) -> str:
    """Where ``server`` stands, in a few words for the user."""
    if server.source != "workspace":
        return f"yours ({server.source}): starts without asking"
    if not trusted:
        return "ignored: the folder is not trusted"
    approved = store.approved_digest(folder, "mcp", server.name)
    if approved is None:
        return "not approved: asks before starting"
    if approved != definition_digest(server):
        return "changed since you approved it: asks before starting"
    return "approved"


def approve_workspace_servers(folder: Path, store: TrustStore | None = None) -> list[str]:
    """Approve every MCP server ``folder`` declares as it is now (``agentls mcp approve
    --all``); returns their names."""
    store = store if store is not None else TrustStore()
    servers, _ = declared_servers(Path(canonical(folder)))
    names = []
    for server in servers:
        if server.source == "workspace":
            store.approve(folder, "mcp", server.name, definition_digest(server))
            names.append(server.name)
    return names
