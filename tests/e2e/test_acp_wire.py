"""``agentls acp`` puts on the wire what the ACP SDK's agent side did, frame for frame.

The agent side of the protocol is agentls's own (``acp_agent/protocol``); the expected
frames in tests/fixtures/acp_wire/ were recorded from the SDK-based agent it replaced
(``AGENTLS_ACP_GOLDEN=write`` records them again, from whichever agent runs). Ids made
afresh by each run, the temporary folder, the model server's port and the context's
token count are normalised (``acp_frames.load``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp_frames import FRAMES_DIR, differences, load
from agentls_e2e import server_env
from test_acp import EditorClient, acp_agent, prompt, start

from agentls import __version__
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "acp_wire"
WRITE = os.environ.get("AGENTLS_ACP_GOLDEN") == "write"
pytestmark = pytest.mark.timeout(300)


def check(recorded: list[str], name: str) -> None:
    """``recorded`` is the golden file's frames (agentls's version aside)."""
    version = f'"version": "{__version__}"'
    recorded = [line.replace(version, '"version": "<version>"') for line in recorded]
    golden = GOLDEN / name
    if WRITE:
        golden.write_text("".join(line + "\n" for line in recorded), encoding="utf-8")
    expected = golden.read_text(encoding="utf-8").splitlines()
    found = differences(expected, recorded)
    assert not found, "\n".join(found)


async def test_a_sessions_frames_are_those_the_sdk_sent(
    tmp_path: Path, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("x = 1\n")
    frames = tmp_path / "frames"
    frames.mkdir()
    monkeypatch.setenv(FRAMES_DIR, str(frames))
    scripted.add(
        "acp-wire",
        tool_call("update_plan", {"goal": "g", "steps": [{"text": "read", "status": "done"}]}),
        tool_call("read_file", {"path": "notes.txt"}),
        tool_call("write_file", {"path": "out.txt", "content": "é ✓\n"}),
        text("Done."),
        text("Again."),
    )
    client = EditorClient(["allow_once"])
    client.buffers[str(ws / "notes.txt")] = "x = 2  # unsaved\n"
    async with acp_agent(ws, scripted, "acp-wire", client) as conn:
        session_id = await start(conn, ws, fs=True)
        assert await prompt(conn, session_id, "read notes.txt, write out.txt") == "end_turn"
        await conn.set_session_mode(session_id=session_id, mode_id="plan")
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session_id, mode_id="nope")
        await conn.set_config_option(
            config_id="model", session_id=session_id, value="openai/acp-wire"
        )
    async with acp_agent(ws, scripted, "acp-wire", EditorClient()) as conn:
        await conn.initialize(protocol_version=1)
        await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])
        assert await prompt(conn, session_id, "again") == "end_turn"
    (recorded,) = frames.glob("*.jsonl")
    check(load(recorded), "session.jsonl")


#: Frames an ACP client may send that agentls does not serve, or sends badly: each is
#: answered with the SDK's error (or ignored, for notifications), and the agent goes on.
ODD_FRAMES = [
    {"id": 0, "method": "initialize", "params": {"protocolVersion": 1, "future": {"x": 1}}},
    "",
    "not json",
    {"id": 1, "method": "session/list", "params": {}},
    {"id": 2, "method": "_agentls/x", "params": {}},
    {"id": 3, "method": "session/prompt", "params": {"prompt": []}},
    {"id": 4, "method": "session/prompt", "params": {"sessionId": "nope", "prompt": []}},
    {"id": 5, "method": "authenticate", "params": {"methodId": "m"}},
    {"id": 6, "method": "session/set_mode", "params": {"sessionId": "nope", "modeId": "x"}},
    {
        "id": 7,
        "method": "session/set_config_option",
        "params": {"sessionId": "nope", "configId": "model", "type": "boolean", "value": True},
    },
    {"method": "$/cancel_request", "params": {"id": 4}},
    {"method": "session/cancel", "params": {"sessionId": "nope"}},
    {"method": "_agentls/note", "params": {}},
    {"id": 8, "method": "session/close", "params": {"sessionId": "nope"}},
    {"id": 9, "method": "session/fork", "params": {"sessionId": "nope", "cwd": "/"}},
    {"id": 10, "method": "session/new", "params": {"cwd": "/"}},
    {"id": 11, "method": "initialize"},
    {"id": 12, "method": "session/prompt", "params": {"sessionId": "s", "prompt": [{"type": "x"}]}},
    {"id": "text-id", "method": "session/resume", "params": {}},
]


def test_odd_requests_are_answered_as_the_sdk_answered_them(tmp_path: Path) -> None:
    lines = [
        frame if isinstance(frame, str) else json.dumps(_framed(frame)) for frame in ODD_FRAMES
    ]
    done = subprocess.run(
        [sys.executable, "-P", "-m", "agentls", "acp", "--model", "openai/x"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # Answered concurrently: in the order of the requests' ids, pydantic's links left out
    # (they name its version).
    answers = sorted((json.loads(line) for line in done.stdout.splitlines()), key=_id)
    recorded = [json.dumps(_without_urls(answer)) for answer in answers]
    check(recorded, "odd_frames.jsonl")


def _framed(frame: Any) -> Any:
    return {"jsonrpc": "2.0", **frame} if isinstance(frame, dict) else frame


def _id(answer: dict[str, Any]) -> str:
    return str(answer.get("id")).rjust(8)


def _without_urls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_urls(v) for k, v in value.items() if k != "url"}
    if isinstance(value, list):
        return [_without_urls(v) for v in value]
    return value


def test_a_frame_that_is_no_json_object_is_ignored_and_a_long_one_read_whole(
    tmp_path: Path,
) -> None:
    """The SDK's agent ended at a frame that is not an object; agentls's logs it and reads
    on. A frame longer than the reader's buffer (a big embedded file) is read whole."""
    long_prompt = [{"type": "text", "text": "x" * 3_000_000}]
    frames = [
        [1, 2],
        7,
        {"jsonrpc": "2.0", "id": 0, "method": "authenticate", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/prompt",
            "params": {"sessionId": "nope", "prompt": long_prompt},
        },
    ]
    done = subprocess.run(
        [sys.executable, "-P", "-m", "agentls", "acp", "--model", "openai/x"],
        input="".join(json.dumps(frame) + "\n" for frame in frames),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, second = sorted((json.loads(line) for line in done.stdout.splitlines()), key=_id)
    assert first["id"] == 0 and first["error"]["code"] == -32602
    assert "not a JSON object" in done.stderr
    assert second["id"] == 1
    assert second["error"]["data"] == {"message": "unknown session nope: start it with session/new"}


def test_stdin_and_stdout_that_are_files_are_read_and_written(tmp_path: Path) -> None:
    """Not pipes (the loop cannot watch a regular file): stdin is read in a thread and the
    answers written directly, as on Windows."""
    frames = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 1, "method": "authenticate", "params": {"methodId": "m"}},
    ]
    requests, answers = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    requests.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-P", "-m", "agentls", "acp", "--model", "openai/x"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=server_env(),
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    got = sorted((json.loads(line) for line in answers.read_text().splitlines()), key=_id)
    assert [a["id"] for a in got] == [0, 1]
    assert got[0]["result"]["protocolVersion"] == 1 and got[1]["result"] == {}
