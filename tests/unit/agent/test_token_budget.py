"""A run's token budget: a step that would go on past it is not taken."""

from __future__ import annotations

from pathlib import Path

from agentls.agent.config.models import AppConfig
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.workspace import DiskFileAccess


async def test_the_run_stops_partial_once_its_budget_is_spent(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    scripted.add(
        "tb",
        tool_call("read_file", {"path": "a.py"}),
        tool_call("read_file", {"path": "a.py"}),
        text("never reached"),
    )
    config = AppConfig.model_validate(
        {
            "workspace": {"root": str(tmp_path)},
            "llm": {"model": "openai/tb", "api_base": scripted.api_base},
        }
    )
    outcome = await run_agent(
        RunRequest(prompt="read", token_budget=1),
        FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("t")),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )
    assert outcome.state.status == "partial"
    assert "its budget is 1" in str(outcome.state.final_output)
    assert len(scripted.requests_for("tb")) == 1
