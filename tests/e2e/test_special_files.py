"""A FIFO in the workspace (any sandboxed command can ``mkfifo``) is refused with a
message wherever agentls reads a file's content, never waited on: read_file through the
CLI and the LSP server, ``--attach``, an editor's attachment (an @ mention), and an
instruction file. A regression blocks in ``open()``: the timeouts make it a failure."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import LspFactory, plain, run_cli
from test_acp import EditorClient, acp_agent, prompt, start

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(150)


@pytest.fixture
def fifo() -> Iterator[Callable[[Path], None]]:
    """Makes FIFOs; afterwards opens each for writing once, which releases a reader stuck
    in ``open()`` (a regression), so the server can still be shut down after the timeout."""
    made: list[Path] = []

    def make(path: Path) -> None:
        os.mkfifo(path)
        made.append(path)

    yield make
    for path in made:
        with contextlib.suppress(OSError):  # ENXIO: nobody is reading, as it should be
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def tool_results(scripted: ScriptedModelServer, model: str) -> list[str]:
    last = scripted.requests_for(model)[-1].messages
    return [str(m.get("content")) for m in last if m.get("role") == "tool"]


def test_the_cli_refuses_a_fifo_to_read_file_and_to_attach(
    tmp_path: Path, scripted: ScriptedModelServer, fifo: Callable[[Path], None]
) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    fifo(tmp_path / "pipe.txt")
    fifo(tmp_path / "AGENTS.md")  # an instruction file every run reads
    scripted.add("fifo-cli", tool_call("read_file", {"path": "pipe.txt"}), text("done"))
    model = ["--model", "openai/fifo-cli", "--api-base", scripted.api_base]
    done = run_cli(tmp_path, "run", "read the pipe", "--mode", "yolo", *model, timeout=90)
    assert done.returncode == 0, done.stderr
    [result] = tool_results(scripted, "fifo-cli")
    assert "pipe.txt is a FIFO (named pipe), not a regular file" in result

    attached = run_cli(tmp_path, "run", "explain", "--attach", "pipe.txt", *model, timeout=90)
    assert attached.returncode != 0
    assert "attached file pipe.txt: pipe.txt is a FIFO" in attached.stdout + attached.stderr
    assert "Traceback" not in attached.stderr


async def test_the_server_refuses_a_fifo_to_read_file_and_as_an_attachment(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, fifo: Callable[[Path], None]
) -> None:
    fifo(workspace / "pipe.txt")
    scripted.add("alice", tool_call("read_file", {"path": "pipe.txt"}), text("done"))
    client = await lsp()
    result = plain(await client.run(prompt="read the pipe", runId="f1", confirmMode="yolo"))
    assert result["status"] == "success", result
    [read] = tool_results(scripted, "alice")
    assert "pipe.txt is a FIFO (named pipe), not a regular file" in read

    mentioned = plain(
        await client.run(
            prompt="explain", runId="f2", attachments=[{"kind": "file", "path": "pipe.txt"}]
        )
    )
    assert mentioned["status"] == "failed"
    assert "attached file pipe.txt: pipe.txt is a FIFO" in mentioned["output"]


class WaryEditor(EditorClient):
    """Records what it is asked to read, and refuses (never opens) what is no regular
    file, so the test ends either way."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        self.asked.append(path)
        if not await asyncio.to_thread(Path(path).is_file):
            raise OSError(f"{path} is not a regular file")
        return await super().read_text_file(path, session_id, **kwargs)


async def test_an_acp_editor_is_not_asked_to_read_a_fifo(
    tmp_path: Path, scripted: ScriptedModelServer, fifo: Callable[[Path], None]
) -> None:
    fifo(tmp_path / "pipe.txt")
    scripted.add("fifo-acp", tool_call("read_file", {"path": "pipe.txt"}), text("done"))
    client = WaryEditor()
    async with acp_agent(tmp_path, scripted, "fifo-acp", client) as conn:
        session_id = await start(conn, tmp_path, fs=True)
        assert await prompt(conn, session_id, "read the pipe") == "end_turn"
    assert client.asked == []
    [read] = tool_results(scripted, "fifo-acp")
    assert "pipe.txt is a FIFO (named pipe), not a regular file" in read
