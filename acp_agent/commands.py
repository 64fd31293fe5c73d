"""The session's ``/commands`` offered to an ACP editor (``available_commands_update``),
which shows them in its prompt box; a prompt starting with ``/name`` then runs it."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agentls.acp_agent.protocol import helpers
from agentls.acp_agent.protocol.client import Client
from agentls.acp_agent.protocol.schema import AvailableCommand, UnstructuredCommandInput

if TYPE_CHECKING:
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.prompts.slash_commands import SlashCommand

log = logging.getLogger(__name__)

#: Built-ins an ACP editor does better itself: a new conversation is its own "new thread".
NOT_OFFERED = frozenset({"clear"})

CLEAR_ANSWER = (
    "agentls: /clear is not needed here: start a new session (a new thread) in your "
    "editor for a fresh conversation."
)


def available(engine: FolderEngine, root: Path) -> tuple[list[AvailableCommand], list[str]]:
    """The commands to offer, and the problems of the prompt files that could not load."""
    found = engine.slash_commands(root)
    offered = [_offer(c) for c in found.listed() if c.name not in NOT_OFFERED]
    return offered, list(found.problems)


def _offer(command: SlashCommand) -> AvailableCommand:
    hint = command.hint
    return AvailableCommand(
        name=command.name,
        description=command.description or f"/{command.name}",
        input=UnstructuredCommandInput(hint=hint) if hint else None,
    )


async def send_available_commands(
    client: Client, session_id: str, engine: FolderEngine, root: Path
) -> None:
    """Tell the editor the session's commands, once the session's answer is out (the
    editor learns the session id from it)."""
    await asyncio.sleep(0)
    try:
        offered, problems = await asyncio.to_thread(available, engine, root)
        for problem in problems:
            log.warning("session %s: %s", session_id, problem)
        await client.session_update(
            session_id=session_id, update=helpers.update_available_commands(offered)
        )
    except Exception as exc:  # the editor may be gone; commands still run when typed
        log.warning("session %s: cannot send the available commands: %s", session_id, exc)
