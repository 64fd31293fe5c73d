"""The session store, and runs that persist through it (against the scripted model server)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from agentls.agent.config.models import AppConfig
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, error, text, tool_call
from agentls.agent.loop import DeltaDedupe
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.sessions.entries import (
    AssistantMessage,
    RestoreEntry,
    RunFinishEntry,
    RunStartEntry,
    StoredToolCall,
    ToolCallEntry,
    ToolResultEntry,
    UserMessage,
    parse_entry,
)
from agentls.agent.sessions.store import INTERRUPTED, NOT_STARTED, Session, SessionStore
from agentls.agent.tools import Tool, ToolContext, ToolResult, build_registry
from agentls.agent.workspace import DiskFileAccess
from agentls.cli.main import main as cli_main

AdapterFactory = Any


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _assistant(run: str, index: int, content: str = "hi", calls: tuple[str, ...] = ()) -> Any:
    return AssistantMessage(
        run_id=run,
        model_call_index=index,
        content=content,
        tool_calls=[StoredToolCall(id=c, name="write_file", arguments={"path": c}) for c in calls],
    )


# -- the file format --------------------------------------------------------------------


def test_entries_round_trip_with_type_discriminator(tmp_path: Path) -> None:
    session = SessionStore(tmp_path).open("s1")
    session.append_sync(RunStartEntry(run_id="r1", prompt="fix it"))
    session.append_sync(UserMessage(run_id="r1", content="fix it"))
    [start, user] = _lines(tmp_path / "s1.jsonl")
    assert start["type"] == "run_start" and start["run_id"] == "r1"
    assert {"model_call_index", "ts"} <= set(user)
    assert isinstance(parse_entry(json.dumps(user)), UserMessage)


def test_torn_last_line_is_ignored_and_the_next_append_starts_a_fresh_line(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    store.open("s").append_sync(RunStartEntry(run_id="r1", prompt="p"))
    store.open("s").append_sync(_assistant("r1", 1))
    path = tmp_path / "s.jsonl"
    with path.open("ab") as f:  # a crash in the middle of a write
        f.write(b'{"type": "assistant_message", "run_id": "r1", "model_call_ind')
    session = store.open("s")
    assert session.torn and len(session.entries) == 2
    session.append_sync(_assistant("r1", 2, "after the crash"))
    reloaded = store.open("s")
    assert [type(e).__name__ for e in reloaded.entries] == [
        "RunStartEntry",
        "AssistantMessage",
        "AssistantMessage",
    ]
    assert not reloaded.torn and reloaded.skipped == 1  # the torn line, now in the middle
    assert path.read_text().endswith(
        '"after the crash","tool_calls":[],"finish_reason":"stop","model":null}\n'
    )


def test_same_run_and_model_call_index_is_committed_once(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    session = store.open("s")
    assert session.append_sync(_assistant("r1", 1, "first")) is True
    assert session.append_sync(_assistant("r1", 1, "again")) is False
    assert store.open("s").append_sync(_assistant("r1", 1, "after reload")) is False
    assert session.append_sync(_assistant("r1", 2, "next turn")) is True
    assert session.append_sync(_assistant("r2", 1, "other run")) is True
    contents = [e["content"] for e in _lines(tmp_path / "s.jsonl")]
    assert contents == ["first", "next turn", "other run"]


def test_stream_deltas_are_deduplicated_by_run_index_and_seq() -> None:
    dedupe = DeltaDedupe()
    seen = [
        (run, index, seq)
        for run, index, seq in [("r", 1, 1), ("r", 1, 2), ("r", 1, 1), ("r", 1, 2), ("r", 2, 1)]
        if dedupe.first_time(run, index, seq)
    ]
    assert seen == [("r", 1, 1), ("r", 1, 2), ("r", 2, 1)]
    assert not dedupe.first_time("r", 2, 1)  # replaying is a no-op, however often


def test_history_rebuild_with_a_dangling_and_a_never_started_call(tmp_path: Path) -> None:
    session = SessionStore(tmp_path).open("s")
    for entry in [
        RunStartEntry(run_id="r1", prompt="go"),
        UserMessage(run_id="r1", content="go"),
        _assistant("r1", 1, "", ("c1",)),
        ToolCallEntry(run_id="r1", model_call_index=1, call_id="c1", name="write_file"),
        ToolResultEntry(
            run_id="r1",
            model_call_index=1,
            call_id="c1",
            name="write_file",
            success=True,
            content="wrote c1",
        ),
        _assistant("r1", 2, "two more", ("c2", "c3")),
        ToolCallEntry(run_id="r1", model_call_index=2, call_id="c2", name="write_file"),
        # the server died here: c2 started without a result, c3 never started
    ]:
        session.append_sync(entry)
    history = SessionStore(tmp_path).open("s").history()
    assert [m["role"] for m in history] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "tool",
    ]
    assert history[1]["tool_calls"][0]["function"] == {
        "name": "write_file",
        "arguments": '{"path": "c1"}',
    }
    assert history[2] == {"role": "tool", "tool_call_id": "c1", "content": "wrote c1"}
    assert history[4] == {"role": "tool", "tool_call_id": "c2", "content": INTERRUPTED}
    assert "interrupted; state unknown, check before retrying" in INTERRUPTED
    assert history[5] == {"role": "tool", "tool_call_id": "c3", "content": NOT_STARTED}


def test_a_restore_tells_the_next_run_which_files_went_back(tmp_path: Path) -> None:
    session = SessionStore(tmp_path).open("s")
    for entry in [
        RunStartEntry(run_id="r1", prompt="go"),
        UserMessage(run_id="r1", content="go"),
        AssistantMessage(run_id="r1", model_call_index=1, content="edited a.py"),
        RunFinishEntry(run_id="r1", status="success"),
        RestoreEntry(
            run_id="restore-1",
            restores="r1",
            status="applied",
            restored=["a.py", "b.txt"],
            conflicts=["c.md"],
            unrestorable=[{"path": "big.bin", "reason": "the checkpoint store is full"}],
        ),
    ]:
        session.append_sync(entry)
    reloaded = SessionStore(tmp_path).open("s")
    assert isinstance(reloaded.entries[-1], RestoreEntry)
    assert not reloaded.append_sync(RestoreEntry(run_id="restore-1", restores="r1", status="x"))
    history = reloaded.history()
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    note = history[-1]["content"]
    assert "undid run r1" in note
    assert "Files restored: a.py, b.txt." in note
    assert "left as they are: c.md." in note
    assert "big.bin (the checkpoint store is full)" in note

    reloaded.append_sync(RestoreEntry(run_id="restore-2", restores="restore-1", status="applied"))
    again = reloaded.history()[-1]["content"]
    assert again.startswith("[The user undid their undo restore-1: the files it had put back")


def test_list_gives_title_status_and_newest_first(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    old = store.open("old")
    old.append_sync(RunStartEntry(run_id="r1", prompt="first   task\nwith lines"))
    old.append_sync(RunFinishEntry(run_id="r1", status="success"))
    new = store.open("new")
    new.append_sync(RunStartEntry(run_id="r2", prompt="second"))
    (tmp_path / "notes.txt").write_text("not a session")
    import os

    os.utime(tmp_path / "old.jsonl", (1, 1))
    summaries = store.list()
    assert [(s.id, s.title, s.status) for s in summaries] == [
        ("new", "second", "interrupted"),
        ("old", "first task with lines", "success"),
    ]


def test_session_ids_cannot_escape_the_directory(tmp_path: Path) -> None:
    import pytest

    from agentls.agent.sessions.store import SessionIdError

    for bad in ("../x", "a/b", "", ".hidden"):
        with pytest.raises(SessionIdError):
            SessionStore(tmp_path).path_for(bad)


# -- runs through run_agent ---------------------------------------------------------------


def _config(ws: Path, scripted: ScriptedModelServer, model: str, **llm: Any) -> AppConfig:
    return AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "indexer": {"enabled": False},
            "llm": {
                "model": f"openai/{model}",
                "api_base": scripted.api_base,
                "timeout": 10,
                "retries": 0,
                **llm,
            },
        }
    )


async def _run(
    config: AppConfig, prompt: str, session_id: str, **kw: Any
) -> tuple[Any, list[dict[str, Any]]]:
    outcome = await run_agent(
        RunRequest(prompt=prompt, session_id=session_id, confirm_mode="yolo"),
        FrontEnd(DiskFileAccess(config.workspace.root), DenyingApprover("no one"), **kw),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )
    path = config.workspace.root / ".agentls" / "sessions" / f"{session_id}.jsonl"
    return outcome, _lines(path) if path.is_file() else []


async def test_a_run_persists_its_turns_and_the_next_run_continues_them(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("m1", tool_call("read_file", {"path": "a.txt"}), text("a says hi"), text("bye"))
    (tmp_path / "a.txt").write_text("hi\n")
    config = _config(tmp_path, scripted, "m1")
    first, entries = await _run(config, "read a", "s1")
    assert first.state.status == "success" and first.session_id == "s1"
    assert [e["type"] for e in entries] == [
        "run_start",
        "user_message",
        "assistant_message",
        "tool_call",
        "tool_result",
        "assistant_message",
        "run_finish",
    ]
    assert [e["model_call_index"] for e in entries if e["type"] == "assistant_message"] == [1, 2]
    assert entries[-1]["status"] == "success" and entries[-1]["state"] == "completed"
    second, entries = await _run(config, "thanks", "s1")
    assert second.state.status == "success"
    sent = scripted.requests_for("m1")[-1].messages
    assert [m["role"] for m in sent] == [
        "system", "user", "assistant", "tool", "assistant", "user",
    ]  # fmt: skip
    assert sent[1]["content"] == "read a" and sent[-1]["content"] == "thanks"
    assert "hi" in sent[3]["content"]
    assert len([e for e in entries if e["type"] == "run_start"]) == 2


async def test_model_retries_reuse_the_model_call_index(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("m2", error(500), text("fine now"))
    config = _config(tmp_path, scripted, "m2", retries=2)
    outcome, entries = await _run(config, "go", "s2")
    assert outcome.state.status == "success"
    assert len(scripted.requests_for("m2")) == 2  # the adapter retried once
    [assistant] = [e for e in entries if e["type"] == "assistant_message"]
    assert assistant["model_call_index"] == 1 and assistant["content"] == "fine now"


async def test_session_path_that_cannot_be_written_fails_the_run_naming_it(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    # Tests run as root, where permissions do not stop a write: a directory where the
    # session file should be fails for everybody.
    blocked = tmp_path / ".agentls" / "sessions" / "s3.jsonl"
    blocked.mkdir(parents=True)
    scripted.add("m3", text("never asked"))
    outcome, _ = await _run(_config(tmp_path, scripted, "m3"), "go", "s3")
    assert outcome.state.status == "failed"
    assert str(blocked) in (outcome.state.final_output or "")
    assert scripted.requests_for("m3") == []


class _BreakArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _BreakSessionTool(Tool):
    """Replaces the session file with a directory, as a full disk would refuse writes."""

    name = "break_session"
    description = "test only"
    args_model = _BreakArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        assert ctx.run.session is not None
        path = ctx.run.session.path
        shutil.move(path, str(path) + ".bak")
        path.mkdir()
        return ToolResult.ok("done")


async def test_a_session_write_failure_mid_run_stops_the_run_at_once(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("m4", tool_call("break_session", {}), text("should not be reached"))
    registry = build_registry()
    registry.register(_BreakSessionTool())
    outcome, _ = await _run(_config(tmp_path, scripted, "m4"), "go", "s4", registry=registry)
    assert outcome.state.status == "failed"
    assert "s4.jsonl" in (outcome.state.final_output or "")
    assert len(scripted.requests_for("m4")) == 1  # no further model call after the failure
    kept = Session("s4", tmp_path / ".agentls" / "sessions" / "s4.jsonl.bak")
    assert [type(e).__name__ for e in kept.entries][-1] == "ToolCallEntry"


def test_cli_session_flag_continues_a_session(
    tmp_path: Path, scripted: ScriptedModelServer, capsys: Any
) -> None:
    scripted.add("m5", text("first answer"), text("second answer"))
    args = ["--workspace", str(tmp_path), "--model", "openai/m5"]
    args += ["--api-base", scripted.api_base, "--session", "cli-1", "--quiet"]
    assert cli_main(["run", "remember 42", *args]) == 0
    assert cli_main(["run", "what did I say?", *args]) == 0
    sent = scripted.requests_for("m5")[-1].messages
    assert [m.get("content") for m in sent[1:]] == [
        "remember 42",
        "first answer",
        "what did I say?",
    ]
    capsys.readouterr()
    assert cli_main(["sessions", "--workspace", str(tmp_path), "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["sessionId"] == "cli-1" and listed["title"] == "remember 42"
    assert listed["status"] == "success" and listed["runs"] == 2
    assert cli_main(["sessions", "--workspace", str(tmp_path)]) == 0
    assert "cli-1" in capsys.readouterr().out


@pytest.mark.parametrize(("accept", "decision"), [(True, "approve"), (False, "deny")])
async def test_an_edit_decision_is_recorded_and_a_stale_edit_is_not(
    tmp_path: Path, accept: bool, decision: str
) -> None:
    from agentls.agent.policy.approval import EditRequest
    from agentls.agent.sessions.recorder import RecordingApprover, SessionRecorder
    from agentls.agent.workspace import EditProposal, FileChange

    async def confirmer(proposal: EditProposal) -> bool:
        return accept

    (tmp_path / "a.txt").write_text("old\n")
    files = DiskFileAccess(tmp_path, confirmer=confirmer)
    session = SessionStore(tmp_path / "sessions").open("s1")
    approver = RecordingApprover(DenyingApprover("nobody"), SessionRecorder(session, "r1"))
    change = FileChange("a.txt", "new\n", "old\n")
    outcome = await approver.confirm_edit(EditRequest("r1", "c1", "write_file", [change]), files)
    assert outcome.status == ("applied" if accept else "rejected")
    stale = FileChange("a.txt", "newer\n", "not what the file holds\n")
    outcome = await approver.confirm_edit(EditRequest("r1", "c2", "write_file", [stale]), files)
    assert outcome.status == "stale"
    decisions = [e for e in _lines(session.path) if e["type"] == "approval_decision"]
    assert [(d["call_id"], d["decision"], d["args"]["paths"]) for d in decisions] == [
        ("c1", decision, ["a.txt"])
    ]
