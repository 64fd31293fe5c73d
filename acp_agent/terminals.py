"""Commands run in the editor's own terminal (``terminal/*``), when the editor offers
terminals and ``agentls acp --client-terminals`` asks for them.

The confirmation rules and allow-lists are the same as for a local command: they are
decided before the command gets here. What differs is where it runs: in the editor,
where the user watches it, and without agentls's sandbox (the editor's terminal is the
user's own environment). The time limit is kept: past it the terminal is killed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

from agentls.acp_agent.protocol.client import Client
from agentls.agent.exec.process import DEFAULT_MAX_OUTPUT, ProcessResult


class EditorTerminals:
    """A ``ProcessRunner`` over the client's terminals for one session."""

    def __init__(self, client: Client, session_id: str, max_output: int = DEFAULT_MAX_OUTPUT):
        self.client = client
        self.session_id = session_id
        self.max_output = max_output

    async def __call__(self, argv: Sequence[str], *, cwd: Path, time_limit: float) -> ProcessResult:
        started = time.monotonic()
        try:
            created = await self.client.create_terminal(
                session_id=self.session_id,
                command=argv[0],
                args=list(argv[1:]),
                cwd=str(cwd),
                output_byte_limit=self.max_output,
            )
        except Exception as exc:  # reported to the model as "could not start"
            raise OSError(f"the editor could not open a terminal ({exc})") from exc
        terminal = created.terminal_id
        exit_code: int | None = None
        try:
            timed_out = False
            try:
                async with asyncio.timeout(time_limit):
                    exited = await self.client.wait_for_terminal_exit(
                        session_id=self.session_id, terminal_id=terminal
                    )
                exit_code = exited.exit_code
            except TimeoutError:
                timed_out = True
                await self.client.kill_terminal(session_id=self.session_id, terminal_id=terminal)
            output = await self.client.terminal_output(
                session_id=self.session_id, terminal_id=terminal
            )
        finally:
            await self.client.release_terminal(session_id=self.session_id, terminal_id=terminal)
        text = output.output
        if output.truncated:
            text = "[the editor kept only the end of the output]\n" + text
        return ProcessResult(
            exit_code=exit_code,
            output=text,
            timed_out=timed_out,
            duration=time.monotonic() - started,
            output_bytes=len(text.encode()),
            truncated_bytes=0,
        )
