"""The ACP agent: sessions, prompts and cancellation over the same run as the server.

An ACP session is an agentls session (the same JSONL store, so ``agentls sessions``
and the language server see it too); each ``session/prompt`` is one run of it, with the
session's conversation as history. A prompt is cancelled with ``session/cancel`` the way
Ctrl-C stops the CLI: the run's CancelToken (the folder engine's run book holds it), and
the answer says ``cancelled``.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls import __version__
from agentls.acp_agent.approver import SessionRules
from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.protocol.client import Client
from agentls.acp_agent.protocol.connection import RequestError
from agentls.acp_agent.protocol.schema import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    ClientCapabilities,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    StopReason,
    TextContentBlock,
    TextResourceContents,
)
from agentls.acp_agent.replay import replay
from agentls.acp_agent.updates import UpdateSender
from agentls.agent.config.models import AppConfig, ConfirmMode
from agentls.agent.contract import Attachment
from agentls.agent.errors import AgentError
from agentls.agent.folder.settings import FolderSettings
from agentls.agent.run_messages import RunMessageError

if TYPE_CHECKING:
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.folder.runs import RunTicket
    from agentls.agent.folder.worktree_runs import WorktreeRun
    from agentls.agent.llm.available import ModelCatalog
    from agentls.agent.sessions.store import SessionStore

log = logging.getLogger(__name__)


@dataclass
class AcpSession:
    id: str
    config: AppConfig
    store: SessionStore
    rules: SessionRules = field(default_factory=SessionRules)
    #: The MCP servers the client handed over, as ``mcp.servers`` entries.
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    confirm_mode: ConfirmMode | None = None
    #: Run commands in the editor's terminals when it offers them.
    client_terminals: bool = False
    #: What the user must hear at each prompt: the untrusted folder's ignored settings,
    #: a missing sandbox.
    notices: tuple[str, ...] = ()
    #: The folder is trusted: a workspace prompt file may choose the model.
    trusted: bool = False
    #: The engine's object for the session's folder: its MCP connections, language
    #: servers (that tell the problems of what the session's runs edit), worktree.
    engine: FolderEngine | None = None
    #: While a turn runs: its run in the engine's book (what cancels it, what a prompt
    #: sent meanwhile joins), and the turn's stop reason.
    ticket: RunTicket | None = None
    turn: asyncio.Future[StopReason] | None = None
    #: The worktree the session works in (asked for in ``_meta``), not the user's tree;
    #: a new one is set up (``worktree.setup``) at the first prompt.
    worktree: WorktreeRun | None = None
    #: The model the client chose for the session's runs (``session/set_config_option``);
    #: None: the config's. ``models`` is what it was offered.
    model: str | None = None
    models: ModelCatalog | None = None
    #: The agent of the session's runs: its mode (``session/set_mode``), the agents of
    #: ``agent/agents`` (the built-ins, the agent files', the settings').
    agent: str = "build"


class AgentlsAcpAgent:
    """The agent's methods of ACP (``protocol.router`` calls them); ``overrides`` apply to
    every session's config (the command line's ``--model``, ``--api-base``),
    ``confirm_mode`` to every run."""

    def __init__(
        self,
        overrides: dict[str, Any] | None = None,
        config_file: Path | None = None,
        *,
        confirm_mode: ConfirmMode | None = None,
        client_terminals: bool = False,
    ) -> None:
        self.overrides = overrides or {}
        self.confirm_mode = confirm_mode
        self.client_terminals = client_terminals
        self.config_file = config_file
        self.client: Client | None = None
        self.capabilities = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}
        #: Updates sent after an answer (the commands offer); kept so they are not lost.
        self._background: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True, image=True),
            ),
            agent_info=Implementation(name="agentls", title="agentls", version=__version__),
        )

    # -- sessions ------------------------------------------------------------------
    def _open(
        self,
        engine: FolderEngine,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None,
        worktree: WorktreeRun | None,
    ) -> AcpSession:
        if worktree is not None:
            cwd = str(worktree.worktree.folder)
        # The folder's trust comes from the user's trust list (``agentls trust``).
        engine.settings = FolderSettings(cwd, config_file=self.config_file, flags=self.overrides)
        try:
            loaded = engine.settings.load()
        except AgentError as exc:
            raise _request_error(str(exc)) from exc
        config = loaded.config
        store = engine.sessions(config)
        session = AcpSession(
            session_id,
            config,
            store,
            mcp_servers=mcp_entries(mcp_servers),
            confirm_mode=self.confirm_mode,
            client_terminals=self.client_terminals,
            notices=engine.notices(),
            trusted=loaded.trusted,
            engine=engine,
            worktree=worktree,
        )
        old = self.sessions.get(session_id)
        if old is not None and old.engine is not None:
            self._in_background(old.engine.aclose())
        self.sessions[session_id] = session
        return session

    async def aclose(self) -> None:
        """The connection ended: stop what the sessions started (language servers, MCP)."""
        engines = [s.engine for s in self.sessions.values() if s.engine is not None]
        await asyncio.gather(*(e.aclose() for e in engines), return_exceptions=True)

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        engine = _session_engine()
        worktree = await self._worktree(engine, cwd, kwargs)
        session = self._open(engine, cwd, uuid.uuid4().hex[:12], mcp_servers, worktree)
        log.info("ACP session %s in %s", session.id, session.config.workspace.root)
        self._offer_commands(session)
        return NewSessionResponse(
            session_id=session.id, config_options=await _options(session), modes=_modes(session)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        engine = _session_engine()
        worktree = await self._worktree(engine, cwd, kwargs)
        session = self._open(engine, cwd, session_id, mcp_servers, worktree)
        try:
            exists = session.store.exists(session_id)
        except AgentError as exc:
            raise _request_error(str(exc)) from exc
        if not exists:
            raise _request_error(f"no session {session_id} in {session.config.workspace.root}")
        entries = await asyncio.to_thread(lambda: session.store.open(session_id).entries)
        sender = UpdateSender(self._client(), session_id, str(session.config.workspace.root))
        for update in replay(entries):
            sender.send(update)
        await sender.close()  # every update is out before the answer
        self._offer_commands(session)
        return LoadSessionResponse(config_options=await _options(session), modes=_modes(session))

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """The session's model (the one option offered): each later run uses it."""
        from agentls.acp_agent.models import MODEL_OPTION, model_option

        session = self.sessions.get(session_id)
        if session is None:
            raise _request_error(f"unknown session {session_id}: start it with session/new")
        if config_id != MODEL_OPTION or not isinstance(value, str):
            raise _request_error(f"no option {config_id!r}: the one option is {MODEL_OPTION!r}")
        catalog = session.models or await _catalog(session)
        if value not in {m.id for m in catalog.models}:
            raise _request_error(f"{value!r} is not one of the models offered")
        session.model = value
        return SetSessionConfigOptionResponse(config_options=[model_option(catalog, value)])

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        """The agent of the session's next runs (one of the modes offered)."""
        session = self.sessions.get(session_id)
        if session is None or session.engine is None:
            raise _request_error(f"unknown session {session_id}: start it with session/new")
        agents = session.engine.agents(session.config)
        if not agents.exists(mode_id):
            known = ", ".join(agents.names())
            raise _request_error(f"unknown mode (agent) {mode_id!r}; the modes are: {known}")
        session.agent = mode_id
        return SetSessionModeResponse()

    @staticmethod
    async def _worktree(engine: FolderEngine, cwd: str, meta: dict[str, Any]) -> WorktreeRun | None:
        """The worktree ``_meta: {"agentls": {"worktree": {"name"?}}}`` asks the session to
        work in (made from the user's current state when new), from the session's engine,
        so it follows the medium's worktree policy."""
        from agentls.agent.folder.worktree_runs import WorktreeError

        ours = meta.get("agentls")
        if not isinstance(ours, dict) or "worktree" not in ours:
            return None
        option = ours["worktree"] or {}
        name = option.get("name") if isinstance(option, dict) else None
        if name is not None and not isinstance(name, str):
            raise _request_error("_meta.agentls.worktree.name must be a string")
        try:
            return await engine.open_worktree(Path(cwd), name or None)
        except WorktreeError as exc:
            raise _request_error(str(exc)) from exc

    # -- prompts -------------------------------------------------------------------
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        from agentls.acp_agent.turn import run_turn

        session = self.sessions.get(session_id)
        if session is None:
            raise _request_error(f"unknown session {session_id}: start it with session/new")
        text = prompt_text(prompt)
        attachments = prompt_attachments(prompt)
        engine = session.engine
        assert engine is not None, "a session has its folder engine from session/new"
        # Waits for the turn in flight to end when this prompt cannot join it; another
        # prompt may have started a new one meanwhile, which this one then joins.
        while session.turn is not None and not session.turn.done():
            joined = await self._join_running_turn(engine, session, text)
            if joined is not None:
                return PromptResponse(stop_reason=joined)
        ticket = session.ticket = engine.runs.begin(None, session.id, session.agent)
        turn = session.turn = asyncio.get_running_loop().create_future()
        # A turn that raises still ends the prompts that joined it.
        stop: StopReason = "cancelled"
        try:
            stop = await run_turn(self._client(), self.capabilities, session, text, attachments)
        finally:
            engine.runs.end(ticket.run_id)
            session.ticket = None
            turn.set_result(stop)
        return PromptResponse(stop_reason=stop)

    @staticmethod
    async def _join_running_turn(
        engine: FolderEngine, session: AcpSession, text: str
    ) -> StopReason | None:
        """A prompt sent while a turn runs joins it: the model reads it before its next
        call, and this prompt ends with that turn. None: the turn ended, or is being
        cancelled, first (this prompt then runs a turn of its own)."""
        turn = session.turn
        assert turn is not None
        try:
            if session.ticket is None:
                raise RunMessageError("the turn is ending")
            engine.runs.message(session.ticket.run_id, text)
        except RunMessageError:
            await asyncio.shield(turn)
            return None
        return await asyncio.shield(turn)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.engine is not None and session.ticket is not None:
            session.engine.runs.cancel(session.ticket.run_id, "the user cancelled the turn")

    def _offer_commands(self, session: AcpSession) -> None:
        from agentls.acp_agent.commands import send_available_commands
        from agentls.agent.folder.media import ACP
        from agentls.compose import folder_engine

        root = Path(session.config.workspace.root)
        engine = session.engine or folder_engine(ACP)
        self._in_background(send_available_commands(self._client(), session.id, engine, root))

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _client(self) -> Client:
        if self.client is None:
            raise RuntimeError("no client connection")
        return self.client

    # Methods of the protocol agentls does not offer answer "method not found".
    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as the model reads it: text, then each attached resource's text."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock) and not block.uri.startswith("file://"):
            parts.append(f"(Attached: {block.uri})")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                parts.append(f"Attached {resource.uri}:\n```\n{resource.text}\n```")
            else:
                parts.append(f"(Attached binary resource {resource.uri}, not shown)")
    return "\n\n".join(parts)


