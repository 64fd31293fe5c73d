"""``agentls run --output-format stream-json`` as a program reads it: a real CLI process on
the scripted model server, each line of its stdout validated against the published
schema (``agent/schema/stream.schema.json``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from agentls_e2e import run_cli
from jsonschema import Draft202012Validator

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.cli.stream_schema import INPUT_SCHEMA_PATH, SCHEMA_PATH

pytestmark = pytest.mark.timeout(300)


def validated_lines(stdout: str) -> list[dict[str, Any]]:
    """Each line of ``stdout``, parsed and checked against the published schema."""
    validator = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    lines = [json.loads(line) for line in stdout.splitlines()]
    for line in lines:
        errors = [e.message for e in validator.iter_errors(line)]
        assert not errors, (line, errors)
    return lines


def _workspace(tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path) -> Path:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump({"llm": {"model": "openai/streamed", "api_base": scripted.api_base}})
    )
    ws = tmp_path / "repo"
    ws.mkdir()
    (ws / "notes.md").write_text("the notes\n")
    return ws


def _driven(ws: Path, *args: str, stderr: int) -> subprocess.Popen[str]:
    """``agentls run ARGS`` reading stdin and writing stdout as stream-json lines."""
    formats = ["--output-format", "stream-json", "--input-format", "stream-json"]
    return subprocess.Popen(
        [sys.executable, "-m", "agentls", "run", *args, *formats],
        cwd=ws,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )


def test_a_runs_stream_has_every_event_kind_and_each_line_fits_the_schema(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    ws = _workspace(tmp_path, scripted, user_config_dir)
    plan = {"goal": "say hi", "steps": [{"text": "look", "status": "in_progress"}]}
    scripted.add("streamed", tool_call("update_plan", plan, id="c1"))
    scripted.add("streamed", tool_call("execute_command", {"command": "echo hi"}, id="c2"))
    # The command's approval asks the model what it does, in plain words, unless that call
    # is slow: either way the run's answer is this text.
    scripted.add("streamed", text("All done: the notes say hi."))
    scripted.add("streamed", text("All done: the notes say hi."))

    ran = run_cli(
        ws,
        "run",
        "look at the notes",
        "--output-format",
        "stream-json",
        "--mode",
        "confirm-sensitive",
        "--attach",
        "notes.md",
        "--session",
        "st1",
    )

    lines = validated_lines(ran.stdout)
    assert ran.returncode == 0, ran.stderr
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "start" and kinds[-1] == "end" and kinds.count("end") == 1
    assert {line["version"] for line in lines} == {1}
    for kind in ("text", "tool_start", "tool_end", "approval_request", "approval_answer"):
        assert kind in kinds, kind
    for kind in ("plan", "usage", "notice", "status", "step"):
        assert kind in kinds, kind
    start, end = lines[0], lines[-1]
    assert start["sessionId"] == "st1" and start["agent"] == "build"
    assert end["exitCode"] == 0 and end["result"]["status"] == "success"
    assert end["result"]["output"] == "All done: the notes say hi."
    assert end["result"]["sessionId"] == "st1" and end["result"]["runId"] == start["runId"]
    streamed = "".join(line["text"] for line in lines if line["type"] == "text")
    assert "All done: the notes say hi." in streamed
    # Each tool call from its start to its end, in order; the command asked and denied
    # (no terminal to answer).
    by_call = {
        call: [line["type"] for line in lines if line.get("callId") == call]
        for call in ("c1", "c2")
    }
    assert by_call["c1"] == ["tool_start", "tool_end"]
    assert by_call["c2"] == ["tool_start", "approval_request", "approval_answer", "tool_end"]
    answer = next(line for line in lines if line["type"] == "approval_answer")
    assert answer["kind"] == "deny" and "no terminal" in answer["message"]
    ended = {line["callId"]: line for line in lines if line["type"] == "tool_end"}
    assert ended["c1"]["success"] and not ended["c2"]["success"]
    planned = next(line for line in lines if line["type"] == "plan")
    assert planned["goal"] == "say hi" and planned["steps"][0]["status"] == "in_progress"
    assert any(line["type"] == "notice" and "notes.md" in line["message"] for line in lines), kinds


def test_json_stays_an_alias_and_a_failed_run_ends_its_stream_with_exit_code_1(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    ws = _workspace(tmp_path, scripted, user_config_dir)
    scripted.add("streamed", text("plain answer"))
    as_json = run_cli(ws, "run", "hi", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["output"] == "plain answer"
    scripted.add("streamed", text("same again"))
    as_format = run_cli(ws, "run", "hi", "--output-format", "json")
    assert json.loads(as_format.stdout)["output"] == "same again"

    # No model answer queued: the scripted server fails the call; the stream still ends.
    failed = run_cli(ws, "run", "hi", "--output-format", "stream-json", "--model", "openai/gone")
    lines = validated_lines(failed.stdout)
    assert failed.returncode == 1
    assert lines[-1]["type"] == "end" and lines[-1]["exitCode"] == 1
    assert lines[-1]["result"]["status"] == "failed"


def _until(child: subprocess.Popen[str], kind: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """The next line of ``child``'s stream of type ``kind`` (the lines before it kept)."""
    assert child.stdout is not None
    for raw in child.stdout:
        line = json.loads(raw)
        seen.append(line)
        if line["type"] == kind:
            return line
    raise AssertionError(f"the stream ended before a {kind!r}: {[s['type'] for s in seen]}")


