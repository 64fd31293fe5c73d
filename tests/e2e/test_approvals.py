"""confirm-all asks through window/showMessageRequest; yolo never asks; the answer
reaches the model as the tool result."""

from __future__ import annotations

from pathlib import Path

from agentls_e2e import APP_PY, NEOVIM, LspFactory, plain

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call


def _tool_message(scripted: ScriptedModelServer, index: int) -> str:
    request = scripted.requests_for("alice")[index]
    return str([m for m in request.messages if m.get("role") == "tool"][-1]["content"])


async def test_confirm_all_deny(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("ok, not reading"))
    client = await lsp(caps=NEOVIM)
    client.approvals = ["Deny"]
    result = plain(await client.run(prompt="read", runId="a1", confirmMode="confirm-all"))
    assert result["status"] == "success"
    [asked] = client.approval_requests
    assert "read_file" in asked.message
    titles = [a.title for a in asked.actions or []]
    assert titles == ["Allow once", "Allow for this run", "Deny", "Stop the run"]
    assert "denied" in _tool_message(scripted, 1)
    assert "awaiting_human" in client.states("a1")


async def test_confirm_all_dismissed_is_deny(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("fine"))
    client = await lsp()
    client.approvals = [None]
    await client.run(prompt="read", runId="a2", confirmMode="confirm-all")
    assert "denied" in _tool_message(scripted, 1)


async def test_allow_for_this_run_asks_once(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add(
        "alice",
        tool_call("read_file", {"path": "src/app.py"}),
        tool_call("read_file", {"path": "README.md"}),
        text("read both"),
    )
    client = await lsp()
    client.approvals = ["Allow for this run"]
    result = plain(await client.run(prompt="read", runId="a3", confirmMode="confirm-all"))
    assert result["status"] == "success"
    assert len(client.approval_requests) == 1
    assert "hello" in _tool_message(scripted, 1)  # the file's text reached the model
    assert "# demo" in _tool_message(scripted, 2)


async def test_yolo_never_asks(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("done"))
    client = await lsp()
    result = plain(await client.run(prompt="read", runId="a4", confirmMode="yolo"))
    assert result["status"] == "success"
    assert client.approval_requests == []
    assert APP_PY.splitlines()[0] in _tool_message(scripted, 1)


async def test_ask_user_vscode(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", tool_call("ask_user", {"question": "Which colour?"}), text("blue it is"))
    client = await lsp()
    client.answers = ["blue"]
    result = plain(await client.run(prompt="paint", runId="q1"))
    assert result["status"] == "success"
    assert client.questions == [{"runId": "q1", "question": "Which colour?"}]
    assert "blue" in _tool_message(scripted, 1)
    assert "awaiting_human" in client.states("q1")


async def test_ask_user_unsupported_is_a_tool_error(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", tool_call("ask_user", {"question": "Which colour?"}), text("assumed"))
    client = await lsp(caps=NEOVIM)
    result = plain(await client.run(prompt="paint", runId="q2"))
    assert result["status"] == "success"
    assert client.questions == []
    assert result["tools_used"][0] == {
        "name": "ask_user",
        "args": {"question": "Which colour?"},
        "success": False,
    }
    assert "Do not ask again" in _tool_message(scripted, 1)


async def test_edit_runs_the_users_command_and_tells_the_model(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    explain = text("Writes a line to a file.")  # a short model call explains first
    scripted.add(
        "alice",
        tool_call("execute_command", {"command": "echo wrong > out.txt"}),
        explain,
        text("done"),
    )
    client = await lsp()  # VS Code-like: declares experimental.agentls.askUser
    client.approvals = ["Edit…"]
    client.answers = ["echo right > out.txt"]
    result = plain(await client.run(prompt="write", runId="e1", confirmMode="confirm-sensitive"))
    assert result["status"] == "success"
    [asked] = client.approval_requests
    assert "Edit…" in [a.title for a in asked.actions or []]
    assert "echo wrong > out.txt" in asked.message  # the exact command is shown
    assert (workspace / "out.txt").read_text().strip() == "right"
    told = _tool_message(scripted, 2)
    assert "modified" in told and "echo right" in told


async def test_stop_the_run_aborts(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("never"))
    client = await lsp(caps=NEOVIM)
    client.approvals = ["Stop the run"]
    result = plain(await client.run(prompt="read", runId="s1", confirmMode="confirm-all"))
    assert result["status"] == "partial" and "aborted" in result["output"].lower()
    assert client.states("s1")[-1] == "aborted"
    assert len(scripted.requests_for("alice")) == 1  # nothing ran after the stop
