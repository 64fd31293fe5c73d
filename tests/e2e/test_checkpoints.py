"""Undo a whole run over LSP: agent/checkpoints, then agent/restore (one confirmed edit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls_e2e import AgentClient, LspFactory, kill, llm_options, plain, start_killable
from planted_checkpoint import PLANTED_RUN, modes, plant_checkpoint

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

# Writes one file, appends to another, makes a third executable (only its mode changes) and
# rewrites a binary file (its bytes cannot ride in a text edit).
COMMAND = (
    "chmod +x script.py && echo cmd > by_cmd.txt && echo more >> README.md"
    " && printf 'new\\000bytes' > blob.bin"
)
BLOB = b"old\x00bytes\xff"
OPTIONS_DELETE = {"workspace": {"allow_delete": True}}


def snapshot(ws: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(ws).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o7777)
        for p in sorted(ws.rglob("*"))
        if p.is_file() and p.relative_to(ws).parts[0] not in (".agentls", ".git")
    }


async def wait_watching(client: AgentClient) -> None:
    await client.ping_until(lambda pong: pong["watching"], "the index watcher to start")


def the_run() -> list[Any]:
    return [
        tool_call("edit_file", {"path": "tool.sh", "old_str": "old", "new_str": "new"}),
        tool_call("write_file", {"path": "src/made.py", "content": "x = 1\n"}),
        tool_call("delete_file", {"path": "gone.txt"}),
        tool_call("execute_command", {"command": COMMAND}),
        text("done"),
    ]


def prepare(workspace: Path) -> None:
    (workspace / "tool.sh").write_text("#!/bin/sh\necho old\n")
    (workspace / "tool.sh").chmod(0o755)
    (workspace / "gone.txt").write_text("keep me\n")
    (workspace / "gone.txt").chmod(0o640)
    (workspace / "script.py").write_text("print('hi')\n")
    (workspace / "script.py").chmod(0o644)
    (workspace / "blob.bin").write_bytes(BLOB)


async def test_restore_gives_the_workspace_back_and_can_be_undone(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    prepare(workspace)
    before = snapshot(workspace)
    scripted.add("alice", *the_run())
    client = await lsp(init_options={**llm_options(scripted), **OPTIONS_DELETE})
    await wait_watching(client)
    result = plain(await client.run(prompt="go", runId="r1", sessionId="s1", confirmMode="yolo"))
    assert result["status"] == "success", result
    after_run = snapshot(workspace)
    assert after_run != before

    listed = plain(await client.request("agent/checkpoints", {"sessionId": "s1"}))["runs"]
    assert [r["runId"] for r in listed] == ["r1"]
    assert {f["path"]: f["change"] for f in listed[0]["files"]} == {
        "tool.sh": "modified",
        "src/made.py": "created",
        "gone.txt": "deleted",
        "by_cmd.txt": "created",
        "README.md": "modified",  # its previous text: what the live index held
        "script.py": "modified",  # only its mode: seen by comparing modes, not stamps
        "blob.bin": "modified",  # the index holds text only: read before the command
    }

    edits_before = len(client.edits)
    # The binary file, then the modes, are asked about apart from the edit.
    client.approvals = ["Apply", "Apply"]
    restored = plain(await client.request("agent/restore", {"runId": "r1"}))
    assert restored["status"] == "applied", restored
    [binary, mode_change] = [r.message for r in client.approval_requests]
    assert binary == (
        "Undoing the run also writes back 1 file(s) that are not text, as they were before "
        "it: blob.bin. Write them back?"
    )
    assert mode_change.startswith("Undoing the run also sets the mode of 2 file(s) back: ")
    assert "gone.txt: " in mode_change and "script.py: 0755 -> 0644" in mode_change
    assert restored["conflicts"] == [] and restored["unrestorable"] == []
    assert snapshot(workspace) == before  # bytes and modes (script.py is 0o644 again)
    # One workspace edit, every part of it confirmed by the user like any agent edit.
    assert len(client.edits) == edits_before + 1
    annotations = client.edits[-1].edit.change_annotations or {}
    assert annotations and all(a.needs_confirmation for a in annotations.values())

    # The restore is an entry of the session: its history shows what went back.
    entries = plain(await client.request("agent/session", {"sessionId": "s1"}))["entries"]
    recorded = [e for e in entries if e["type"] == "restore"]
    assert len(recorded) == 1, entries
    assert recorded[0]["run_id"] == restored["restoreRunId"]
    assert recorded[0]["restores"] == "r1"
    assert sorted(recorded[0]["restored"]) == sorted(restored["restored"])

    client.approvals = ["Apply", "Apply"]
    again = plain(await client.request("agent/restore", {"runId": restored["restoreRunId"]}))
    assert again["status"] == "applied", again
    assert snapshot(workspace) == after_run
    assert (workspace / "script.py").stat().st_mode & 0o777 == 0o755


async def test_declined_binary_bytes_are_listed_and_the_text_restored(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    prepare(workspace)
    scripted.add("alice", tool_call("execute_command", {"command": COMMAND}), text("done"))
    client = await lsp()
    await wait_watching(client)
    result = plain(await client.run(prompt="go", runId="b1", sessionId="sb", confirmMode="yolo"))
    assert result["status"] == "success", result
    client.approvals = ["Reject", "Apply"]  # no to the bytes, yes to the mode
    restored = plain(await client.request("agent/restore", {"runId": "b1"}))
    assert restored["status"] == "applied", restored
    assert restored["unrestorable"] == [
        {"path": "blob.bin", "reason": "not text; you declined writing its bytes back"}
    ]
    assert (workspace / "blob.bin").read_bytes() == b"new\x00bytes"
    assert not (workspace / "by_cmd.txt").exists()
    assert (workspace / "README.md").read_text() == "# demo\n"
    assert (workspace / "script.py").stat().st_mode & 0o777 == 0o644


async def test_the_user_s_later_edit_is_a_conflict_and_kept(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "README.md", "content": "# agent\n"}),
        text("one"),
        tool_call("write_file", {"path": "notes.md", "content": "later\n"}),
        text("two"),
    )
    client = await lsp()
    await client.run(prompt="one", runId="a", sessionId="s", confirmMode="yolo")
    await client.run(prompt="two", runId="b", sessionId="s", confirmMode="yolo")
    (workspace / "README.md").write_text("the user's text\n")
    restored = plain(await client.request("agent/restore", {"runId": "a"}))
    assert restored["conflicts"] == ["README.md"]
    assert restored["restored"] == ["notes.md"]
    assert (workspace / "README.md").read_text() == "the user's text\n"
    assert not (workspace / "notes.md").exists()


async def test_restore_after_sigkill_of_the_server(
    scripted: ScriptedModelServer, workspace: Path
) -> None:
    prepare(workspace)
    before = snapshot(workspace)
    scripted.add(
        "k",
        tool_call("edit_file", {"path": "tool.sh", "old_str": "old", "new_str": "new"}),
        tool_call("write_file", {"path": "made.txt", "content": "m\n"}),
        text("done"),
    )
    client = await start_killable(workspace, scripted, "k")
    result = plain(await client.run(prompt="go", runId="r9", sessionId="s9", confirmMode="yolo"))
    assert result["status"] == "success", result
    await kill(client)

    client = await start_killable(workspace, scripted, "k")
    client.approvals = ["Apply"]  # Neovim-like: the restore is confirmed in a question
    try:
        restored = plain(await client.request("agent/restore", {"runId": "r9"}))
        assert restored["status"] == "applied", restored
        assert snapshot(workspace) == before
        assert len(client.approval_requests) == 1
    finally:
        await kill(client)

    # Killed again after the restore: the next run of the session still learns of it.
    scripted.add("k", text("noted"))
    client = await start_killable(workspace, scripted, "k")
    try:
        result = plain(await client.run(prompt="again", runId="r10", sessionId="s9"))
        assert result["status"] == "success", result
    finally:
        await kill(client)
    messages = scripted.requests_for("k")[-1].body["messages"]
    notes = [m["content"] for m in messages if "undid run r9" in str(m.get("content"))]
    assert len(notes) == 1, messages
    assert "Files restored: made.txt, tool.sh." in notes[0]
    # The note comes after the undone run and before the new prompt.
    users = [str(m["content"]) for m in messages if m["role"] == "user"]
    assert users.index(notes[0]) == len(users) - 2 and "again" in users[-1], users


async def test_unknown_run_is_invalid_params(lsp: LspFactory) -> None:
    client = await lsp()
    try:
        await client.request("agent/restore", {"runId": "nope"})
    except Exception as exc:
        assert "no checkpoint for run 'nope'" in str(exc)
    else:
        raise AssertionError("an unknown run was accepted")


async def test_a_record_the_repository_ships_is_not_listed_nor_restored(
    lsp: LspFactory, workspace: Path
) -> None:
    plant_checkpoint(workspace, "src/app.py")
    before = modes(workspace, "src/app.py")
    client = await lsp()
    assert plain(await client.request("agent/checkpoints", {}))["runs"] == []
    listed = await client.request("agent/checkpoints", {"sessionId": "shipped"})
    assert plain(listed)["runs"] == []
    try:
        await client.request("agent/restore", {"runId": PLANTED_RUN})
    except Exception as exc:
        assert f"run {PLANTED_RUN!r}" in str(exc) and "not recorded by agentls" in str(exc)
    else:
        raise AssertionError("a shipped record was restored")
    assert modes(workspace, "src/app.py") == before  # nothing chmod'ed
    assert client.approval_requests == []
