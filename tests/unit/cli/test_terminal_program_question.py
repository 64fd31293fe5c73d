"""The terminal's question about a program the workspace declares (its hooks, an MCP
server): the whole definition on stderr, then y/N; without a terminal, no answer."""

from __future__ import annotations

import io
from pathlib import Path

from program_answers import a_program

from agentls.cli.terminal import TerminalApprover, TerminalAsker


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_the_terminal_asks_y_n_and_without_a_terminal_gives_no_answer(
    tmp_path: Path,
) -> None:
    shown = io.StringIO()
    approver = TerminalApprover(TerminalAsker(stdin=Tty("y\nn\n"), stderr=shown))
    assert await approver.approve_program(a_program(tmp_path)) is True
    assert await approver.approve_program(a_program(tmp_path)) is False
    assert "Allow the hooks of .agentls/hooks.json to run? [y/N]" in shown.getvalue()
    assert "  PreToolUse: ./guard.sh" in shown.getvalue()
    nobody = TerminalApprover(TerminalAsker(stdin=io.StringIO("y\n"), stderr=io.StringIO()))
    assert await nobody.approve_program(a_program(tmp_path)) is None
