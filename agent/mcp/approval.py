"""The user's approval before a workspace's MCP server starts.

A stdio MCP server is a program, and an HTTP one receives whatever headers its entry
names: a repository that declares one in ``.agentls.yaml``, ``.vscode/mcp.json`` or
``.mcp.json`` would otherwise run code or reach the user's secrets on the first agent
run. So a server the workspace declares starts only after the user approved that
exact definition, and the approval is stored with a digest of everything that decides
what runs or where secrets go: every value as written (command, arguments, environment,
env file, working directory, URL, headers with their values, token variable, an inline
token), and the contents of the workspace files the definition runs or reads (a script
or program named in ``command`` or ``args``, the ``env_file``; ``agent.protected.approved_files``).
Changing any of it under the same name asks again; so does an approval stored by an
older agentls, whose digest covered less. The question shows the same: each value as
written, which of the user's variables it reads, and each workspace file with a short
fingerprint. Servers from the user's own config or the editor's settings need no
approval: they are the user's.

The question is ``agent.policy.program_approval``'s, put to the run's ``Approver`` like every
program a workspace declares (a terminal question, an editor's modal or message, an ACP
permission request); without anybody to ask, the server is skipped with one line naming
the command that approves it.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from agentls.agent.config.models import MCPServerConfig
from agentls.agent.config.trust import TrustStore, canonical
from agentls.agent.errors import MCPConnectionError
from agentls.agent.mcp.expand import expand, read_env_file, variables_read
from agentls.agent.policy.program_approval import ProgramApprovals, ProgramToApprove, WaitingProgram
from agentls.agent.protected.approved_files import (
    WorkspaceFile,
    files_named,
    visible,
    workspace_file,
)

if TYPE_CHECKING:
    from agentls.agent.policy.approval import Approver

#: What the digest format is: stored approvals of another format simply ask again.
DIGEST_FORMAT = 2


def _expanded(value: str, server: MCPServerConfig, root: Path) -> str | None:
    """``value`` with its variables substituted, to find the files it names; None when a
    variable is not set (the server would not start either)."""
    try:
        return expand(value, server=server.name, where="", workspace=root)
    except MCPConnectionError:
        return None


def _module_files(args: Sequence[str]) -> list[str]:
    """``python -m pkg.mod``: the files that name runs, as paths to look for."""
    names = []
    for flag, value in itertools.pairwise(args):
        if flag == "-m":
            base = value.replace(".", "/")
            names += [f"{base}.py", f"{base}/__main__.py"]
    return names


def _search_path(server: MCPServerConfig, root: Path) -> str:
    """The PATH the server's command is looked up on, as ``MCPConnection`` builds it."""
    env: dict[str, str] = {}
    env_file = _env_file(server, root) if server.env_file else None
    if env_file is not None:
        with contextlib.suppress(MCPConnectionError):
            env.update(read_env_file(root / env_file.path, server=server.name))
    if "PATH" in server.env:
        env["PATH"] = _expanded(server.env["PATH"], server, root) or ""
    return env.get("PATH", os.environ.get("PATH", os.defpath))


def server_files(server: MCPServerConfig, root: Path) -> list[WorkspaceFile]:
    """The workspace files ``server`` runs or reads (its program, scripts and files among
    its arguments, its env file), as they are now."""
    if server.transport != "stdio":
        return []
    cwd = _expanded(server.cwd, server, root) if server.cwd else None
    base = root / cwd if cwd else root
    words: list[str] = []
    command = _expanded(server.command or "", server, root) or ""
    found: list[WorkspaceFile] = []
    if os.sep in command or "/" in command:
        words.append(command)
    elif command:
        # A bare name is looked up on PATH as it starts: the entry's own (its env, or its
        # env file's) first, else agentls's; a PATH entry may lead into the workspace.
        located = shutil.which(command, path=_search_path(server, root))
        hit = workspace_file(located, root, root) if located else None
        if hit is not None:
            found.append(hit)
    args = [arg for arg in (_expanded(a, server, root) for a in server.args) if arg is not None]
    words += args + _module_files(args)
    found += files_named(words, base, root)
    if base != root:
        found += files_named(words, root, root)
    if server.env_file:
        hit = _env_file(server, root)
        if hit is not None:
            found.append(hit)
    unique: dict[str, WorkspaceFile] = {}
    for item in found:
        unique.setdefault(item.path, item)
    return list(unique.values())


def definition_digest(server: MCPServerConfig, root: Path) -> str:
    """A digest of what decides what the server runs and which secrets it gets: every
    value as written, and the workspace files it runs or reads."""
    token = server.token.get_secret_value() if server.token is not None else None
    definition = {
        "format": DIGEST_FORMAT,
        "transport": server.transport,
        "command": server.command,
        "args": server.args,
        "env": server.env,
        "env_file": server.env_file,
        "cwd": server.cwd,
        "url": server.url,
        "headers": server.headers,
        "token_env": server.token_env,
        "token": hashlib.sha256(token.encode("utf-8")).hexdigest() if token else None,
        "trusted": server.trusted,
        "files": sorted(item.digest_part() for item in server_files(server, root)),
    }
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _reads(value: str) -> str:
    """`` (reads your $A, $B)`` when ``value`` reads the user's variables."""
    names = variables_read(value)
    return f"  (reads your {', '.join('$' + name for name in names)})" if names else ""