def _send(child: subprocess.Popen[str], **line: Any) -> None:
    """Writes ``line`` to the run's stdin, first checked against the published input schema."""
    schema = json.loads(INPUT_SCHEMA_PATH.read_text(encoding="utf-8"))
    assert not list(Draft202012Validator(schema).iter_errors(line)), line
    assert child.stdin is not None
    child.stdin.write(json.dumps(line) + "\n")
    child.stdin.flush()


def test_a_run_driven_through_stdin_takes_a_message_an_answer_and_an_approval(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    ws = _workspace(tmp_path, scripted, user_config_dir)
    scripted.add("streamed", tool_call("ask_user", {"question": "Which greeting?"}, id="a1"))
    scripted.add("streamed", tool_call("execute_command", {"command": "echo hi"}, id="c2"))
    # The approval's plain-words explanation (unless slow), then the answer: the same text.
    scripted.add("streamed", text("Said hello, and bye."))
    scripted.add("streamed", text("Said hello, and bye."))
    # No prompt on the command line: the run is driven through stdin from its first line.
    child = _driven(ws, "--session", "sd1", stderr=subprocess.PIPE)
    seen: list[dict[str, Any]] = []
    try:
        _send(child, type="user_message", text="greet")
        question = _until(child, "question", seen)
        assert question["question"] == "Which greeting?"
        # The message first: it waits in the run's mailbox when the answer lets it go on.
        _send(child, type="user_message", text="Also say bye.")
        _send(child, type="answer", questionId=question["questionId"], answer="hello")
        asked = _until(child, "approval_request", seen)
        assert asked["callId"] == "c2" and asked["preview"] == "echo hi"
        _send(child, type="approval_answer", callId="c2", kind="approve")
        _until(child, "end", seen)
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait(timeout=120) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        assert child.stderr is not None
        errors = child.stderr.read()
        child.stderr.close()
        assert child.stdout is not None
        child.stdout.close()
    validator = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    for line in seen:
        assert not list(validator.iter_errors(line)), line
    kinds = [line["type"] for line in seen]
    assert "messages_delivered" in kinds, errors
    answered = next(line for line in seen if line["type"] == "answer")
    assert answered == {
        "version": 1,
        "type": "answer",
        "runId": question["runId"],
        "questionId": question["questionId"],
        "answer": "hello",
    }
    approved = next(line for line in seen if line["type"] == "approval_answer")
    assert approved["kind"] == "approve"
    ran = next(line for line in seen if line["type"] == "tool_end" and line["callId"] == "c2")
    assert ran["success"], ran
    end = seen[-1]
    assert end["result"]["status"] == "success" and end["exitCode"] == 0
    assert end["result"]["output"] == "Said hello, and bye."
    assert next(line for line in seen if line["type"] == "start")["prompt"] == "greet"
    # The model heard both: the answer as the tool's result, the message as the user's.
    sent = json.dumps([r.messages for r in scripted.requests_for("streamed")])
    assert "hello" in sent and "Also say bye." in sent


def test_input_stream_json_needs_the_output_stream(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    ws = _workspace(tmp_path, scripted, user_config_dir)
    ran = run_cli(ws, "run", "hi", "--input-format", "stream-json")
    assert ran.returncode == 1 and "--output-format stream-json" in ran.stderr


def test_a_change_to_confirm_is_an_approval_of_the_stream_and_applied_when_approved(
    tmp_path: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    ws = _workspace(tmp_path, scripted, user_config_dir)
    scripted.add("streamed", tool_call("write_file", {"path": "hi.txt", "content": "hello\n"}))
    scripted.add("streamed", text("Wrote it."))
    child = _driven(ws, "write", "--mode", "confirm-all", stderr=subprocess.DEVNULL)
    seen: list[dict[str, Any]] = []
    try:
        assert child.stdout is not None
        # Every question of the run approved, as a program that trusts it would.
        for raw in child.stdout:
            line = json.loads(raw)
            seen.append(line)
            if line["type"] == "approval_request":
                _send(child, type="approval_answer", callId=line["callId"], kind="approve")
            if line["type"] == "end":
                break
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait(timeout=120) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        assert child.stdout is not None
        child.stdout.close()
    asked = [line for line in seen if line["type"] == "approval_request"]
    assert any("+hello" in line["preview"] for line in asked), asked
    assert [a["args"] for a in asked] == [{"paths": ["hi.txt"]}]
    assert (ws / "hi.txt").read_text() == "hello\n"
    assert seen[-1]["result"]["output"] == "Wrote it."


@pytest.mark.parametrize(
    ("flags", "stdin", "code", "said"),
    [
        ([], "", 2, "a prompt is needed"),
        (
            ["--output-format", "stream-json", "--input-format", "stream-json"],
            "",
            1,
            "stdin ended before the prompt",
        ),
        (
            ["--output-format", "stream-json", "--input-format", "stream-json"],
            '{"type": "answer", "questionId": "q", "answer": "x"}\n',
            1,
            "must be a user_message, not answer",
        ),
    ],
)
def test_a_run_without_a_prompt_says_where_it_was_expected(
    tmp_path: Path,
    scripted: ScriptedModelServer,
    user_config_dir: Path,
    flags: list[str],
    stdin: str,
    code: int,
    said: str,
) -> None:
    ws = _workspace(tmp_path, scripted, user_config_dir)
    done = subprocess.run(
        [sys.executable, "-m", "agentls", "run", *flags],
        cwd=ws,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == code, done.stderr
    assert said in done.stderr
    assert not scripted.requests
