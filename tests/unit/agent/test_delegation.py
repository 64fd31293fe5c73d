"""Subagents (``delegate``) composed from real parts: runs of ``run_agent`` on the scripted
model server over litellm, a workspace on disk, a session file. Each agent answers on a
model of its own, so every request the server records says whose it is."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.cancel import CancelToken
from agentls.agent.config.models import AppConfig
from agentls.agent.events import (
    AgentEvent,
    SubagentEvent,
    SubagentFinished,
    SubagentStarted,
    ToolFinished,
    ToolStarted,
)
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    Turn,
    call,
    text,
    tool_call,
    tool_calls,
)
from agentls.agent.policy.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    BaseApprover,
    EditRequest,
)
from agentls.agent.run import FrontEnd, RunOutcome, RunRequest, run_agent
from agentls.agent.sessions.store import store_for
from agentls.agent.workspace import DiskFileAccess, EditOutcome, FileAccess

SECRET_LINE = "def needle():  # the line only the child reads"


def config_for(ws: Path, scripted: ScriptedModelServer, **extra: Any) -> AppConfig:
    data: dict[str, Any] = {
        "workspace": {"root": str(ws)},
        "llm": {"model": "openai/parent", "api_base": scripted.api_base},
        "agents": {
            "finder": {
                "system_prompt": "You are finder. Search and report.",
                "description": "Finds things.",
                "allowed_tools": ["read_file", "grep", "write_file"],
                "model": "openai/child",
            },
            "finder2": {
                "system_prompt": "You are finder2.",
                "allowed_tools": ["read_file", "grep"],
                "model": "openai/child2",
            },
            "writer": {
                "system_prompt": "You are writer.",
                "allowed_tools": ["read_file", "write_file"],
                "model": "openai/writer",
            },
            "writer2": {
                "system_prompt": "You are writer2.",
                "allowed_tools": ["read_file", "write_file"],
                "model": "openai/writer2",
            },
        },
    }
    data.update(extra)
    return AppConfig.model_validate(data)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text(SECRET_LINE + "\n")
    return ws


class Recording(BaseApprover):
    """Approves everything and keeps what it was asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []
        self.edits: list[EditRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return ApprovalAnswer("approve")

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        self.edits.append(request)
        return await files.apply(request.changes, confirm=False)


async def run(
    ws: Path,
    config: AppConfig,
    events: list[AgentEvent],
    *,
    prompt: str = "find the needle",
    agent: str = "build",
    approver: BaseApprover | None = None,
    cancel: CancelToken | None = None,
    session: str = "s",
) -> RunOutcome:
    return await run_agent(
        RunRequest(prompt=prompt, session_id=session, agent=agent),
        FrontEnd(
            DiskFileAccess(ws),
            approver or Recording(),
            observer=events.append,
            cancel=cancel,
            sessions=store_for(ws, config.sessions.dir),
            llm_for=lambda other: LiteLLMAdapter(other.llm),
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def tool_names(request: Any) -> list[str]:
    return sorted(t["function"]["name"] for t in request.body.get("tools") or [])


def texts(request: Any) -> str:
    return "\n".join(str(m.get("content")) for m in request.messages)


def of(events: Sequence[AgentEvent], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


async def test_a_child_works_in_its_own_context_and_the_parent_reads_only_its_report(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "finder", "task": "Where is needle defined?"}),
        text("needle is in a.py."),
    )
    scripted.add("child", tool_call("read_file", {"path": "a.py"}), text("needle: a.py line 1."))
    events: list[AgentEvent] = []

    outcome = await run(ws, config, events)

    assert outcome.state.status == "success"
    child = scripted.requests_for("child")
    assert len(child) == 2
    first = child[0].messages
    # A fresh conversation: the child's own prompt and the task, nothing of the parent's.
    assert first[0]["role"] == "system" and "You are finder." in first[0]["content"]
    assert "find the needle" not in texts(child[0])
    assert first[-1] == {"role": "user", "content": "Where is needle defined?"}
    # Its tools: its own (write_file too: the parent, build, has it), never delegate.
    assert tool_names(child[0]) == ["grep", "read_file", "write_file"]
    assert SECRET_LINE in texts(child[1])
    parent = scripted.requests_for("parent")
    assert "delegate" in tool_names(parent[0])
    assert "needle: a.py line 1." in texts(parent[1])
    assert SECRET_LINE not in texts(parent[1])
    started = of(events, SubagentStarted)
    assert [(s.agent, s.model, s.background) for s in started] == [
        ("finder", "openai/child", False)
    ]
    finished = of(events, SubagentFinished)
    assert [(f.agent, f.status, f.steps) for f in finished] == [("finder", "success", 2)]
    nested = [e.event for e in of(events, SubagentEvent)]
    steps = [e for e in nested if isinstance(e, ToolStarted | ToolFinished)]
    assert [e.tool for e in steps] == ["read_file", "read_file"]
    delegate_call = started[0].call_id
    assert all(e.call_id.startswith(delegate_call + "/") for e in steps)
    # The run's usage counts the child's tokens too.
    assert outcome.usage.total_tokens >= finished[0].total_tokens > 0
    entries = store_for(ws, config.sessions.dir).open("s").entries
    recorded = [e for e in entries if e.type == "subagent"]
    assert [(e.agent, e.status, e.model) for e in recorded] == [
        ("finder", "success", "openai/child")
    ]


async def test_a_child_never_has_more_tools_than_its_parent(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "finder", "task": "look"}),
        text("done"),
    )
    scripted.add("child", text("nothing"))

    outcome = await run(ws, config, [], agent="plan")

    assert outcome.state.status == "success"
    # plan is read-only: its child loses write_file.
    assert tool_names(scripted.requests_for("child")[0]) == ["grep", "read_file"]


