"""update_plan and ask_user through the engine, and through a whole run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.errors import NoTTYError
from agentls.agent.events import AgentEvent, PlanStep, PlanUpdated, RunState, StatusChanged
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.models import ToolCall
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import BaseApprover, DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.sessions.store import SessionStore
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess

AGENT = AgentConfig(system_prompt="test", confirm_mode="confirm-sensitive", max_steps=5)  # type: ignore[call-arg]


class _Asking(BaseApprover):
    """Answers ask_user through ``answer``; refuses tool approvals like DenyingApprover."""

    def __init__(self, answer: Callable[[str], Awaitable[str | None]]) -> None:
        self.answer = answer

    async def ask_user(self, question: str) -> str | None:
        return await self.answer(question)


def _engine(ws: Path, **run: Any) -> ExecutionEngine:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}})
    return ExecutionEngine(build_registry(), RunContext(DiskFileAccess(ws), config, **run))


async def test_update_plan_reports_the_plan_and_is_not_sensitive(tmp_path: Path) -> None:
    events: list[AgentEvent] = []
    engine = _engine(tmp_path, observer=events.append)
    args = {
        "goal": "ship it",
        "steps": [{"text": "write", "status": "done"}, {"text": "test", "status": "in_progress"}],
    }
    # confirm-sensitive, and the engine's approver denies everything: a plan never asks.
    result = await engine.execute_tool_call(
        ToolCall(id="c1", name="update_plan", arguments=args), AGENT
    )
    assert result.result.success, result.result.output
    assert "1/2 steps done" in result.result.output and "In progress: test" in result.result.output
    assert events == [
        PlanUpdated("ship it", [PlanStep("write", "done"), PlanStep("test", "in_progress")])
    ]


async def test_update_plan_rejects_unknown_statuses(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    bad = {"goal": "g", "steps": [{"text": "x", "status": "maybe"}]}
    result = await engine.execute_tool_call(
        ToolCall(id="c", name="update_plan", arguments=bad), AGENT
    )
    assert not result.result.success and "steps.0.status" in result.result.output


async def test_ask_user_waits_in_awaiting_human_and_returns_the_answer(tmp_path: Path) -> None:
    states: list[RunState] = []
    asked: list[str] = []

    async def ask(question: str) -> str | None:
        asked.append(question)
        assert states[-1] == RunState.AWAITING_HUMAN
        return "  blue  "

    engine = _engine(tmp_path, approver=_Asking(ask), set_state=states.append)
    call = ToolCall(id="c", name="ask_user", arguments={"question": "Which colour?"})
    result = await engine.execute_tool_call(call, AGENT)
    assert result.result.success and result.result.output == "The user answered: blue"
    assert asked == ["Which colour?"]
    assert states == [RunState.AWAITING_HUMAN, RunState.TOOL_RUNNING]


async def test_ask_user_without_anyone_to_ask_is_a_clear_tool_error(tmp_path: Path) -> None:
    async def no_tty(question: str) -> str | None:
        raise NoTTYError("no terminal")

    call = ToolCall(id="c", name="ask_user", arguments={"question": "?"})
    for approver in (DenyingApprover("nobody"), _Asking(no_tty)):
        result = await _engine(tmp_path, approver=approver).execute_tool_call(call, AGENT)
        assert not result.result.success
        assert "Nobody can be asked" in result.result.output


async def test_ask_user_with_no_answer_tells_the_model_to_assume(tmp_path: Path) -> None:
    async def silent(question: str) -> str | None:
        return None

    call = ToolCall(id="c", name="ask_user", arguments={"question": "?"})
    result = await _engine(tmp_path, approver=_Asking(silent)).execute_tool_call(call, AGENT)
    assert result.result.success and "no answer" in result.result.output


async def test_a_run_plans_asks_and_stores_both(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    plan = {"goal": "greet", "steps": [{"text": "ask the name", "status": "in_progress"}]}
    scripted.add(
        "pl",
        tool_call("update_plan", plan),
        tool_call("ask_user", {"question": "Your name?"}),
        text("Hello Ada"),
    )
    config = AppConfig.model_validate(
        {
            "workspace": {"root": str(tmp_path)},
            "indexer": {"enabled": False},
            "llm": {"model": "openai/pl", "api_base": scripted.api_base, "retries": 0},
        }
    )
    events: list[AgentEvent] = []

    async def ask(question: str) -> str | None:
        return "Ada"

    outcome = await run_agent(
        RunRequest(prompt="greet me", session_id="p1"),
        FrontEnd(DiskFileAccess(tmp_path), _Asking(ask), observer=events.append),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )
    assert outcome.state.status == "success" and outcome.state.final_output == "Hello Ada"
    assert [e.goal for e in events if isinstance(e, PlanUpdated)] == ["greet"]
    states = [e.state for e in events if isinstance(e, StatusChanged)]
    assert RunState.AWAITING_HUMAN in states
    assert "The user answered: Ada" in scripted.requests_for("pl")[2].messages[-1]["content"]
    entries = SessionStore(tmp_path / ".agentls" / "sessions").open("p1").entries
    [stored_plan] = [e for e in entries if e.type == "plan"]
    assert stored_plan.goal == "greet"  # type: ignore[union-attr]
    # The answer is a human decision like any other: recorded through the approval point.
    [asked] = [e for e in entries if e.type == "approval_decision"]
    assert (asked.tool, asked.decision, asked.run_id) == ("ask_user", "answered", outcome.run_id)  # type: ignore[union-attr]
    assert asked.args == {"question": "Your name?", "answer": "Ada"}  # type: ignore[union-attr]
