"""The context meter: how full the model's context is as each model call starts, counted
by the model access's own counter, and what a compaction kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.agent.config.models import AppConfig
from agentls.agent.context.meter import compaction_text, meter_text, tokens
from agentls.agent.events import AgentEvent, ContextCompacted, ContextMeasured
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.workspace import DiskFileAccess


def test_the_meter_in_words() -> None:
    assert tokens(950) == "950" and tokens(12_345) == "12.3k" and tokens(128_000) == "128k"
    assert meter_text(ContextMeasured(2, 12_345, 32_000)) == "12.3k / 32.0k tokens (39 %)"
    words = compaction_text(ContextCompacted(5, 40, 12, 30_100, 9_800))
    assert "40 → 12 messages" in words and "30.1k → 9.8k tokens" in words


async def run(ws: Path, scripted: ScriptedModelServer, model: str, **context: Any) -> Any:
    config = AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": f"openai/{model}", "api_base": scripted.api_base},
            "context": context,
        }
    )
    events: list[AgentEvent] = []
    llm = LiteLLMAdapter(config.llm)
    await run_agent(
        RunRequest(prompt="read them", confirm_mode="yolo"),
        FrontEnd(DiskFileAccess(ws), DenyingApprover("t"), observer=events.append),
        config=config,
        llm=llm,
    )
    return events, llm


async def test_each_model_call_is_measured_with_the_models_own_count(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n" * 200)
    scripted.add("cm1", tool_call("read_file", {"path": "a.py"}), text("read"))
    events, llm = await run(tmp_path, scripted, "cm1", max_context_tokens=50_000)
    meters = [e for e in events if isinstance(e, ContextMeasured)]
    assert [m.step for m in meters] == [1, 2]
    assert all(m.limit == 50_000 for m in meters)
    sent = [r.messages for r in scripted.requests_for("cm1")]
    assert [m.used for m in meters] == [await llm.count_tokens(s) for s in sent]
    assert meters[1].used > meters[0].used  # the file's text joined the conversation


async def test_a_compaction_says_what_it_kept(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(f"value_{index} = {index}\n" * 150)

    def answer(body: dict[str, Any]) -> Turn:
        last = str((body.get("messages") or [{}])[-1].get("content"))
        if "summar" in last.lower():
            return text("Summary: read m0 to m3.")
        reads = sum(1 for m in body["messages"] if m.get("role") == "tool")
        if reads < 6:
            return tool_call("read_file", {"path": f"m{reads}.py"})
        return text("read them all")

    scripted.add("cm2", *([answer] * 20))
    events, _ = await run(
        tmp_path, scripted, "cm2", max_context_tokens=4000, compact_at=0.6, compact_to=0.3
    )
    compactions = [e for e in events if isinstance(e, ContextCompacted)]
    assert compactions, [type(e).__name__ for e in events]
    first = compactions[0]
    assert first.messages_after < first.messages_before
    assert first.tokens_after < first.tokens_before
