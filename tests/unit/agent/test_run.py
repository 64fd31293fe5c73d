"""run_agent: agents, mixed mode and self-evaluation, composed from real parts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.agents import AgentRegistry
from agentls.agent.config.models import AppConfig
from agentls.agent.errors import AgentNotFoundError
from agentls.agent.events import AgentEvent, StreamText
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.workspace import DiskFileAccess


def config_for(ws: Path, server: ScriptedModelServer, model: str, **extra: Any) -> AppConfig:
    data = {
        "workspace": {"root": str(ws)},
        "llm": {"model": f"openai/{model}", "api_base": server.api_base},
    }
    data.update(extra)
    return AppConfig.model_validate(data)


async def run(
    ws: Path, config: AppConfig, events: list[AgentEvent] | None = None, **request: Any
) -> Any:
    sink = events if events is not None else []
    return await run_agent(
        RunRequest(**request),
        FrontEnd(DiskFileAccess(ws), DenyingApprover("test"), observer=sink.append),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def test_registry_defaults_custom_and_unknown() -> None:
    config = AppConfig.model_validate(
        {"agents": {"docs": {"system_prompt": "Write docs.", "allowed_tools": ["read_file"]}}}
    )
    registry = AgentRegistry(config)
    assert {"build", "plan", "review", "mixed", "docs"} <= set(registry.names())
    assert {a.name: a.read_only for a in registry.list()}["plan"] is True
    assert registry.get("docs").allowed_tools == ["read_file"]
    known = "known agents: build, docs, explore, plan, review, mixed"
    with pytest.raises(AgentNotFoundError, match=known):
        registry.get("nope")


async def test_plan_agent_cannot_write(tmp_path: Path, scripted: ScriptedModelServer) -> None:
    scripted.add("pl", tool_call("write_file", {"path": "x.txt", "content": "no"}), text("planned"))
    outcome = await run(
        tmp_path,
        config_for(tmp_path, scripted, "pl"),
        prompt="p",
        agent="plan",
        confirm_mode="yolo",
    )
    assert outcome.state.status == "success" and not (tmp_path / "x.txt").exists()
    sent = {t["function"]["name"] for t in scripted.requests_for("pl")[0].body["tools"]}
    assert "write_file" not in sent and "read_file" in sent
    told = scripted.requests_for("pl")[1].messages[-1]["content"]
    assert "not allowed" in told


async def test_mixed_mode_plans_without_streaming_then_builds_with_the_plan(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "mx",
        text("1. Create hello.txt"),
        tool_call("write_file", {"path": "hello.txt", "content": "hi\n"}),
        text("built"),
    )
    events: list[AgentEvent] = []
    outcome = await run(
        tmp_path,
        config_for(tmp_path, scripted, "mx"),
        events,
        prompt="make hello",
        agent="mixed",
        confirm_mode="yolo",
    )
    assert outcome.state.status == "success" and (tmp_path / "hello.txt").read_text() == "hi\n"
    plan_req, build_req = scripted.requests_for("mx")[0], scripted.requests_for("mx")[1]
    assert plan_req.body.get("stream") is not True  # the plan phase does not stream
    assert build_req.body.get("stream") is True
    assert "1. Create hello.txt" in build_req.messages[1]["content"]
    assert "planning mode" in plan_req.messages[0]["content"]
    streamed = "".join(e.text for e in events if isinstance(e, StreamText))
    assert "1. Create hello.txt" not in streamed


async def test_self_eval_basic_downgrades_to_partial(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "ev",
        text("done"),
        text(
            '{"completed": false, "confidence": 0.3, '
            '"issues": ["no tests"], "suggestion": "add tests"}'
        ),
    )
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "ev"), prompt="task", self_eval="basic"
    )
    assert outcome.state.status == "partial"
    eval_request = scripted.requests_for("ev")[1]
    assert "tools" not in eval_request.body or not eval_request.body["tools"]
    assert "task" in eval_request.messages[-1]["content"]


async def test_self_eval_full_retries_with_a_correction(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "full",
        text("first try"),
        text(
            '{"completed": false, "confidence": 0.2, '
            '"issues": ["missing file"], "suggestion": "create it"}'
        ),
        text("second try"),
        text('{"completed": true, "confidence": 0.95, "issues": [], "suggestion": ""}'),
    )
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "full"), prompt="task", self_eval="full"
    )
    assert outcome.state.final_output == "second try" and outcome.state.status == "success"
    correction = scripted.requests_for("full")[2].messages[1]["content"]
    assert "missing file" in correction


async def test_result_shape(tmp_path: Path, scripted: ScriptedModelServer) -> None:
    scripted.add("rs", text("ok"))
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "rs"), prompt="x", run_id="r1", session_id="s1"
    )
    result = outcome.to_result()
    assert result["runId"] == "r1" and result["sessionId"] == "s1"
    assert set(result["usage"]) == {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cached_tokens",
    }
    assert result["status"] == "success"


async def test_unknown_agent_is_a_failed_run_not_a_traceback(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    outcome = await run(tmp_path, config_for(tmp_path, scripted, "na"), prompt="x", agent="ghost")
    assert outcome.state.status == "failed" and "known agents" in (outcome.state.final_output or "")
