"""The headless CLI as a user runs it: a subprocess against the scripted model server."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    call,
    cut,
    error,
    text,
    tool_call,
    tool_calls,
)

ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def read_until(stream: IO[str], marker: str, timeout: float = 90) -> str:
    """What a child writes to ``stream`` (a pipe), read until ``marker`` appears: the test
    goes on when the CLI is there, not after a guessed sleep."""
    fd = stream.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while marker.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"{marker!r} never came; the CLI wrote: {seen[-2000:]!r}")
        chunk = os.read(fd, 65_536)
        if not chunk:
            raise AssertionError(f"the CLI closed its output before {marker!r}: {seen[-2000:]!r}")
        seen += chunk
    return seen.decode("utf-8", "replace")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("x = 1\n")
    return tmp_path


def agentls(
    ws: Path, server: ScriptedModelServer, model: str, *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "agentls.cli",
            "run",
            *args,
            "--workspace",
            str(ws),
            "--model",
            f"openai/{model}",
            "--api-base",
            server.api_base,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=ENV,
        timeout=120,
    )


def test_success_exits_0_with_json_on_stdout(ws: Path, scripted: ScriptedModelServer) -> None:
    scripted.add("ok", tool_call("read_file", {"path": "app.py"}), text("x is one."))
    done = agentls(ws, scripted, "ok", "what is x?", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "success" and result["output"] == "x is one."
    assert {
        "steps",
        "tools_used",
        "duration_seconds",
        "model",
        "runId",
        "sessionId",
        "usage",
    } <= set(result)
    assert "read_file" in done.stderr  # progress goes to stderr, never stdout


def test_partial_exits_2(ws: Path, scripted: ScriptedModelServer) -> None:
    scripted.add("pt", tool_call("read_file", {"path": "app.py"}))
    done = agentls(ws, scripted, "pt", "loop", "--max-steps", "1")
    assert done.returncode == 2 and "limit of 1 steps" in done.stdout


def test_failed_exits_1(ws: Path, scripted: ScriptedModelServer) -> None:
    scripted.add("fl", error(401, "invalid key"))
    done = agentls(ws, scripted, "fl", "x")
    assert done.returncode == 1 and "LLM error" in done.stdout


def test_a_cut_stream_restarts_and_the_run_succeeds(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    answer = "The answer is one, as the file says."
    scripted.add("cu", cut(text(answer), "text", "close"), text(answer))
    done = agentls(ws, scripted, "cu", "what is x?")  # streams (--json would not)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == answer
    assert "[stream cut: the stream ended without a finish reason" in done.stderr
    assert "restarts (attempt 2)" in done.stderr
    # The retried text follows the notice (then the token summary line).
    after = done.stderr.split("restarts (attempt 2)]", 1)[1]
    assert after.lstrip().startswith(answer)


@pytest.mark.parametrize("at", ["arguments", "between_calls", "before_finish"])
def test_a_stream_cut_every_time_fails_and_runs_none_of_its_calls(
    ws: Path, scripted: ScriptedModelServer, at: str
) -> None:
    writes = tool_calls(
        call("write_file", {"path": "app.py", "content": "x = 2\n"}),
        call("write_file", {"path": "new.py", "content": "y = 3\n"}),
        text="Writing both.",
    )
    scripted.add("cx", *[cut(writes, at, "close")] * 3, text("never asked"))  # type: ignore[arg-type]
    done = agentls(ws, scripted, "cx", "write", "--mode", "yolo")
    assert done.returncode == 1, done.stderr
    assert "LLM error: the stream from openai/cx was cut before its end" in done.stdout
    assert "on each of 3 attempts" in done.stdout and "none of its tool calls ran" in done.stdout
    assert (ws / "app.py").read_text() == "x = 1\n" and not (ws / "new.py").exists()
    assert scripted.remaining("cx") == 1


def test_no_tty_refuses_sensitive_tools_instead_of_hanging(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "tty", tool_call("write_file", {"path": "app.py", "content": "x = 2\n"}), text("tried")
    )
    done = agentls(ws, scripted, "tty", "change x", "--mode", "confirm-sensitive")
    assert done.returncode == 0
    assert (ws / "app.py").read_text() == "x = 1\n"
    told = scripted.requests_for("tty")[1].messages[-1]["content"]
    assert "rejected" in told and "no terminal" in told


def test_bad_config_is_a_clear_error(ws: Path, scripted: ScriptedModelServer) -> None:
    (ws / ".agentls.yaml").write_text("llm:\n  timout: 3\n")
    done = agentls(ws, scripted, "cfg", "x")
    assert done.returncode == 1
    assert "llm.timout: extra field not permitted in .agentls.yaml" in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_agent_lists_known_ones(ws: Path, scripted: ScriptedModelServer) -> None:
    done = agentls(ws, scripted, "ag", "x", "--agent", "nope")
    assert done.returncode == 1 and "known agents: build" in done.stdout


def test_first_ctrl_c_stops_after_the_step_and_exits_130(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("int", text("slow " * 400, chunk_delay=0.05), text("never"))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentls.cli",
            "run",
            "x",
            "--workspace",
            str(ws),
            "--model",
            "openai/int",
            "--api-base",
            scripted.api_base,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )
    assert proc.stderr is not None
    seen = read_until(proc.stderr, "slow slow")  # the model is streaming: a step is under way
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    err = seen + err
    assert proc.returncode == 130, err
    assert "interrupted" in out.lower()
    assert "Traceback" not in err


def test_approve_deny_modify_abort_on_a_terminal(ws: Path, scripted: ScriptedModelServer) -> None:
    """A real pseudo-terminal answers the CLI's questions: deny, modify, abort."""
    import pty

    explain = text("Writes one line to a file.")  # a short model call explains first
    scripted.add(
        "pty",
        tool_call("execute_command", {"command": "echo first > out1.txt"}),
        explain,
        tool_call("execute_command", {"command": "echo wrong > out2.txt"}),
        explain,
        tool_call("execute_command", {"command": "echo never > out3.txt"}),
        explain,
        text("unreachable"),
    )
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentls.cli",
            "run",
            "go",
            "--workspace",
            str(ws),
            "--model",
            "openai/pty",
            "--api-base",
            scripted.api_base,
        ],
        stdin=child,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        text=True,
    )
    os.close(child)

    assert proc.stderr is not None
    seen = read_until(proc.stderr, "Allow? [")
    os.write(main, b"n\n")  # deny the first command
    seen += read_until(proc.stderr, "Allow? [")
    os.write(main, b"m\necho right > out2.txt\n.\n")  # modify the second
    seen += read_until(proc.stderr, "Allow? [")
    os.write(main, b"q\n")  # abort on the third
    out, err = proc.communicate(timeout=90)
    err = seen + err
    os.close(main)
    assert proc.returncode == 2, err
    assert not (ws / "out1.txt").exists()
    assert (ws / "out2.txt").read_text().strip() == "right"
    assert not (ws / "out3.txt").exists()
    told = [r.messages[-1]["content"] for r in scripted.requests_for("pty")[2:5:2]]
    assert "denied" in told[0]
    assert "modified" in told[1] and "echo right" in told[1]
    assert "aborted" in out.lower()
    assert "Writes one line to a file." in err  # the explanation was shown before asking