def prompt_attachments(blocks: list[Any]) -> list[Attachment]:
    """The prompt's file links and images as attachments, read (and refused when bad)
    like those of every front end; embedded resources are already text in the prompt."""
    from urllib.parse import unquote, urlparse

    attachments: list[Attachment] = []
    for block in blocks:
        if isinstance(block, ResourceContentBlock) and block.uri.startswith("file://"):
            path = unquote(urlparse(block.uri).path)
            attachments.append(Attachment(kind="file", path=path))
        elif isinstance(block, ImageContentBlock):
            name = block.uri or f"image {len(attachments) + 1}"
            attachments.append(
                Attachment(kind="image", path=name, data=block.data, mime_type=block.mime_type)
            )
    return attachments


def mcp_entries(servers: list[Any] | None) -> list[dict[str, Any]]:
    """The client's MCP servers as ``mcp.servers`` entries (stdio, http or sse)."""
    entries: list[dict[str, Any]] = []
    for server in servers or []:
        data = server.model_dump(by_alias=False)
        entry: dict[str, Any] = {"name": data["name"]}
        if data.get("command"):
            entry.update(
                type="stdio",
                command=data["command"],
                args=list(data.get("args") or []),
                env={item["name"]: item["value"] for item in data.get("env") or []},
            )
        elif data.get("url"):
            entry.update(
                type=data.get("type") or "http",
                url=data["url"],
                headers={item["name"]: item["value"] for item in data.get("headers") or []},
            )
        else:
            log.warning("MCP server %s from the client has neither command nor url", data["name"])
            continue
        entries.append(entry)
    return entries