def _env_file(server: MCPServerConfig, root: Path) -> WorkspaceFile | None:
    expanded = _expanded(server.env_file or "", server, root)
    return workspace_file(expanded, root, root) if expanded else None


def _env_file_line(server: MCPServerConfig, root: Path) -> str:
    written = server.env_file or ""
    hit = _env_file(server, root)
    if hit is None:
        return f"env file: {written}{_reads(written)} (no file inside the workspace: refused)"
    try:
        names = sorted(read_env_file(root / hit.path, server=server.name))
    except MCPConnectionError as exc:
        return f"env file: {written} ({exc})"
    return f"env file: {hit.describe()}; sets {', '.join(names) or 'nothing'}"


def describe_definition(server: MCPServerConfig, root: Path) -> list[str]:
    """The definition as the user should see it before approving: every value exact and
    unexpanded, which of the user's variables each reads, and the workspace files it
    runs or reads with a fingerprint of their contents."""
    lines = []
    files = server_files(server, root)
    if server.transport == "stdio":
        command = shlex.join([server.command or "", *server.args])
        lines.append(f"command: {command}{_reads(command)}")
        if server.cwd:
            lines.append(f"working directory: {server.cwd}{_reads(server.cwd)}")
        for name, value in server.env.items():
            lines.append(f"env {name}={value}{_reads(value)}")
        if server.env_file:
            lines.append(_env_file_line(server, root))
            env_file = _env_file(server, root)
            files = [item for item in files if env_file is None or item.path != env_file.path]
    else:
        url = server.url or ""
        lines.append(f"{server.transport} url: {url}{_reads(url)}")
        for name, value in server.headers.items():
            lines.append(f"header {name}: {value}{_reads(value)}")
        if server.token_env:
            lines.append(f"bearer token: your ${server.token_env}")
        if server.token is not None:
            lines.append("bearer token: written in the file (not shown)")
    for item in files:
        lines.append(f"runs or reads workspace file {item.describe()}")
    if server.trusted:
        lines.append("trusted: its tools run without asking")
    return [visible(line) for line in lines]


def server_program(
    server: MCPServerConfig, root: Path, digest: str, *, changed: bool
) -> ProgramToApprove:
    """A workspace's server as the user is asked about it."""
    # Quoted as JSON, so that a name cannot end the quotes and say more.
    name = visible(json.dumps(server.name))
    headline = (
        f"The MCP server {name} changed since you approved it. Allow the new definition to start?"
        if changed
        else f"Allow the MCP server {name} to start?"
    )
    warning = (
        "It runs as a program with your permissions. Allow it only if you trust this repository."
        if server.transport == "stdio"
        else "agentls will send it your tool calls. Allow it only if you trust this repository."
    )
    return ProgramToApprove(
        kind="mcp_server",
        name=server.name,
        source=visible(server.source_label),
        root=root,
        headline=headline,
        lines=tuple(describe_definition(server, root)),
        files=tuple(visible(item.describe()) for item in server_files(server, root)),
        warning=warning,
        digest=digest,
        changed=changed,
    )


@dataclass
class Gated:
    """The servers that may start, and one message per server that may not."""

    allowed: list[MCPServerConfig] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def approve_command(name: str, root: Path) -> str:
    return f"agentls mcp approve {shlex.quote(name)} --workspace {shlex.quote(str(root))}"


async def gate(
    servers: Sequence[MCPServerConfig],
    root: Path,
    *,
    approvals: ProgramApprovals,
    approver: Approver | None,
) -> Gated:
    """Which of ``servers`` may start: the user's own, the approved ones, and those the
    user approves now through ``approver`` (stored; None: nobody can be asked).
    ``approvals`` remembers what the user refused, so a long-lived front end does not
    ask again each run."""
    store = approvals.store
    result = Gated()
    for server in servers:
        if server.source != "workspace":
            result.allowed.append(server)
            continue
        digest = definition_digest(server, root)
        approved = store.approved_digest(root, "mcp", server.name)
        if approved == digest:
            result.allowed.append(server)
            continue
        program = server_program(server, root, digest, changed=approved is not None)
        now = partial(definition_digest, server, root)
        verdict = await approvals.ask(WaitingProgram(program, now), approver)
        label = f"MCP server {server.name!r} ({server.source_label})"
        if verdict == "approved":
            result.allowed.append(server)
        elif verdict == "changed":
            # Changed while the user read the question: what they allowed is not what runs.
            result.skipped.append(
                f"{label} was not started: its definition or a file it runs changed while "
                "you were asked; you will be asked again"
            )
        elif verdict == "refused":
            result.skipped.append(f"{label} was not started: you did not allow it")
        else:
            result.skipped.append(
                f"{label} was not started: it is not approved"
                f"{' in this form' if program.changed else ''}. To allow it, run "
                f"`{approve_command(server.name, root)}`"
            )
    return result


# -- listing and approving outside a run (``agentls mcp list`` / ``approve``) ---------------


def declared_servers(root: Path) -> tuple[list[MCPServerConfig], list[str]]:
    """Every server the configuration and the workspace's files declare, trusted or not
    (to list them), with the warnings about entries that cannot be used."""
    from agentls.agent.config.loader import load_config
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
    if approved != definition_digest(server, folder):
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
            store.approve(folder, "mcp", server.name, definition_digest(server, folder))
            names.append(server.name)
    return names
