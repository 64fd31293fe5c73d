"""Checkpoints from the terminal: a real headless run, then `agentls restore`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from planted_checkpoint import PLANTED_RUN, modes, plant_checkpoint

from agentls.agent.config.trust import TrustStore
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

COMMAND = (
    "chmod +x script.py && echo cmd > by_cmd.txt && echo more >> data.txt"
    " && printf 'new\\000bytes' > blob.bin"
)


@pytest.fixture
def scripted() -> Any:
    with ScriptedModelServer() as server:
        yield server


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".agentls.yaml").write_text("workspace:\n  allow_delete: true\n")
    TrustStore().set_trusted(root, True)  # its .agentls.yaml allows deleting
    (root / "tool.sh").write_text("#!/bin/sh\necho old\n")
    (root / "tool.sh").chmod(0o755)
    (root / "gone.txt").write_bytes(b"keep me\r\nplease\n")
    (root / "gone.txt").chmod(0o640)  # a deleted file comes back with its mode
    (root / "data.txt").write_text("line\n")
    (root / "script.py").write_text("print('hi')\n")
    (root / "script.py").chmod(0o644)
    (root / "blob.bin").write_bytes(b"old\x00bytes\xff")  # not text: written back as bytes
    return root


def cli(ws: Path, *args: str, server: ScriptedModelServer | None = None) -> Any:
    extra = ["--model", "openai/m", "--api-base", server.api_base] if server else []
    return subprocess.run(
        [sys.executable, "-m", "agentls.cli", *args, "--workspace", str(ws), *extra],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=120,
    )


def snapshot(ws: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(ws).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o7777)
        for p in sorted(ws.rglob("*"))
        if p.is_file() and ".agentls" not in p.relative_to(ws).parts[:1]
    }


def run(ws: Path, scripted: ScriptedModelServer, session: str, *calls: Any) -> dict[str, Any]:
    scripted.add("m", *calls, text("done"))
    done = cli(ws, "run", "go", "--json", "--mode", "yolo", "--session", session, server=scripted)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_restore_undoes_edits_creates_deletes_and_command_writes(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    before = snapshot(ws)
    first = run(
        ws,
        scripted,
        "s1",
        tool_call("edit_file", {"path": "tool.sh", "old_str": "old", "new_str": "new"}),
        tool_call("write_file", {"path": "made.py", "content": "x = 1\n"}),
        tool_call("delete_file", {"path": "gone.txt"}),
        # A chmod changes neither bytes nor mtime: only comparing modes sees it.
        tool_call("execute_command", {"command": COMMAND}),
    )
    assert (ws / "script.py").stat().st_mode & 0o777 == 0o755
    assert (ws / "by_cmd.txt").exists() and not (ws / "gone.txt").exists()
    assert snapshot(ws) != before
    listed = json.loads(cli(ws, "checkpoints", "--json").stdout)
    changes = {f["path"]: f["change"] for f in listed[0]["files"]}
    assert changes == {
        "tool.sh": "modified",
        "made.py": "created",
        "gone.txt": "deleted",
        "by_cmd.txt": "created",
        "data.txt": "modified",
        "script.py": "modified",
        "blob.bin": "modified",
    }
    done = cli(ws, "restore", first["runId"], "--yes", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "applied" and result["conflicts"] == []
    # Byte for byte; but no mode changes without a question, and with no terminal to ask
    # on (--yes answers the diff, not a mode change) they are listed, not made.
    modes = {item["path"]: item["reason"] for item in result["unrestorable"]}
    assert sorted(modes) == ["gone.txt", "script.py"]
    assert "mode not set back to 0644 (it is 0755)" in modes["script.py"]
    assert all("nothing here can ask you before a mode change" in r for r in modes.values())
    assert {p: data for p, (data, _) in snapshot(ws).items()} == {
        p: data for p, (data, _) in before.items()
    }
    assert (ws / "tool.sh").stat().st_mode & 0o777 == 0o755  # the mode the file kept
    session = (ws / ".agentls" / "sessions" / "s1.jsonl").read_text().splitlines()
    entry = json.loads(session[-1])
    assert entry["type"] == "restore" and entry["restores"] == first["runId"]
    assert entry["run_id"] == result["restore_run_id"]
    assert entry["restored"] == result["restored"]

    # The restore is recorded like a run: undoing it brings the run's work back.
    done = cli(ws, "restore", result["restore_run_id"], "--yes", "--json")
    assert json.loads(done.stdout)["status"] == "applied", done.stdout
    assert (ws / "tool.sh").read_text() == "#!/bin/sh\necho new\n"
    assert (ws / "by_cmd.txt").read_text() == "cmd\n"
    assert not (ws / "gone.txt").exists()
    assert (ws / "script.py").stat().st_mode & 0o777 == 0o755


def test_a_file_the_user_changed_since_is_a_conflict_and_kept(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    first = run(
        ws, scripted, "s2", tool_call("write_file", {"path": "data.txt", "content": "agent 1\n"})
    )
    run(ws, scripted, "s2", tool_call("write_file", {"path": "made.py", "content": "y = 2\n"}))
    (ws / "data.txt").write_text("the user's text\n")
    done = cli(ws, "restore", first["runId"], "--yes", "--json")
    result = json.loads(done.stdout)
    assert done.returncode == 1
    assert result["conflicts"] == ["data.txt"]
    assert result["restored"] == ["made.py"]  # the later run of the session is undone too
    assert (ws / "data.txt").read_text() == "the user's text\n"
    assert not (ws / "made.py").exists()

    forced = json.loads(cli(ws, "restore", first["runId"], "--yes", "--force", "--json").stdout)
    assert forced["restored"] == ["data.txt"]
    assert (ws / "data.txt").read_text() == "line\n"


def test_unknown_run_is_a_clear_error(ws: Path) -> None:
    done = cli(ws, "restore", "nope", "--yes")
    assert done.returncode == 1
    assert "no checkpoint for run 'nope'" in done.stderr


def test_checkpoints_go_with_their_session(ws: Path, scripted: ScriptedModelServer) -> None:
    run(ws, scripted, "gone", tool_call("write_file", {"path": "n.txt", "content": "n\n"}))
    sessions = ws / ".agentls" / "sessions"
    assert (sessions / "gone.checkpoints" / "record.jsonl").is_file()
    (sessions / "gone.jsonl").unlink()
    assert json.loads(cli(ws, "checkpoints", "--json").stdout) == []
    assert not (sessions / "gone.checkpoints").exists()


@pytest.mark.parametrize("command", [["checkpoints"], ["restore", "r1", "--yes"]])
def test_a_symlinked_state_folder_is_a_message_and_nothing_is_read_through_it(
    ws: Path, tmp_path: Path, command: list[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "sessions" / "s.checkpoints").mkdir(parents=True)
    (elsewhere / "sessions" / "s.jsonl").write_text("")
    record = elsewhere / "sessions" / "s.checkpoints" / "record.jsonl"
    record.write_text('{"run": "r1", "path": "tool.sh", "before": {"sha": null}}\n')
    (ws / ".agentls").symlink_to(elsewhere, target_is_directory=True)
    listing = sorted(p.relative_to(elsewhere) for p in elsewhere.rglob("*"))
    done = cli(ws, *command)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert ".agentls is a symlink" in done.stderr
    assert sorted(p.relative_to(elsewhere) for p in elsewhere.rglob("*")) == listing
    assert (ws / "tool.sh").exists()


def test_a_record_the_repository_ships_is_not_listed_nor_restored(ws: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    plant_checkpoint(ws, "script.py")
    before = modes(ws, "script.py")

    listed = cli(ws, "checkpoints", "--json")
    assert json.loads(listed.stdout) == []
    assert PLANTED_RUN in listed.stderr and "did not record for you" in listed.stderr

    done = cli(ws, "restore", PLANTED_RUN, "--yes")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"run {PLANTED_RUN!r}" in done.stderr and "not recorded by agentls" in done.stderr
    assert modes(ws, "script.py") == before  # nothing chmod'ed
