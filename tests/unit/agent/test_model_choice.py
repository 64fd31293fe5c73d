"""Choosing a run's model, from real parts: the scripted model server over litellm (it
records which model each request named), the disk, the session files.

The order: the run's ``model`` > the session's ``/model`` > the agent's ``model`` >
``llm.model``; in mixed mode the planner and the builder each answer on their own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agentls.agent.config.loader import load, validate_config
from agentls.agent.config.models import AppConfig
from agentls.agent.events import AgentEvent, Notice, RunState, StatusChanged
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunOutcome, RunRequest, run_agent
from agentls.agent.sessions.entries import AssistantMessage, ModelChoiceEntry, RunStartEntry
from agentls.agent.sessions.store import store_for
from agentls.agent.workspace import DiskFileAccess


def config_for(ws: Path, server: ScriptedModelServer, model: str, **more: Any) -> AppConfig:
    return validate_config(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": f"openai/{model}", "api_base": server.api_base, "retries": 0},
            **more,
        },
        "the test",
    )


async def run(
    ws: Path, config: AppConfig, events: list[AgentEvent] | None = None, **request: Any
) -> RunOutcome:
    """One run as a front end makes it: a fresh FrontEnd (nothing kept between runs but
    the session files), model access through ``llm_for`` like the CLI's and ACP's."""
    sink = events if events is not None else []
    return await run_agent(
        RunRequest(**request),
        FrontEnd(
            DiskFileAccess(ws),
            DenyingApprover("test"),
            observer=sink.append,
            llm_for=lambda c: LiteLLMAdapter(c.llm),
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def asked(scripted: ScriptedModelServer, queue: str) -> list[str]:
    """The model each request to ``queue`` named."""
    return [str(r.body["model"]) for r in scripted.requests_for(queue)]


def entries(ws: Path, config: AppConfig, session_id: str) -> list[Any]:
    return store_for(ws, config.sessions.dir).open(session_id).entries


def headers(events: list[AgentEvent]) -> list[str | None]:
    """The models the run's header named, as each loop started."""
    return [e.model for e in events if isinstance(e, StatusChanged) and e.model]