async def test_an_unknown_agent_is_an_error_the_model_reads(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "nobody", "task": "look"}),
        tool_call("delegate", {"agent": "mixed", "task": "look"}),
        text("gave up"),
    )

    outcome = await run(ws, config, [])

    assert outcome.state.status == "success"
    second, third = scripted.requests_for("parent")[1:]
    assert "unknown agent 'nobody'" in texts(second) and "finder" in texts(second)
    assert "mixed is a mode" in texts(third)


async def test_read_only_children_run_at_once(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_calls(
            call("delegate", {"agent": "finder2", "task": "one"}),
            call("delegate", {"agent": "finder2", "task": "two"}),
        ),
        text("both done"),
    )
    # Each child reads a file, then reports: at least two model calls each.
    scripted.add(
        "child2",
        tool_call("read_file", {"path": "a.py"}),
        tool_call("read_file", {"path": "a.py"}),
        text("report"),
        text("report"),
    )
    events: list[AgentEvent] = []

    outcome = await run(ws, config, events)

    assert outcome.state.status == "success"
    lifecycle = [
        type(e).__name__ for e in events if isinstance(e, SubagentStarted | SubagentFinished)
    ]
    # The second started before the first ended: they worked at the same time.
    assert lifecycle[:2] == ["SubagentStarted", "SubagentStarted"]
    assert len(of(events, SubagentFinished)) == 2


async def test_children_that_edit_take_turns_and_their_edits_name_them(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_calls(
            call("delegate", {"agent": "writer", "task": "write one.txt"}),
            call("delegate", {"agent": "writer2", "task": "write two.txt"}),
        ),
        text("both written"),
    )
    scripted.add(
        "writer",
        tool_call("write_file", {"path": "one.txt", "content": "1\n"}),
        text("wrote one"),
    )
    scripted.add(
        "writer2",
        tool_call("write_file", {"path": "two.txt", "content": "2\n"}),
        text("wrote two"),
    )
    approver = Recording()

    outcome = await run(ws, config, [], approver=approver)

    assert outcome.state.status == "success"
    assert (ws / "one.txt").read_text() == "1\n" and (ws / "two.txt").read_text() == "2\n"
    order = [r.model for r in scripted.requests if r.model in ("writer", "writer2")]
    # One at a time: all of one child's calls, then all of the other's.
    assert order in (["writer"] * 2 + ["writer2"] * 2, ["writer2"] * 2 + ["writer"] * 2)
    assert sorted(e.subagent for e in approver.edits) == ["writer", "writer2"]
    assert all("/" in e.call_id for e in approver.edits)


