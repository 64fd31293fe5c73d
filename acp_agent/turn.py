"""One ``session/prompt``: one run of the session, its events sent as updates."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentls.acp_agent.agent import AcpSession
from agentls.acp_agent.approver import AcpApprover
from agentls.acp_agent.commands import CLEAR_ANSWER
from agentls.acp_agent.files import AcpFileAccess
from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.protocol.client import Client
from agentls.acp_agent.protocol.schema import ClientCapabilities, StopReason
from agentls.acp_agent.terminals import EditorTerminals
from agentls.acp_agent.updates import UpdateSender
from agentls.agent.config.models import AppConfig, MCPServerConfig
from agentls.agent.contract import Attachment
from agentls.agent.prompts.slash_commands import parse_invocation
from agentls.agent.run import FrontEnd, RunOutcome, RunRequest, resolve_agent

if TYPE_CHECKING:
    from agentls.agent.folder.worktree_runs import WorktreeRun
    from agentls.agent.policy.approval import Approver

log = logging.getLogger(__name__)


def with_client_servers(session: AcpSession) -> AppConfig:
    """The session's config plus the client's MCP servers (``.agentls.yaml`` wins a clash)."""
    config = session.config
    taken = {server.name for server in config.mcp.servers}
    extra = [client_server(entry) for entry in session.mcp_servers if entry["name"] not in taken]
    if not extra:
        return config
    mcp = config.mcp.model_copy(update={"servers": [*config.mcp.servers, *extra]})
    return config.model_copy(update={"mcp": mcp})


def client_server(entry: dict[str, object]) -> MCPServerConfig:
    """A server the editor hands over with the session: the user's own, like its settings."""
    server = MCPServerConfig.model_validate(entry)
    server.set_source("editor", "the editor's session")
    return server


def _follow_trust(session: AcpSession) -> str | None:
    """Before each turn: the folder trusted (or no longer) since the session started
    (``agentls trust`` in a terminal) applies to this turn; the error of a config that
    trust made invalid, else None."""
    engine = session.engine
    if engine is None:
        return None
    update = engine.settings.refresh_trust()
    if update.changed:
        session.config = update.config
        session.trusted = engine.settings.trusted
        session.notices = engine.notices()
    return update.error


async def run_turn(
    client: Client,
    capabilities: ClientCapabilities,
    session: AcpSession,
    prompt: str,
    attachments: Sequence[Attachment] = (),
) -> StopReason:
    trust_error = _follow_trust(session)
    config = with_client_servers(session)
    root = config.workspace.root
    updates = UpdateSender(client, session.id, str(root))
    fs = capabilities.fs
    # A worktree's files are not the editor's: they are read and written on disk.
    through_editor = session.worktree is None
    files = AcpFileAccess(
        root,
        client,
        session.id,
        reads=through_editor and bool(fs and fs.read_text_file),
        writes=through_editor and bool(fs and fs.write_text_file),
        on_applied=updates.applied,
        max_file_size=config.indexer.max_file_size,
    )
    request = RunRequest(
        prompt=prompt,
        # The run is known by its ticket's id (what cancels it) in its record too.
        run_id=None if session.ticket is None else session.ticket.run_id,
        session_id=session.id,
        confirm_mode=session.confirm_mode,
        attachments=list(attachments),
        model=session.model,
        agent=session.agent,
    )
    if parse_invocation(prompt) == ("clear", ""):
        updates.send(helpers.update_agent_message_text(CLEAR_ANSWER))
        await updates.close()
        return "end_turn"

    def warn(message: str) -> None:
        updates.send(helpers.update_agent_thought_text(f"warning: {message}"))

    if trust_error:
        warn(f"invalid configuration, using the last valid one: {trust_error}")
    # Shown as the agent's words, not its thoughts: the user must read them.
    for notice in session.notices:
        updates.send(helpers.update_agent_message_text(f"agentls: {notice}\n\n"))
    engine, worktree = session.engine, session.worktree
    assert engine is not None, "a session has its folder engine from session/new"
    approver: Approver = AcpApprover(client, session.id, session.rules, updates)
    if worktree is not None:
        failed = await worktree.set_up(config, updates.observer)
        if failed:
            updates.send(helpers.update_agent_message_text(f"agentls: {failed}"))
            await updates.close()
            return "end_turn"
        approver = worktree.reviewed_at_apply(approver, files)

    try:
        front_end = FrontEnd(
            files,
            approver,
            observer=updates.observer,
            cancel=None if session.ticket is None else session.ticket.token,
            sessions=session.store,
            process_runner=terminals_for(client, capabilities, session),
            trusted=session.trusted,
            problems=engine.language_servers(config),
            navigator=engine.navigator(config),
            messages=None if session.ticket is None else session.ticket.messages,
        )
        outcome = await engine.run_with_own_tools(request, front_end, config=config, warn=warn)
        _tell_the_end(updates, outcome)
        if worktree is not None:
            await _commit_worktree(worktree, prompt, updates)
    finally:
        await updates.close()  # every update is out before the answer
    return stop_reason(config, request, outcome, session)


async def _commit_worktree(worktree: WorktreeRun, prompt: str, updates: UpdateSender) -> None:
    """The turn's changes committed on the worktree's branch, and the user told how to
    bring them into their tree."""
    from agentls.agent.folder.worktree_runs import WorktreeError

    try:
        summary = await worktree.finish(prompt)
    except WorktreeError as exc:
        updates.send(helpers.update_agent_message_text(f"\n\nagentls: {exc}"))
        return
    updates.send(helpers.update_agent_message_text(f"\n\nagentls: {summary.text()}"))


def terminals_for(
    client: Client, capabilities: ClientCapabilities, session: AcpSession
) -> EditorTerminals | None:
    """The editor's terminals when it offers them and the user asked for them."""
    # A worktree session's commands stay in the sandbox, in the worktree.
    if session.client_terminals and capabilities.terminal and session.worktree is None:
        return EditorTerminals(client, session.id)
    return None


def _tell_the_end(updates: UpdateSender, outcome: RunOutcome) -> None:
    """The final answer, when it was not streamed (a failure, a stop, no streaming)."""
    state = outcome.state
    if state.final_output and (state.status != "success" or not updates.streamed_text):
        updates.send(helpers.update_agent_message_text(state.final_output))


def stop_reason(
    config: AppConfig, request: RunRequest, outcome: RunOutcome, session: AcpSession
) -> StopReason:
    if session.ticket is not None and session.ticket.token.cancelled:
        return "cancelled"
    state = outcome.state
    if state.status == "partial" and state.current_step >= resolve_agent(config, request).max_steps:
        return "max_turn_requests"
    return "end_turn"