async def test_model_switches_the_sessions_next_requests_and_the_session_records_both(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("mc-first", text("one"))
    scripted.add("mc-second", text("two"))
    config = config_for(tmp_path, scripted, "mc-first")

    first = await run(tmp_path, config, prompt="hi", session_id="s1")
    shown = await run(tmp_path, config, prompt="/model", session_id="s1")
    switched = await run(tmp_path, config, prompt="/model openai/mc-second", session_id="s1")
    events: list[AgentEvent] = []
    second = await run(tmp_path, config, events, prompt="again", session_id="s1")

    assert first.to_result()["model"] == "openai/mc-first"
    assert "openai/mc-first" in (shown.state.final_output or "")
    assert "agentls models" in (shown.state.final_output or "")
    assert switched.state.status == "success" and switched.state.model == "openai/mc-second"
    assert "openai/mc-second" in (switched.state.final_output or "")
    # /model itself calls no model; the next request carries the new one.
    assert asked(scripted, "mc-first") == ["mc-first"]
    assert asked(scripted, "mc-second") == ["mc-second"]
    assert second.to_result()["model"] == "openai/mc-second"
    assert headers(events) == ["openai/mc-second"]
    # The second request continued the conversation of the first.
    assert any(m.get("content") == "one" for m in scripted.requests_for("mc-second")[0].messages)
    stored = entries(tmp_path, config, "s1")
    answers = [e.model for e in stored if isinstance(e, AssistantMessage)]
    assert answers == ["openai/mc-first", "openai/mc-second"]
    assert [e.model for e in stored if isinstance(e, RunStartEntry)] == answers
    assert [e.model for e in stored if isinstance(e, ModelChoiceEntry)] == ["openai/mc-second"]


async def test_model_default_goes_back_and_a_prompt_after_the_id_is_refused(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("md-base", text("back"))
    config = config_for(tmp_path, scripted, "md-base")
    await run(tmp_path, config, prompt="/model openai/md-other", session_id="s2")
    refused = await run(tmp_path, config, prompt="/model openai/md-x fix it", session_id="s2")
    assert refused.state.status == "failed"
    assert "one model id" in (refused.state.final_output or "")
    back = await run(tmp_path, config, prompt="/model default", session_id="s2")
    assert "openai/md-base" in (back.state.final_output or "")
    done = await run(tmp_path, config, prompt="go", session_id="s2")
    assert done.state.status == "success"
    assert asked(scripted, "md-base") == ["md-base"]
    assert not scripted.requests_for("md-other") and not scripted.requests_for("md-x")


async def test_the_runs_model_wins_over_the_sessions_which_wins_over_the_agents(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    for queue in ("pr-agent", "pr-session", "pr-run"):
        scripted.add(queue, text(queue))
    config = config_for(
        tmp_path, scripted, "pr-config", agents={"build": {"model": "openai/pr-agent"}}
    )
    await run(tmp_path, config, prompt="a", session_id="s3")
    await run(tmp_path, config, prompt="/model openai/pr-session", session_id="s3")
    await run(tmp_path, config, prompt="b", session_id="s3")
    outcome = await run(tmp_path, config, prompt="c", session_id="s3", model="openai/pr-run")
    assert asked(scripted, "pr-agent") == ["pr-agent"]
    assert asked(scripted, "pr-session") == ["pr-session"]
    assert asked(scripted, "pr-run") == ["pr-run"]
    assert not scripted.requests_for("pr-config")
    assert outcome.to_result()["model"] == "openai/pr-run"


async def test_in_mixed_mode_the_planner_and_the_builder_answer_on_their_agents_models(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("mx-plan", tool_call("read_file", {"path": "app.py"}), text("1. Change x."))
    scripted.add("mx-build", tool_call("read_file", {"path": "app.py"}), text("Changed."))
    (tmp_path / "app.py").write_text("x = 1\n")
    config = config_for(
        tmp_path,
        scripted,
        "mx-default",
        agents={"plan": {"model": "openai/mx-plan"}, "build": {"model": "openai/mx-build"}},
    )
    events: list[AgentEvent] = []
    outcome = await run(tmp_path, config, events, prompt="do it", agent="mixed", session_id="s4")

    assert outcome.state.status == "success", outcome.state.final_output
    assert asked(scripted, "mx-plan") == ["mx-plan", "mx-plan"]
    assert asked(scripted, "mx-build") == ["mx-build", "mx-build"]
    assert not scripted.requests_for("mx-default")
    assert "1. Change x." in scripted.requests_for("mx-build")[0].messages[-1]["content"]
    assert headers(events) == ["openai/mx-plan", "openai/mx-build"]
    assert outcome.to_result()["model"] == "openai/mx-build"  # the last answer's
    assert [step.model for step in outcome.state.steps] == ["openai/mx-build"]
    stored = entries(tmp_path, config, "s4")
    answers = [e.model for e in stored if isinstance(e, AssistantMessage)]
    assert answers == ["openai/mx-plan"] * 2 + ["openai/mx-build"] * 2
    assert [e.model for e in stored if isinstance(e, RunStartEntry)] == ["openai/mx-plan"]


async def test_a_front_end_that_cannot_switch_models_says_so_and_keeps_its_own(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("ns-own", text("kept"))
    config = config_for(tmp_path, scripted, "ns-own")
    events: list[AgentEvent] = []
    outcome = await run_agent(
        RunRequest(prompt="hi", model="openai/ns-other"),
        FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("test"), observer=events.append),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )
    assert outcome.state.status == "success"
    assert asked(scripted, "ns-own") == ["ns-own"] and not scripted.requests_for("ns-other")
    warnings = [e.message for e in events if isinstance(e, Notice)]
    assert any("cannot switch models" in w and "openai/ns-other" in w for w in warnings)
    assert any(
        isinstance(e, StatusChanged) and e.state == RunState.PREPARING and e.model for e in events
    )


def test_an_untrusted_folder_cannot_choose_an_agents_model_a_trusted_one_can(
    tmp_path: Path,
) -> None:
    (tmp_path / ".agentls.yaml").write_text(
        yaml.safe_dump({"agents": {"build": {"model": "openai/expensive"}}})
    )
    untrusted = load(tmp_path, trusted=False)
    assert untrusted.config.agents.get("build") is None or (
        untrusted.config.agents["build"].model is None
    )
    assert any(item.startswith("agents.build.model (") for item in untrusted.ignored)
    assert load(tmp_path, trusted=True).config.agents["build"].model == "openai/expensive"