async def test_a_child_in_the_background_reports_before_the_parent_ends(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "finder", "task": "look", "wait": False}),
        text("I will wait for finder."),
        text("finder says: found it."),
    )
    scripted.add("child", text("found it", delay=0.2))
    events: list[AgentEvent] = []

    outcome = await run(ws, config, events)

    assert outcome.state.status == "success"
    assert outcome.state.final_output == "finder says: found it."
    parent = scripted.requests_for("parent")
    assert "Started subagent finder in the background" in texts(parent[1])
    assert "found it" in str(parent[2].messages[-1]["content"])
    assert [s.background for s in of(events, SubagentStarted)] == [True]


async def test_stop_during_a_child_stops_the_child_and_the_run(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add("parent", tool_call("delegate", {"agent": "finder", "task": "look"}))
    events: list[AgentEvent] = []
    cancel = CancelToken()
    loop = asyncio.get_running_loop()

    def stop_as_the_child_asks(body: dict[str, Any]) -> Turn:
        # Called in the server's thread as the child's request arrives: Stop, from the loop.
        loop.call_soon_threadsafe(cancel.cancel, "stopped by the user")
        return text("too late", delay=30)

    scripted.add("child", stop_as_the_child_asks)
    outcome = await run(ws, config, events, cancel=cancel)

    assert outcome.state.status == "partial"
    assert "interrupted" in (outcome.state.final_output or "")
    finished = of(events, SubagentFinished)
    assert [f.status for f in finished] == ["partial"]
    assert len(scripted.requests_for("parent")) == 1


async def test_a_resumed_session_does_not_run_a_finished_child_again(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "finder", "task": "look"}),
        text("found"),
        text("as finder said: a.py"),
    )
    scripted.add("child", text("needle: a.py"))

    await run(ws, config, [])
    again = await run(ws, config, [], prompt="where was it?")

    assert again.state.status == "success"
    assert len(scripted.requests_for("child")) == 1
    assert "needle: a.py" in texts(scripted.requests_for("parent")[2])


@pytest.mark.parametrize("enabled", [False])
async def test_subagents_can_be_turned_off(
    tmp_path: Path, scripted: ScriptedModelServer, enabled: bool
) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted, subagents={"enabled": enabled})
    scripted.add("parent", text("ok"))

    await run(ws, config, [])

    assert "delegate" not in tool_names(scripted.requests_for("parent")[0])


def git(ws: Path, *args: str) -> str:
    import subprocess

    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=ws,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


async def test_a_child_with_a_worktree_of_its_own_leaves_the_users_tree_alone(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = workspace(tmp_path)
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "start")
    agents = {
        "apart": {
            "system_prompt": "You are apart.",
            "allowed_tools": ["read_file", "write_file"],
            "model": "openai/apart",
            "isolation": "worktree",
        }
    }
    config = config_for(ws, scripted, agents=agents)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "apart", "task": "add new.txt"}),
        text("done"),
    )
    scripted.add(
        "apart",
        tool_call("write_file", {"path": "new.txt", "content": "hello\n"}),
        text("wrote new.txt"),
    )
    approver = Recording()

    outcome = await run(ws, config, [], approver=approver)

    assert outcome.state.status == "success"
    assert not (ws / "new.txt").exists()
    report = texts(scripted.requests_for("parent")[1])
    assert "wrote new.txt" in report and "1 file(s), +1 -0" in report
    name = report.split("in worktree ")[1].split(" ")[0]
    # Written without a question: the user reviews the branch when applying it.
    assert approver.edits == []
    branch_files = git(ws, "worktree", "list")
    assert name in branch_files


async def test_a_childs_question_names_it(tmp_path: Path, scripted: ScriptedModelServer) -> None:
    ws = workspace(tmp_path)
    config = config_for(ws, scripted)
    scripted.add(
        "parent",
        tool_call("delegate", {"agent": "finder", "task": "look"}),
        text("done"),
    )
    scripted.add("child", tool_call("grep", {"pattern": "needle"}), text("found"))
    approver = Recording()

    outcome = await run_agent(
        RunRequest(prompt="find", session_id="s", confirm_mode="confirm-all"),
        FrontEnd(
            DiskFileAccess(ws),
            approver,
            llm_for=lambda other: LiteLLMAdapter(other.llm),
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )

    assert outcome.state.status == "success"
    asked = [(r.tool, r.subagent) for r in approver.asked]
    assert asked == [("delegate", ""), ("grep", "finder")]
    child_question = approver.asked[1]
    assert child_question.explanation.startswith("The subagent finder wants")
    assert child_question.call_id.startswith(approver.asked[0].call_id + "/")
