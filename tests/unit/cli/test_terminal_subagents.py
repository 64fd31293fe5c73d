"""A subagent's work in the terminal: its tool calls indented under the run's ``delegate``
line with its name, its end with status and tokens; its questions and changes name it."""

from __future__ import annotations

import io
from pathlib import Path

from agentls.agent import events
from agentls.agent.policy.approval import ApprovalRequest, EditRequest
from agentls.agent.workspace import DiskFileAccess, FileChange
from agentls.cli.terminal import TerminalApprover, TerminalAsker, TerminalObserver


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def child(event: events.AgentEvent) -> events.SubagentEvent:
    return events.SubagentEvent("d1", "explore", event)


def test_a_subagents_steps_are_printed_under_the_delegate_line() -> None:
    out = io.StringIO()
    observer = TerminalObserver(out)
    args = {"agent": "explore", "task": "find foo", "wait": True}
    observer(events.ToolStarted(3, 20, "d1", "delegate", args))
    observer(events.SubagentStarted("d1", "explore", "find foo", "openai/small"))
    observer(child(events.StepStarted(1, 10)))
    observer(child(events.ToolStarted(1, 10, "d1/c1", "grep", {"pattern": "foo"})))
    observer(child(events.ToolFinished(1, 10, "d1/c1", "grep", {"pattern": "foo"}, True, "3 hits")))
    observer(child(events.ToolFinished(2, 10, "d1/c2", "read_file", {"path": "b.py"}, False, "")))
    observer(events.Notice("warning", "[explore] the index is stale"))
    observer(
        events.SubagentFinished("d1", "explore", "success", "foo is in a.py", 2, 1000, 234, 1234)
    )
    observer(events.ToolFinished(3, 20, "d1", "delegate", args, True, "foo is in a.py"))
    assert out.getvalue().splitlines() == [
        "▶ step 3/20 delegate agent=explore task=find foo wait=True",
        "  ↳ explore (openai/small) started: find foo",
        "  explore › grep pattern=foo ✓ 3 hits",
        "  explore › read_file path=b.py ✗",
        "[warning] [explore] the index is stale",
        "  ✓ explore success: 2 steps · 1,234 tokens (1,000 in, 234 out)",
        "  ✓ delegate: foo is in a.py",
    ]


def test_a_background_subagent_and_one_that_failed() -> None:
    out = io.StringIO()
    observer = TerminalObserver(out)
    observer(events.SubagentStarted("d1", "review", "look", "", background=True))
    observer(events.SubagentFinished("d1", "review", "failed", "", 1, 10, 2, 12))
    assert out.getvalue().splitlines() == [
        "  ↳ review started in the background: look",
        "  ✗ review failed: 1 step · 12 tokens (10 in, 2 out)",
    ]


def test_quiet_prints_nothing_of_a_subagent() -> None:
    out = io.StringIO()
    observer = TerminalObserver(out, quiet=True)
    observer(events.SubagentStarted("d1", "explore", "find foo", "m"))
    observer(child(events.ToolFinished(1, 10, "d1/c1", "grep", {"pattern": "foo"}, True, "")))
    assert out.getvalue() == ""


async def test_a_subagents_question_names_it() -> None:
    shown = io.StringIO()
    approver = TerminalApprover(TerminalAsker(stdin=Tty("y\n"), stderr=shown))
    request = ApprovalRequest(
        "r1", "d1/c1", "execute_command", {"command": "ls"}, "it runs a command", subagent="explore"
    )
    answer = await approver.ask(request)
    assert answer.kind == "approve"
    assert "The subagent explore wants to run execute_command (it runs a command)." in (
        shown.getvalue()
    )


async def test_a_subagents_change_names_it_and_the_runs_own_does_not(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    shown = io.StringIO()
    asker = TerminalAsker(stdin=Tty("y\nn\n"), stderr=shown)
    approver = TerminalApprover(asker)
    files = DiskFileAccess(tmp_path, confirmer=asker.confirm_edit)
    change = FileChange("a.py", new_text="b\n", base_text="a\n")
    mine = EditRequest("r1", "d1/c1", "edit_file", [change], subagent="explore")
    outcome = await approver.confirm_edit(mine, files)
    assert outcome.status == "applied" and (tmp_path / "a.py").read_text() == "b\n"
    again = FileChange("a.py", new_text="c\n", base_text="b\n")
    await approver.confirm_edit(EditRequest("r1", "c2", "edit_file", [again]), files)
    asked = [line for line in shown.getvalue().splitlines() if "Apply this change" in line]
    assert asked[0].startswith("Apply this change (the subagent explore's) to a.py (+1 -1)?")
    assert asked[1].startswith("Apply this change to a.py (+1 -1)?")
