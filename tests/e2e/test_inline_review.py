"""Inline review over LSP: a client that declares ``experimental.agentls.inlineReview``
gets edits that need confirmation as usual, answers them at once, and reports the
user's per-hunk decisions later with ``agent/reviewDecision``. The scripted model must
be told what the user kept, undid and changed, at its next step, or in the session's
next run when the run has ended; and a later edit made stale by the user is refused."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import VSCODE, AgentClient, LspFactory, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, text, tool_call

OLD = "".join(f"line {i}\n" for i in range(1, 11))
NEW = OLD.replace("line 2\n", "line two\n").replace("line 8\n", "line eight\n")

INLINE = types.ClientCapabilities(
    workspace=VSCODE.workspace,
    window=VSCODE.window,
    experimental={"agentls": {"askUser": True, "inlineReview": True}},
)


def _user_messages(scripted: ScriptedModelServer, index: int) -> list[str]:
    request = scripted.requests_for("alice")[index]
    return [str(m["content"]) for m in request.messages if m.get("role") == "user"]


def _tool_results(scripted: ScriptedModelServer) -> list[str]:
    last = scripted.requests_for("alice")[-1].messages
    return [str(m["content"]) for m in last if m.get("role") == "tool"]


def _hunk_ids(client: AgentClient, edit: int = 0) -> list[str]:
    annotations = client.edits[edit].edit.change_annotations or {}
    return sorted(annotations, key=lambda ident: int(ident.rsplit(":", 1)[1]))


def _decide(client: AgentClient, uri: str, hunks: list[dict[str, Any]]) -> None:
    version = client.docs[uri][0]
    client.protocol.notify("agent/reviewDecision", {"uri": uri, "version": version, "hunks": hunks})


async def _settled(client: AgentClient, workspace: Path, session: str, decisions: int) -> None:
    """The server has handled the decisions: they are in the session file (the note for
    the model is queued before they are recorded)."""

    def recorded() -> int:
        path = workspace / ".agentls" / "sessions" / f"{session}.jsonl"
        if not path.exists():
            return 0
        return sum(e["type"] == "approval_decision" for e in _session_entries(workspace, session))

    async with asyncio.timeout(30):
        while recorded() < decisions:
            await client.request("agent/ping", {})
            await asyncio.sleep(0.05)


def _session_entries(workspace: Path, session: str) -> list[dict[str, Any]]:
    path = workspace / ".agentls" / "sessions" / f"{session}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def module(workspace: Path) -> Path:
    (workspace / "src" / "m.py").write_text(OLD)
    return workspace / "src" / "m.py"


async def test_decisions_reach_the_model_at_its_next_step_and_stale_edits_are_refused(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, module: Path
) -> None:
    decided = threading.Event()

    def after_decisions(_body: dict[str, Any]) -> Turn:
        assert decided.wait(30), "the test never sent the decisions"
        return tool_call("write_file", {"path": "src/m.py", "content": NEW + "line 11\n"})

    scripted.add(
        "alice",
        tool_call("read_file", {"path": "src/m.py"}),
        tool_call("write_file", {"path": "src/m.py", "content": NEW}),
        after_decisions,
        text("done"),
    )
    client = await lsp(caps=INLINE)
    uri = client.open("src/m.py", OLD)
    run = client.run(prompt="rename two lines", runId="r1", sessionId="s1")
    await client.wait_for(lambda: len(client.edits) == 1, what="the proposal")
    first, second = _hunk_ids(client)
    # The edit was answered at once: the buffer holds the proposal, nothing waits.
    await client.wait_for(lambda: len(scripted.requests_for("alice")) >= 3, what="next step")
    assert "pending the user's review" in _tool_results(scripted)[-1]
    # The user keeps hunk 1 and undoes hunk 2 (the buffer has "line 8" again).
    client.change(uri, NEW.replace("line eight\n", "line 8\n"))
    _decide(client, uri, [{"id": first, "outcome": "kept"}, {"id": second, "outcome": "undone"}])
    await _settled(client, workspace, "s1", 2)
    decided.set()
    result = plain(await run)
    assert result["status"] == "success", result

    note = _user_messages(scripted, 3)[-1]
    assert note.startswith("The user reviewed your edits in the editor:"), note
    assert "src/m.py, hunk 1 (+1 −1 at line 2): kept." in note
    assert "src/m.py, hunk 2 (+1 −1 at line 8): undone" in note
    # The write based on the agent's own text, made after the user's undo, is refused.
    assert "Not written: src/m.py changed since you read it" in _tool_results(scripted)[-1]
    assert client.docs[uri][1] == NEW.replace("line eight\n", "line 8\n")
    # Both decisions are in the session, and the note is part of its conversation.
    entries = _session_entries(workspace, "s1")
    decisions = [e for e in entries if e["type"] == "approval_decision"]
    assert [(d["decision"], d["args"]["hunk"]) for d in decisions] == [("approve", 1), ("deny", 2)]
    assert all(d["tool"] == "inline_review" and d["run_id"] == "r1" for d in decisions)
    assert any(e["type"] == "user_message" and e["content"] == note for e in entries)


async def test_decisions_after_the_run_are_told_to_the_sessions_next_run(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, module: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "src/m.py", "content": NEW}),
        text("done"),
        text("ok"),
    )
    client = await lsp(caps=INLINE)
    uri = client.open("src/m.py", OLD)
    first = plain(await client.run(prompt="edit", runId="r1", sessionId="s2"))
    assert first["status"] == "success", first
    first_id, second_id = _hunk_ids(client)
    changed = NEW.replace("line eight\n", "line 8 (mine)\n")
    client.change(uri, changed)
    _decide(
        client,
        uri,
        [
            {"id": first_id, "outcome": "kept"},
            {"id": second_id, "outcome": "changedByUser", "text": "line 8 (mine)\n", "line": 7},
        ],
    )
    await _settled(client, workspace, "s2", 2)
    second = plain(await client.run(prompt="go on", runId="r2", sessionId="s2"))
    assert second["status"] == "success", second

    messages = _user_messages(scripted, 2)
    # What happened since the model last heard comes before the new prompt.
    assert messages[-1] == "go on"
    note = messages[-2]
    assert note.count("The user reviewed your edits in the editor:") == 1
    assert "hunk 2 (+1 −1 at line 8): changed by the user; the region now reads (from line 8)" in (
        note
    )
    assert "```\nline 8 (mine)\n\n```" in note
    entries = _session_entries(workspace, "s2")
    decisions = [e for e in entries if e["type"] == "approval_decision"]
    assert [d["decision"] for d in decisions] == ["approve", "modify"]
    assert decisions[1]["args"]["text"] == "line 8 (mine)\n"
    # Kept apart from the user's words, before the prompt, for later runs of the session.
    types_r2 = [e["type"] for e in entries if e["run_id"] == "r2"]
    assert types_r2[:3] == ["run_start", "note", "user_message"], types_r2
    assert next(e for e in entries if e["type"] == "note")["content"] == note


async def test_without_the_capability_nothing_is_pending(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, module: Path
) -> None:
    scripted.add("alice", tool_call("write_file", {"path": "src/m.py", "content": NEW}), text("ok"))
    client = await lsp()
    client.open("src/m.py", OLD)
    result = plain(await client.run(prompt="edit", runId="r1", sessionId="s3"))
    assert result["status"] == "success", result
    assert "pending" not in _tool_results(scripted)[-1]
    assert _hunk_ids(client)[0].startswith("agentls-1:")


async def test_a_bad_decision_is_dropped_and_the_server_goes_on(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    client = await lsp(caps=INLINE)
    client.protocol.notify("agent/reviewDecision", {"uri": "file:///x", "hunks": "nope"})
    client.protocol.notify(
        "agent/reviewDecision",
        {"uri": "file:///x", "version": 1, "hunks": [{"id": "unknown", "outcome": "kept"}]},
    )
    assert plain(await client.request("agent/ping", {}))["pong"] is True
