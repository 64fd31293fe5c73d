"""``FolderEngine``: what the engine keeps for one workspace folder across runs.

A front end makes one (the language server per folder for its lifetime, the CLI and
ACP per session) through ``agentls.compose``, and hands each run only its own parts:
files, approver, observer, what the user sends during a run. The engine composes the
rest here, once for every front end: the folder's settings and trust (``settings``:
``FolderSettings``), the notices a run starts with and the one "how to trust this
folder" hint (from the ``Medium``), the language servers (through the
factory handed in: the engine does not import them), the MCP connections, and the
worktrees its runs work in (one run per worktree at a time). ``aclose`` ends what it
started.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agentls.agent.config.models import AppConfig, DiagnosticsConfig
from agentls.agent.folder.media import Medium
from agentls.agent.folder.runs import RunBook
from agentls.agent.folder.settings import FolderSettings
from agentls.agent.folder.worktree_book import WorktreeBook, WorktreeBusy
from agentls.agent.folder.worktree_runs import WorktreeRun, open_worktree_run
from agentls.agent.navigation import CodeNavigator
from agentls.agent.policy.program_approval import ProgramApprovals
from agentls.agent.problems import ProblemSource

if TYPE_CHECKING:
    from agentls.agent.config.agents import AgentRegistry
    from agentls.agent.contract import RunRequest
    from agentls.agent.llm.protocol import LLM
    from agentls.agent.mcp import MCPPool
    from agentls.agent.policy.approval import Approver
    from agentls.agent.prompts.slash_commands import SlashCommandSet
    from agentls.agent.run import FrontEnd, RunOutcome
    from agentls.agent.sessions.store import SessionStore
    from agentls.agent.tools.registry import ToolRegistry


class LanguageServerPool(ProblemSource, Protocol):
    """The language servers of a folder (``agentls.langservers.LanguageServers``)."""

    @property
    def navigator(self) -> CodeNavigator:
        """The same servers, answering questions about the code."""

    async def aclose(self) -> None: ...


class LanguageServersFactory(Protocol):
    def __call__(
        self, settings: DiagnosticsConfig, root: Path, *, trusted: bool, how_to_trust: str
    ) -> LanguageServerPool: ...


class FolderEngine:
    """One workspace folder's lasting parts (see the module's doc)."""

    def __init__(
        self,
        medium: Medium,
        *,
        settings: FolderSettings | None = None,
        language_servers: LanguageServersFactory | None = None,
    ) -> None:
        self.medium = medium
        #: The folder's settings layers, its trust and the config in force. A front end
        #: whose folder is known only later (the CLI after making a worktree) replaces it
        #: before loading.
        self.settings = settings if settings is not None else FolderSettings()
        self._language_servers_factory = language_servers
        self._language_servers: tuple[Any, LanguageServerPool] | None = None
        self._mcp: MCPPool | None = None
        #: The folder's approvals of the programs its workspace declares (hooks, MCP
        #: servers): one record, so what the user refused is not asked again while the
        #: engine lives, whichever kind or run asked.
        self.approvals = ProgramApprovals()
        #: The runs in flight: their ids, cancel tokens and mailboxes.
        self.runs = RunBook()
        #: Names of the worktrees a run works in now.
        self._worktrees_in_use: set[str] = set()
        #: List, apply and discard (refused while a run works in the worktree).
        self.worktrees = WorktreeBook(self.worktree_in_use)
        #: What is being closed in the background (replaced language servers, symbols).
        self._closing: set[asyncio.Task[None]] = set()

    # -- trust and notices ---------------------------------------------------------------
    def how_to_trust(self, root: Path | None = None) -> str:
        """The one hint on trusting the folder, worded for this medium and for whether
        the editor has a trust model of its own."""
        return self.medium.how_to_trust(
            root if root is not None else self.settings.root,
            editor_grants_trust=self.settings.editor_grants_trust,
        )

    def notices(self, *, trust: bool = True, sandbox: bool = True) -> tuple[str, ...]:
        """What a run must tell the user as it starts, from the settings in force: what
        the untrusted folder's settings lost and how to trust it (``trust=False``: the
        editor shows its own restricted mode), what the agent files say (a broken one, a
        name clash), and that commands cannot be sandboxed (``sandbox=False``: said
        already, the terminal's first line)."""
        found = [self.trust_notice() if trust else None, *self.settings.agent_notices]
        if sandbox:
            found.append(sandbox_notice(self.settings.config))
        return tuple(notice for notice in found if notice)

    def trust_notice(self) -> str | None:
        """What the untrusted folder's settings lost and how to trust it, or None."""
        loaded = self.settings.report
        if loaded is None:
            return None
        return loaded.notice(self.how_to_trust(loaded.root))

    # -- language servers ---------------------------------------------------------------
    def language_servers(self, config: AppConfig) -> LanguageServerPool | None:
        """The language servers that tell a run (with ``config``) the problems of what
        it edits: kept while the config and the folder's trust stay, replaced (the old
        ones closed) when they change; None when diagnostics are off or no factory was
        handed in."""
        factory = self._language_servers_factory
        if factory is None or not config.diagnostics.enabled:
            return None
        root = config.workspace.root
        trusted, editor_grants_trust = self.settings.trusted, self.settings.editor_grants_trust
        key = (root, trusted, editor_grants_trust, config.diagnostics)
        held = self._language_servers
        if held is not None and held[0] == key:
            return held[1]
        if held is not None:
            self._close_soon(held[1].aclose())
        how = self.how_to_trust(root)
        servers = factory(config.diagnostics, root, trusted=trusted, how_to_trust=how)
        self._language_servers = (key, servers)
        return servers

    def navigator(self, config: AppConfig) -> CodeNavigator | None:
        """Who answers a run's questions about the code by its meaning: the language
        servers of ``language_servers`` (the same pool, trust rule and settings as the
        problems); None where none may start (diagnostics off)."""
        servers = self.language_servers(config)
        return servers.navigator if servers is not None else None

    # -- MCP ------------------------------------------------------------------------------
    @property
    def mcp(self) -> MCPPool:
        """The folder's MCP connections, shared by its runs (the SDK imported on first use)."""
        if self._mcp is None:
            from agentls.agent.mcp import MCPPool

            self._mcp = MCPPool(self.approvals)
        return self._mcp

    async def mcp_registry(
        self,
        config: AppConfig,
        *,
        warn: Callable[[str], None],
        approver: Approver | None,
    ) -> ToolRegistry | None:
        """The run's tools with the MCP servers' (None: no server may be declared, and
        the MCP SDK, a second of imports, is never loaded). ``approver`` is asked about a
        server the workspace declares (None: nobody can be asked; such servers are skipped
        unless approved before); ``warn`` gets each server that cannot be used."""
        from agentls.agent.config.loader import may_declare_mcp_servers

        if not may_declare_mcp_servers(config):
            return None
        return await self.mcp.registry_for(config, warn=warn, approver=approver)

    async def run_with_own_tools(
        self,
        request: RunRequest,
        front_end: FrontEnd,
        *,
        config: AppConfig,
        warn: Callable[[str], None],
    ) -> RunOutcome:
        """A run for a front end that keeps no index of its own between runs (the CLI,
        ACP): the workspace is indexed for this run, its tools are the folder's (MCP
        servers included, kept by this engine), model calls made in this process.
        ``warn`` gets one message per MCP server that cannot be used; the front end's
        approver is asked about each program the workspace declares."""
        import dataclasses

        from agentls.agent.indexing import build_index
        from agentls.agent.llm import adapter_for
        from agentls.agent.llm.editor import llm_for_model
        from agentls.agent.run import run_agent

        def model_access(config: AppConfig) -> LLM:
            # No editor lends its models here: an ``editor/…`` id fails with why.
            return llm_for_model(
                config.llm.model, editor=None, otherwise=lambda: adapter_for(config.llm)
            )

        index = await build_index(config)
        front_end = dataclasses.replace(front_end, approvals=self.approvals)
        registry = await self.mcp_registry(config, warn=warn, approver=front_end.approver)
        own_tools = dataclasses.replace(
            front_end,
            index=index,
            registry=registry,
            llm_for=front_end.llm_for or model_access,
        )
        return await run_agent(request, own_tools, config=config, llm=model_access(config))

    # -- worktrees -------------------------------------------------------------------------
    def worktree_in_use(self, name: str) -> bool:
        return name in self._worktrees_in_use

    async def hold_worktree(self, folder: Path, name: str | None) -> WorktreeRun:
        """The worktree ``name`` of ``folder``'s repository (new when it does not exist),
        held for one run until ``release_worktree``: WorktreeBusy while another run works
        in it; WorktreeError when it cannot be made."""
        if name and self.worktree_in_use(name):
            raise WorktreeBusy(f"the worktree {name!r} already has a run in flight")
        run = await open_worktree_run(
            folder, name, edits_confirmed=self.medium.worktree_edits_confirmed
        )
        if self.worktree_in_use(run.name):
            raise WorktreeBusy(f"the worktree {run.name!r} already has a run in flight")
        self._worktrees_in_use.add(run.name)
        return run

    def release_worktree(self, run: WorktreeRun) -> None:
        self._worktrees_in_use.discard(run.name)

    async def open_worktree(self, folder: Path, name: str | None) -> WorktreeRun:
        """A worktree a session keeps for all its runs (ACP): not held run by run."""
        return await open_worktree_run(
            folder, name, edits_confirmed=self.medium.worktree_edits_confirmed
        )

    # -- the end ---------------------------------------------------------------------------
    def close_soon(self, closing: Callable[[], Any]) -> None:
        """Close something a run leaves (a worktree's symbol process) in the background,
        waited for by ``aclose``."""
        self._close_soon(closing())

    def _close_soon(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        """End the MCP connections and language servers this folder started."""
        held, self._language_servers = self._language_servers, None
        if held is not None:
            await held[1].aclose()
        if self._mcp is not None:
            await self._mcp.aclose()
        if self._closing:
            await asyncio.wait(list(self._closing), timeout=5)

    # -- sessions, slash commands, agents ---------------------------------------------------
    def sessions(self, config: AppConfig) -> SessionStore:
        """The folder's sessions (``config.sessions.dir`` under its root): StatePathError
        when that folder is reached through a symlink, which is never read."""
        from agentls.agent.sessions.store import store_for

        return store_for(config.workspace.root, config.sessions.dir)

    def slash_commands(self, root: Path) -> SlashCommandSet:
        """The ``/name`` commands a prompt in ``root`` may start with (built-ins, the
        user's prompt files, the workspace's), with the problems of the files skipped.
        Read again at each call: the user may have just written a prompt file. It reads
        files: a front end with an event loop to keep free calls it in a thread. The
        skills are among them; in an untrusted folder the workspace's are listed, and a
        problem says they are not offered until the folder is trusted, and how."""
        from agentls.agent.prompts.slash_commands import load_slash_commands

        trusted = self.settings.trusted
        found = load_slash_commands(
            root, trusted=trusted, skills=self.settings.config.skills.enabled
        )
        withheld = [
            c.name
            for c in found.listed()
            if c.kind == "skill" and c.source == "workspace" and not trusted
        ]
        if withheld:
            names = ", ".join(f"/{name}" for name in withheld)
            found.problems.append(
                f"this workspace's skills ({names}) are not offered to the model nor run "
                f"until the folder is trusted: {self.how_to_trust(root)}"
            )
        return found

    def agents(self, config: AppConfig) -> AgentRegistry:
        """The agents a run may use: the built-ins, the agent files' and the ``agents:``
        of ``config`` (the folder's settings put the files' in it)."""
        from agentls.agent.config.agents import AgentRegistry

        return AgentRegistry(config)


def sandbox_notice(config: AppConfig) -> str | None:
    """That the commands of a run cannot be sandboxed here, or None."""
    from agentls.agent.exec.sandbox_status import missing_sandbox_notice

    return missing_sandbox_notice(config)