async def _catalog(session: AcpSession) -> ModelCatalog:
    from agentls.acp_agent.models import model_catalog

    session.models = await model_catalog(session.config)
    return session.models


async def _options(session: AcpSession) -> list[Any]:
    """The session's config options: its model, with what can be chosen."""
    from agentls.acp_agent.models import model_option

    return [model_option(await _catalog(session), session.model)]


def _modes(session: AcpSession) -> SessionModeState:
    """The agents a run of the session can use, as ACP's modes: each says where it is
    defined when it is not built in (its agent file, the config)."""
    assert session.engine is not None, "a session has its folder engine from session/new"
    modes = [
        SessionMode(
            id=info.name,
            name=info.name,
            description=info.description
            + ("" if info.source == "built-in" else f" ({info.source})"),
        )
        for info in session.engine.agents(session.config).list()
    ]
    return SessionModeState(current_mode_id=session.agent, available_modes=modes)


def _session_engine() -> FolderEngine:
    """A new session's folder engine (it starts nothing until a run needs it)."""
    from agentls.agent.folder.media import ACP
    from agentls.compose import folder_engine

    return folder_engine(ACP)


def _request_error(message: str) -> Exception:
    return RequestError.invalid_params({"message": message})


__all__ = ["AcpSession", "AgentlsAcpAgent", "helpers", "mcp_entries", "prompt_text"]
