"""confirm-all asks through window/showMessageRequest; yolo never asks; the answer
reaches the model as the tool result. Every decision, an edit's included, is an
``approval_decision`` entry of the session; a parallel batch asks per call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentls_e2e import APP_PY, NEOVIM, LspFactory, llm_options, plain

from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    call,
    text,
    tool_call,
    tool_calls,
)


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


def _decisions(workspace: Path, session_id: str) -> list[dict[str, Any]]:
    path = workspace / ".agentls" / "sessions" / f"{session_id}.jsonl"
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [e for e in entries if e["type"] == "approval_decision"]


async def test_accepted_and_rejected_edits_are_recorded_as_decisions(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("edit_file", {"path": "src/app.py", "old_str": "hello", "new_str": "hi"}),
        tool_call("edit_file", {"path": "src/app.py", "old_str": "def greet", "new_str": "def g"}),
        text("one kept, one rejected"),
    )
    client = await lsp()  # VS Code-like: the question travels as annotations in the edit
    client.edit_answers = [True, False]
    result = plain(await client.run(prompt="edit", runId="d1", confirmMode="confirm-sensitive"))
    assert result["status"] == "success", result
    assert len(client.edits) == 2
    decisions = _decisions(workspace, result["sessionId"])
    assert [(d["tool"], d["decision"]) for d in decisions] == [
        ("edit_file", "approve"),
        ("edit_file", "deny"),
    ]
    assert all(d["args"]["paths"] == ["src/app.py"] for d in decisions)
    assert decisions[0]["call_id"] != decisions[1]["call_id"]
    assert (workspace / "src" / "app.py").read_text() == APP_PY.replace("hello", "hi")


async def test_a_parallel_batch_asks_for_the_call_not_on_the_allow_list(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "alice",
        tool_calls(  # both on the allow-list: nobody is asked, so they run in parallel
            call("execute_command", {"command": "echo one"}, "c0"),
            call("execute_command", {"command": "echo two"}, "c00"),
        ),
        tool_calls(
            call("execute_command", {"command": "echo listed"}, "c1"),
            call("execute_command", {"command": "touch unlisted.txt"}, "c2"),
        ),
        text("Creates an empty file."),  # the model's explanation of the unlisted command
        text("both ran"),
    )
    agent = {"system_prompt": "test", "allowed_commands": ["echo *"], "sandbox": "off"}
    client = await lsp(
        caps=NEOVIM, init_options={**llm_options(scripted), "agents": {"build": agent}}
    )
    client.approvals = ["Allow once"]
    result = plain(await client.run(prompt="run", runId="p1", confirmMode="confirm-sensitive"))
    assert result["status"] == "success", result
    [asked] = client.approval_requests
    assert "touch unlisted.txt" in asked.message and "echo listed" not in asked.message
    assert [t["success"] for t in result["tools_used"]] == [True, True, True, True]
    phases = [(p["callId"], p["phase"]) for p in client.of("agent/step", "p1") if "callId" in p]
    assert phases[:2] == [("c0", "tool_start"), ("c00", "tool_start")]  # parallel
    # one to ask about: in order, and only that one asked
    assert phases[4:] == [
        ("c1", "tool_start"),
        ("c1", "tool_end"),
        ("c2", "tool_start"),
        ("c2", "tool_end"),
    ]
    assert (workspace / "unlisted.txt").exists()
    decisions = _decisions(workspace, result["sessionId"])
    assert [(d["call_id"], d["decision"]) for d in decisions] == [("c2", "approve")]
