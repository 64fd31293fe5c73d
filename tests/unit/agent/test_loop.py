"""AgentLoop against the scripted model server through litellm's real code path."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.cancel import CancelToken
from agentls.agent.config.models import AgentConfig, AppConfig, ContextConfig
from agentls.agent.context import ContextBuilder, ContextManager
from agentls.agent.events import (
    AgentEvent,
    RunState,
    StatusChanged,
    StreamText,
    ToolFinished,
    ToolStarted,
)
from agentls.agent.llm.scripted_server import (
    ScriptedModelServer,
    call,
    error,
    length,
    text,
    tool_call,
    tool_calls,
)
from agentls.agent.loop import AgentLoop
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess

AdapterFactory = Any


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"content of {name}\n")
    return tmp_path


class Recorder:
    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def states(self) -> list[RunState]:
        return [e.state for e in self.events if isinstance(e, StatusChanged)]


def make_loop(
    ws: Path,
    llm: Any,
    *,
    confirm_mode: str = "yolo",
    max_steps: int = 10,
    observer: Recorder | None = None,
    cancel: CancelToken | None = None,
    step_timeout: float = 0,
    context: ContextConfig | None = None,
    tree: Any = None,
) -> AgentLoop:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}})
    agent = AgentConfig(
        system_prompt="You are a test agent.", confirm_mode=confirm_mode, max_steps=max_steps
    )  # type: ignore[arg-type]
    engine = ExecutionEngine(
        build_registry(), RunContext(DiskFileAccess(ws), config, cancel=cancel)
    )
    ctx_config = context or ContextConfig()
    return AgentLoop(
        llm,
        engine,
        agent,
        ContextBuilder(ctx_config, tree=tree),
        observer=observer or Recorder(),
        cancel=cancel,
        step_timeout=step_timeout,
        context_manager=ContextManager(ctx_config),
    )


async def test_success_streams_and_reports_states(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, tool_call("read_file", {"path": "a.txt"}), text("All done here."))
    rec = Recorder()
    state = await make_loop(ws, llm, observer=rec, tree=lambda: "a.txt\nb.txt").run("read a")
    assert state.status == "success" and state.final_output == "All done here."
    assert "".join(e.text for e in rec.events if isinstance(e, StreamText)) == "All done here."
    assert rec.states() == [
        RunState.PREPARING,
        RunState.MODEL_RUNNING,
        RunState.TOOL_RUNNING,
        RunState.MODEL_RUNNING,
        RunState.COMPLETED,
    ]
    first, second = scripted.requests_for(name)
    assert first.body["messages"][0]["role"] == "system"
    assert "a.txt\nb.txt" in first.body["messages"][0]["content"]  # the tree is in the prompt
    assert first.body["messages"][1] == {"role": "user", "content": "read a"}
    tool_msg = second.body["messages"][-1]
    assert tool_msg["role"] == "tool" and "content of a.txt" in tool_msg["content"]
    assert state.to_output_dict()["tools_used"] == [
        {"name": "read_file", "args": {"path": "a.txt"}, "success": True}
    ]


async def test_news_waiting_at_the_start_goes_before_the_prompt_and_later_news_after(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, tool_call("read_file", {"path": "a.txt"}), text("ok"))
    news = [["The user reviewed your edits: kept."], [], ["Later: undone."]]
    loop = make_loop(ws, llm)
    loop.inbox = lambda: news.pop(0) if news else []
    await loop.run("go on", history=[{"role": "assistant", "content": "edited"}])
    first, second = scripted.requests_for(name)
    assert [(m["role"], m["content"]) for m in first.body["messages"][1:]] == [
        ("assistant", "edited"),
        ("user", "The user reviewed your edits: kept."),
        ("user", "go on"),
    ]
    assert second.body["messages"][-1] == {"role": "user", "content": "Later: undone."}


async def test_tool_schemas_filtered_by_allowed_tools(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, text("ok"))
    loop = make_loop(ws, llm)
    loop.agent_config = loop.agent_config.model_copy(
        update={"allowed_tools": ["read_file", "grep"]}
    )
    await loop.run("x")
    sent = {t["function"]["name"] for t in scripted.requests_for(name)[0].body["tools"]}
    assert sent == {"read_file", "grep"}


async def test_parallel_results_keep_the_models_order(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(
        name,
        tool_calls(
            call("read_file", {"path": "a.txt"}, "c1"),
            call("read_file", {"path": "b.txt"}, "c2"),
            call("read_file", {"path": "c.txt"}, "c3"),
        ),
        text("done"),
    )
    state = await make_loop(ws, llm).run("read all")
    assert state.status == "success"
    tool_messages = [
        m for m in scripted.requests_for(name)[1].body["messages"] if m["role"] == "tool"
    ]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2", "c3"]
    assert [m["content"].strip() for m in tool_messages] == [f"content of {n}.txt" for n in "abc"]


def test_should_parallelize_follows_the_confirm_mode(ws: Path) -> None:
    from agentls.agent.llm.models import ToolCall

    reads = [ToolCall(id="1", name="read_file"), ToolCall(id="2", name="grep")]
    writes = [ToolCall(id="1", name="read_file"), ToolCall(id="2", name="write_file")]
    assert make_loop(ws, None, confirm_mode="yolo")._should_parallelize(writes)
    assert make_loop(ws, None, confirm_mode="confirm-sensitive")._should_parallelize(reads)
    assert not make_loop(ws, None, confirm_mode="confirm-sensitive")._should_parallelize(writes)
    assert not make_loop(ws, None, confirm_mode="confirm-all")._should_parallelize(reads)
    off = make_loop(ws, None, confirm_mode="yolo")
    off.parallel_tools = False
    assert not off._should_parallelize(reads)


def test_parallel_asks_the_policy_per_call_allow_lists_included(ws: Path) -> None:
    from agentls.agent.llm.models import ToolCall

    def run(command: str, call_id: str) -> ToolCall:
        return ToolCall(id=call_id, name="execute_command", arguments={"command": command})

    loop = make_loop(ws, None, confirm_mode="confirm-sensitive")
    loop.agent_config.allowed_commands = ["echo *", "pytest*"]
    assert loop._should_parallelize([run("echo a", "1"), run("pytest -q", "2")])
    assert not loop._should_parallelize([run("echo a", "1"), run("rm -rf x", "2")])


async def test_max_steps_is_partial(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, *[tool_call("read_file", {"path": f"{n}.txt"}) for n in "abc"])
    state = await make_loop(ws, llm, max_steps=3).run("loop")
    assert state.status == "partial" and "limit of 3 steps" in (state.final_output or "")
    assert len(state.steps) == 3


async def test_length_asks_to_continue(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, length("First half"), text(" second half."))
    state = await make_loop(ws, llm).run("long")
    assert state.status == "success"
    messages = scripted.requests_for(name)[1].body["messages"]
    assert messages[-2] == {"role": "assistant", "content": "First half"}
    assert messages[-1] == {"role": "user", "content": "Continue from where you left off."}


async def test_other_finish_reason_is_partial(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, text("filtered", finish_reason="content_filter"))
    state = await make_loop(ws, llm).run("x")
    assert state.status == "partial" and state.final_output == "filtered"


async def test_llm_error_is_failed(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for(retries=0)
    scripted.add(name, error(401, "bad key"))
    rec = Recorder()
    state = await make_loop(ws, llm, observer=rec).run("x")
    assert state.status == "failed" and (state.final_output or "").startswith("LLM error:")
    assert rec.states()[-1] == RunState.FAILED


async def test_retry_then_success(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for(retries=2)
    scripted.add(name, error(429, "slow down"), text("made it"))
    state = await make_loop(ws, llm).run("x")
    assert state.status == "success" and len(scripted.requests_for(name)) == 2


async def test_step_timeout_is_partial(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, text("late", delay=5))
    state = await make_loop(ws, llm, step_timeout=0.5).run("x")
    assert state.status == "partial" and "timeout of 0.5s" in (state.final_output or "")


async def test_cancel_mid_stream(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, text("word " * 200, chunk_delay=0.05))
    cancel = CancelToken()
    streaming = asyncio.Event()

    class Signal(Recorder):
        def __call__(self, event: AgentEvent) -> None:
            super().__call__(event)
            if isinstance(event, StreamText):
                streaming.set()

    rec = Signal()
    loop = make_loop(ws, llm, observer=rec, cancel=cancel)
    task = asyncio.create_task(loop.run("x"))
    await asyncio.wait_for(streaming.wait(), 30)
    cancel.cancel("cancelled by the test")
    state = await asyncio.wait_for(task, 10)
    assert state.status == "partial" and "interrupted" in (state.final_output or "")
    assert rec.states()[-1] == RunState.ABORTED


async def test_cancel_before_step_finishes_current_tools(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(
        name, tool_call("write_file", {"path": "new.txt", "content": "x\n"}), text("never")
    )
    cancel = CancelToken()
    rec = Recorder()

    def observe(event: AgentEvent) -> None:
        rec(event)
        if isinstance(event, ToolStarted):
            cancel.cancel()  # arrives while the tool runs: the tool completes, then the loop stops

    loop = make_loop(ws, llm, cancel=cancel)
    loop.observer = observe
    loop.machine._observer = observe
    state = await loop.run("x")
    assert state.status == "partial" and (ws / "new.txt").read_text() == "x\n"
    assert len(scripted.requests_for(name)) == 1
    assert any(isinstance(e, ToolFinished) for e in rec.events)


async def test_malformed_tool_json_goes_back_to_the_model(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(name, tool_call("read_file", '{"path": "a.txt"'), text("fixed"))
    state = await make_loop(ws, llm).run("x")
    assert state.status == "success"
    tool_msg = scripted.requests_for(name)[1].body["messages"][-1]
    assert tool_msg["role"] == "tool" and "not valid JSON" in tool_msg["content"]


async def test_loop_guard_stops_repeated_failures(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    scripted.add(
        name, *[tool_call("read_file", {"path": "missing.txt"}) for _ in range(3)], text("never")
    )
    state = await make_loop(ws, llm).run("x")
    assert state.status == "partial"
    assert "repeated the same failing call read_file 3 times" in (state.final_output or "")
    assert len(scripted.requests_for(name)) == 3


async def test_level_one_truncation_reaches_the_model(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(500)))
    llm, name = adapter_for()
    scripted.add(name, tool_call("read_file", {"path": "big.txt"}), text("ok"))
    await make_loop(ws, llm, context=ContextConfig(max_tool_result_tokens=500)).run("x")
    content = scripted.requests_for(name)[1].body["messages"][-1]["content"]
    assert "line 0\n" in content and "line 499" in content and "lines omitted" in content
    assert "line 250\n" not in content


async def test_usage_is_summed(
    ws: Path, scripted: ScriptedModelServer, adapter_for: AdapterFactory
) -> None:
    llm, name = adapter_for()
    first = {"prompt_tokens": 101, "completion_tokens": 7, "total_tokens": 108}
    second = {"prompt_tokens": 230, "completion_tokens": 12, "total_tokens": 242}
    scripted.add(
        name, tool_call("read_file", {"path": "a.txt"}, usage=first), text("ok", usage=second)
    )
    state = await make_loop(ws, llm).run("x")
    assert (state.usage.prompt_tokens, state.usage.completion_tokens) == (331, 19)
    assert state.usage.total_tokens == 350
    assert json.dumps(state.to_output_dict())  # JSON-ready
