"""The language server killed with SIGKILL mid-run, then the session resumed by a new server.

Side effects are counted in a file (``execute_command`` appends a line per run of the
command), so "never executed twice" is checked on disk, not on the agent's word.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agentls_e2e import LspFactory, kill, plain, start_killable

from agentls.agent.llm.scripted_server import ScriptedModelServer, call, text, tool_call, tool_calls
from agentls.agent.sessions.store import INTERRUPTED, SessionStore

COUNT = "echo ran >> counter.txt"


def session_lines(root: Path, session_id: str) -> list[dict[str, Any]]:
    path = root / ".agentls" / "sessions" / f"{session_id}.jsonl"
    raw = path.read_bytes()
    assert raw.endswith(b"\n"), "the session file ends with a torn line"
    return [json.loads(line) for line in raw.splitlines()]


async def wait_until(predicate: Any, what: Any, seconds: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {what()}"
        await asyncio.sleep(0.02)


async def test_sigkill_while_awaiting_approval_then_resume(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    explain = text("Appends a line to counter.txt.")  # explained before asking
    scripted.add(
        "crash",
        tool_call("execute_command", {"command": COUNT}, id="first"),
        explain,
        tool_call("execute_command", {"command": COUNT}, id="second"),
        explain,
    )
    client = await start_killable(workspace, scripted, "crash")
    client.approvals = ["Allow once"]  # the second question is never answered
    client.run(prompt="count twice", runId="r1", sessionId="s1", confirmMode="confirm-sensitive")
    await wait_until(
        lambda: len(client.approval_requests) == 2,
        lambda: f"the 2nd question: {client.events[-4:]} {scripted.requests_for('crash')}",
    )
    await wait_until(
        lambda: any(e.get("call_id") == "second" for e in session_lines(workspace, "s1")),
        lambda: "the second tool_call entry",
    )
    await kill(client)

    counter = workspace / "counter.txt"
    assert counter.read_text() == "ran\n"  # the first call ran once, the second never
    session = SessionStore(workspace / ".agentls" / "sessions").open("s1")
    assert not session.torn
    types_ = [e.type for e in session.entries]
    assert types_[-1] == "tool_call" and "run_finish" not in types_
    decisions = [e for e in session.entries if e.type == "approval_decision"]
    assert [d.decision for d in decisions] == ["approve"]  # type: ignore[union-attr]

    # A new server resumes the session; the model checks instead of retrying blindly.
    scripted.add("crash", text("I will check counter.txt before retrying."))
    resumed = await lsp(model="crash")
    listed = plain(await resumed.request("agent/sessions", {}))["sessions"]
    assert [(s["sessionId"], s["status"]) for s in listed] == [("s1", "interrupted")]
    result = plain(await resumed.run(prompt="go on", sessionId="s1", confirmMode="yolo"))
    assert result["status"] == "success" and result["sessionId"] == "s1"
    sent = scripted.requests_for("crash")[-1].messages
    tool_messages = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert tool_messages["second"] == INTERRUPTED
    assert "interrupted; state unknown, check before retrying" in tool_messages["second"]
    assert tool_messages["first"] != INTERRUPTED
    assert sent[-1] == {"role": "user", "content": "go on"}
    assert counter.read_text() == "ran\n"  # nothing ran again on resume
    history = plain(await resumed.request("agent/session", {"sessionId": "s1"}))
    assert history["torn"] is False
    assert [e["type"] for e in history["entries"]][-2:] == ["assistant_message", "run_finish"]
    listed = plain(await resumed.request("agent/sessions", {}))["sessions"]
    assert [(s["sessionId"], s["status"], s["runs"]) for s in listed] == [("s1", "success", 2)]


async def test_sigkill_mid_stream_then_resume(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    story = "Once upon a time " * 40
    scripted.add(
        "stream",
        tool_calls(call("execute_command", {"command": COUNT}, id="c1")),
        text(story, chunk_size=4, chunk_delay=0.05),
    )
    client = await start_killable(workspace, scripted, "stream")
    client.run(prompt="count, then tell a story", runId="r2", sessionId="s2", confirmMode="yolo")
    await wait_until(lambda: len(client.streamed("r2")) > 40, lambda: "some streamed text")
    await kill(client)

    lines = session_lines(workspace, "s2")  # whole lines only
    assert [e["type"] for e in lines] == [
        "run_start",
        "user_message",
        "assistant_message",
        "tool_call",
        "tool_result",
    ]  # the half-streamed answer was never committed
    scripted.add("stream", text("Resumed."))
    resumed = await lsp(model="stream")
    result = plain(await resumed.run(prompt="again please", sessionId="s2"))
    assert result["status"] == "success"
    sent = scripted.requests_for("stream")[-1].messages
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert all("Once upon" not in str(m.get("content")) for m in sent)
    assert (workspace / "counter.txt").read_text() == "ran\n"


async def test_unknown_session_is_invalid_params(lsp: LspFactory) -> None:
    client = await lsp()
    assert plain(await client.request("agent/sessions", {})) == {"sessions": []}
    try:
        await client.request("agent/session", {"sessionId": "nope"})
    except Exception as exc:
        assert "no session 'nope'" in str(exc)
    else:
        raise AssertionError("agent/session accepted an unknown id")
