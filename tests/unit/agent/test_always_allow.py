""" "Always allow" at a prompt: the rule is saved in the user config, keeps the user's
comments, counts at once, and never outranks an ask or deny rule."""

from __future__ import annotations

import asyncio
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
import yaml

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.config.user_rules import add_allow_rule
from agentls.agent.config.userdirs import user_config_file
from agentls.agent.errors import ConfigError
from agentls.agent.llm.models import ToolCall
from agentls.agent.policy.approval import ApprovalAnswer, ApprovalRequest, BaseApprover
from agentls.agent.sessions.recorder import RecordingApprover, SessionRecorder
from agentls.agent.sessions.store import SessionStore
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess
from agentls.cli.terminal import TerminalApprover, TerminalAsker

AGENT = AgentConfig(system_prompt="t", sandbox="off")  # confirm-sensitive


# -- the writer ---------------------------------------------------------------------------------
HAND_WRITTEN = """\
# my agentls settings
llm:
  model: openai/gpt-4o-mini   # the cheap one

commands:
  # things I trust
  allow:
  - 'ls*'
  - "git status*"
  deny: [rm -rf*]
"""


def test_a_saved_rule_keeps_the_users_comments_quotes_and_layout(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HAND_WRITTEN)
    assert add_allow_rule("pytest*", path)
    assert path.read_text() == HAND_WRITTEN.replace(
        '  - "git status*"\n', '  - "git status*"\n  - pytest*\n'
    )
    assert yaml.safe_load(path.read_text())["commands"]["allow"] == [
        "ls*",
        "git status*",
        "pytest*",
    ]


def test_a_rule_already_there_is_not_added_twice(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(HAND_WRITTEN)
    assert not add_allow_rule("ls*", path)
    assert path.read_text() == HAND_WRITTEN


def test_the_file_and_its_directory_are_created_when_missing(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "config.yaml"
    assert add_allow_rule("pytest*", path)
    assert yaml.safe_load(path.read_text()) == {"commands": {"allow": ["pytest*"]}}
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


def test_a_file_of_other_settings_gets_the_section(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("llm:\n    model: x   # four spaces\ncommands:\n    ask: [git push*]\n")
    os.chmod(path, 0o640)
    add_allow_rule("npm test*", path)
    assert path.read_text() == (
        "llm:\n    model: x   # four spaces\ncommands:\n    ask: [git push*]\n"
        "    allow:\n      - npm test*\n"
    )
    assert path.stat().st_mode & 0o777 == 0o640  # the user's mode is kept


@pytest.mark.parametrize("text", ["- a list\n", "commands: [x]\n", "commands:\n  allow: x\n"])
def test_a_file_of_another_shape_is_left_alone(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="not saved"):
        add_allow_rule("pytest*", path)
    assert path.read_text() == text
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == ["config.yaml"]


# -- through the engine -------------------------------------------------------------------------
class _Answers(BaseApprover):
    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


def _engine(ws: Path, approver: Any, **commands: list[str]) -> ExecutionEngine:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}, "commands": commands})
    return ExecutionEngine(
        build_registry(), RunContext(DiskFileAccess(ws), config, approver=approver)
    )


async def _run(engine: ExecutionEngine, command: str, call_id: str = "c1") -> Any:
    call = ToolCall(id=call_id, name="execute_command", arguments={"command": command})
    return await engine.execute_tool_call(call, AGENT)


async def test_always_allow_saves_the_proposed_rule_and_it_counts_at_once(tmp_path: Path) -> None:
    approver = _Answers(ApprovalAnswer("approve_always", rule="touch*"))
    engine = _engine(tmp_path, approver)
    assert (await _run(engine, "touch a")).result.success
    assert approver.asked[0].suggested_rule == "touch*"
    assert yaml.safe_load(user_config_file().read_text()) == {"commands": {"allow": ["touch*"]}}
    assert (await _run(engine, "touch b c", "c2")).result.success  # nobody asked
    assert len(approver.asked) == 1


