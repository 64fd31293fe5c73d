"""One ``session/prompt``: one run of the session, its events sent as updates."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from acp import helpers
from acp.interfaces import Client
from acp.schema import ClientCapabilities, StopReason

from agentls.acp_agent.agent import AcpSession
from agentls.acp_agent.approver import AcpApprover
from agentls.acp_agent.commands import CLEAR_ANSWER
from agentls.acp_agent.files import AcpFileAccess
from agentls.acp_agent.terminals import EditorTerminals
from agentls.acp_agent.updates import UpdateSender
from agentls.agent.commands import parse_invocation
from agentls.agent.config import AppConfig, MCPServerConfig
from agentls.agent.contract import Attachment
from agentls.agent.run import FrontEnd, RunOutcome, RunRequest, resolve_agent, run_with_own_tools

if TYPE_CHECKING:
    from agentls.agent.worktrees import Worktree

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


async def run_turn(
    client: Client,
    capabilities: ClientCapabilities,
    session: AcpSession,
    prompt: str,
    attachments: Sequence[Attachment] = (),
) -> StopReason:
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
        session_id=session.id,
        confirm_mode=session.confirm_mode,
        attachments=list(attachments),
    )
    if parse_invocation(prompt) == ("clear", ""):
        updates.send(helpers.update_agent_message_text(CLEAR_ANSWER))
        await updates.close()
        return "end_turn"

    def warn(message: str) -> None:
        updates.send(helpers.update_agent_thought_text(f"warning: {message}"))

    # Shown as the agent's words, not its thoughts: the user must read them.
    for notice in session.notices:
        updates.send(helpers.update_agent_message_text(f"agentls: {notice}\n\n"))
    if session.needs_setup and not await set_up_worktree(session, config, updates):
        await updates.close()
        return "end_turn"

    try:
        front_end = FrontEnd(
            files,
            AcpApprover(client, session.id, session.rules, updates),
            observer=updates.observer,
            cancel=session.cancel,
            sessions=session.store,
            process_runner=terminals_for(client, capabilities, session),
            trusted=session.trusted,
            problems=session.problems,
            messages=session.messages,
            approvals=session.approvals,
        )
        outcome = await run_with_own_tools(request, front_end, config=config, warn=warn)
        _tell_the_end(updates, outcome)
        if session.worktree is not None:
            await _commit_worktree(session.worktree, prompt, updates)
    finally:
        await updates.close()  # every update is out before the answer
    return stop_reason(config, request, outcome, session)


async def set_up_worktree(session: AcpSession, config: AppConfig, updates: UpdateSender) -> bool:
    """Run ``worktree.setup`` in the session's new worktree (once), its output as the
    agent's thoughts; whether the turn may go on (else the failure is the answer)."""
    from agentls.agent.secrets import redact_secrets
    from agentls.agent.worktrees import run_setup

    worktree, command = session.worktree, config.worktree.setup
    session.needs_setup = False
    if worktree is None or not command:
        return True

    def show(line: str) -> None:
        updates.send(helpers.update_agent_thought_text(line + "\n"))

    show(f"setting up worktree {worktree.name}: $ {redact_secrets(command)}")
    done = await run_setup(worktree, config, show)
    if not done.ok:
        failure = redact_secrets(done.failure(worktree))
        updates.send(helpers.update_agent_message_text(f"agentls: {failure}"))
    return done.ok


async def _commit_worktree(worktree: Worktree, prompt: str, updates: UpdateSender) -> None:
    """The turn's changes committed on the worktree's branch, and the user told how to
    bring them into their tree."""
    from agentls.agent.worktrees import WorktreeError, commit_run, state

    title = prompt.strip().splitlines()[0][:60] if prompt.strip() else "run"
    try:
        await asyncio.to_thread(commit_run, worktree, f"agentls: {title}")
        now = await asyncio.to_thread(state, worktree)
    except WorktreeError as exc:
        updates.send(helpers.update_agent_message_text(f"\n\nagentls: {exc}"))
        return
    updates.send(
        helpers.update_agent_message_text(
            f"\n\nagentls: worktree {worktree.name} (branch {worktree.branch}): "
            f"{now.files} file(s) changed, +{now.added} -{now.removed}. Apply it to your "
            f"tree with `agentls apply {worktree.name}`, or `agentls discard "
            f"{worktree.name}`."
        )
    )


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
    if session.cancel is not None and session.cancel.cancelled:
        return "cancelled"
    state = outcome.state
    if state.status == "partial" and state.current_step >= resolve_agent(config, request).max_steps:
        return "max_turn_requests"
    return "end_turn"