async def test_a_saved_allow_rule_does_not_outrank_an_ask_or_deny_rule(tmp_path: Path) -> None:
    approver = _Answers(ApprovalAnswer("approve_always", rule="touch*"), ApprovalAnswer("deny"))
    engine = _engine(tmp_path, approver, ask=["touch b*"], deny=["touch c*"])
    assert (await _run(engine, "touch a")).result.success
    assert not (await _run(engine, "touch b", "c2")).result.success
    assert approver.asked[1].insist and approver.asked[1].suggested_rule is None
    denied = await _run(engine, "touch c", "c3")
    assert denied.result.output.startswith("Not allowed: `touch c` matches the deny rule")
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


async def test_only_the_proposed_rule_is_ever_saved(tmp_path: Path) -> None:
    approver = _Answers(ApprovalAnswer("approve_always", rule="*"))
    engine = _engine(tmp_path, approver)
    assert (await _run(engine, "touch a")).result.success  # approved once
    assert not user_config_file().exists()


async def test_no_rule_is_proposed_for_a_command_no_rule_should_cover(tmp_path: Path) -> None:
    approver = _Answers(ApprovalAnswer("approve"))
    engine = _engine(tmp_path, approver)
    assert (await _run(engine, "touch a && ls")).result.success
    assert approver.asked[0].suggested_rule is None


# -- the terminal, on a real pseudo-terminal ------------------------------------------------------
@pytest.fixture
def tty() -> Iterator[tuple[IO[str], int]]:
    """A pseudo-terminal: (the side the approver reads, the fd the "user" types into)."""
    main, side = os.openpty()
    with os.fdopen(side, "r") as stdin:
        yield stdin, main
    os.close(main)


REQUEST = ApprovalRequest(
    run_id="r",
    call_id="c1",
    tool="execute_command",
    args={"command": "pytest -q"},
    reason="execute_command is sensitive",
    preview="pytest -q",
    editable_arg="command",
    suggested_rule="pytest*",
)


async def _answer(tty: tuple[IO[str], int], typed: str, request: ApprovalRequest) -> Any:
    stdin, main = tty
    stderr = io.StringIO()
    approver = TerminalApprover(TerminalAsker(stdin=stdin, stderr=stderr))
    os.write(main, typed.encode())
    answer = await asyncio.wait_for(approver.ask(request), 10)
    return answer, stderr.getvalue()


async def test_the_terminal_offers_to_always_allow_the_rule(tty: Any) -> None:
    answer, shown = await _answer(tty, "s\n", REQUEST)
    assert answer == ApprovalAnswer("approve_always", rule="pytest*")
    assert "s = always allow `pytest*`: saved in your user config" in shown
    assert "[y = once / a = for this run / s = always / n = deny" in shown


async def test_the_terminal_offers_no_run_wide_answer_to_an_insisting_question(
    tty: Any,
) -> None:
    request = ApprovalRequest(
        run_id="r",
        call_id="c1",
        tool="execute_command",
        args={"command": "git push"},
        reason="`git push` matches the ask rule `git push*`",
        insist=True,
    )
    answer, shown = await _answer(tty, "a\n", request)
    assert answer.kind == "deny"
    assert "for this run" not in shown and "always" not in shown
    assert "matches the ask rule `git push*`" in shown


# -- the session records it ---------------------------------------------------------------------
async def test_the_session_records_the_rule_that_was_saved(tmp_path: Path) -> None:
    session = SessionStore(tmp_path).open("s1")
    recorder = SessionRecorder(session, "r")
    approver = RecordingApprover(
        _Answers(ApprovalAnswer("approve_always", rule="pytest*")), recorder
    )
    await approver.ask(REQUEST)
    [entry] = [json.loads(line) for line in session.path.read_text().splitlines()]
    assert (entry["type"], entry["decision"], entry["args"]) == (
        "approval_decision",
        "approve_always",
        {"rule": "pytest*"},
    )
