"""A run's instruction files and /commands, composed from real parts: the scripted model
server over litellm, the disk, a session file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.agent.config.models import AppConfig
from agentls.agent.events import AgentEvent, Notice
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.sessions.store import COMPACTED_PREFIX, store_for
from agentls.agent.workspace import DiskFileAccess


def config_for(ws: Path, server: ScriptedModelServer, model: str) -> AppConfig:
    return AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": f"openai/{model}", "api_base": server.api_base},
        }
    )


async def run(
    ws: Path,
    config: AppConfig,
    events: list[AgentEvent] | None = None,
    *,
    trusted: bool = False,
    **request: Any,
) -> Any:
    sink = events if events is not None else []
    return await run_agent(
        RunRequest(**request),
        FrontEnd(
            DiskFileAccess(ws),
            DenyingApprover("test"),
            observer=sink.append,
            trusted=trusted,
            llm_for=lambda c: LiteLLMAdapter(c.llm),
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def monorepo(ws: Path) -> Path:
    (ws / "AGENTS.md").write_text("Root rule: run make test.\n")
    (ws / "web").mkdir()
    (ws / "web" / "AGENTS.md").write_text("Web rule: use pnpm.\n")
    (ws / "web" / "app.ts").write_text("export const x = 1;\n")
    (ws / "api").mkdir()
    (ws / "api" / "AGENTS.md").write_text("Api rule: use uv.\n")
    (ws / "api" / "main.py").write_text("print('api')\n")
    return ws


def system_prompt(scripted: ScriptedModelServer, model: str, call: int = 0) -> str:
    first = scripted.requests_for(model)[call].messages[0]
    assert first["role"] == "system"
    return str(first["content"])


async def test_the_files_from_the_root_down_to_the_active_file_are_in_the_system_prompt(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = monorepo(tmp_path)
    scripted.add("in1", text("done"))
    outcome = await run(ws, config_for(ws, scripted, "in1"), prompt="hi", active_file="web/app.ts")
    assert outcome.state.status == "success"
    prompt = system_prompt(scripted, "in1")
    assert "Root rule: run make test." in prompt and "Web rule: use pnpm." in prompt
    assert "Api rule" not in prompt
    assert outcome.instructions == ["AGENTS.md", "web/AGENTS.md"]
    assert outcome.to_result()["instructions"] == ["AGENTS.md", "web/AGENTS.md"]


async def test_a_folder_the_run_reaches_later_joins_once_and_the_prefix_stays_the_same(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = monorepo(tmp_path)
    scripted.add(
        "in2",
        tool_call("read_file", {"path": "api/main.py"}),
        tool_call("read_file", {"path": "api/main.py"}),
        text("read it"),
    )
    outcome = await run(ws, config_for(ws, scripted, "in2"), prompt="read api")
    assert outcome.state.status == "success"
    requests = scripted.requests_for("in2")
    # The system prompt is the same bytes on every call: the provider's prompt cache holds.
    assert len({str(r.messages[0]["content"]) for r in requests}) == 1
    assert "Api rule" not in system_prompt(scripted, "in2")
    joined = [
        m for m in requests[-1].messages if "Api rule: use uv." in str(m.get("content") or "")
    ]
    assert len(joined) == 1 and "api/AGENTS.md" in str(joined[0]["content"])
    assert outcome.instructions == ["AGENTS.md", "api/AGENTS.md"]


async def test_a_later_run_of_the_session_reads_the_earlier_runs_files_again(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = monorepo(tmp_path)
    scripted.add("in3", tool_call("read_file", {"path": "api/main.py"}), text("one"), text("two"))
    config = config_for(ws, scripted, "in3")
    await run(ws, config, prompt="first", session_id="s1")
    (ws / "api" / "AGENTS.md").write_text("Api rule: use uv, version 2.\n")
    second = await run(ws, config, prompt="second", session_id="s1")
    assert second.instructions == ["AGENTS.md", "api/AGENTS.md"]
    assert "Api rule: use uv, version 2." in system_prompt(scripted, "in3", call=2)


async def test_an_instruction_file_over_the_budget_is_cut_and_the_user_told(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "AGENTS.md").write_text("x" * 5000)
    scripted.add("in4", text("done"))
    config = config_for(tmp_path, scripted, "in4")
    config = config.model_copy(
        update={"context": config.context.model_copy(update={"instructions_bytes": 1000})}
    )
    events: list[AgentEvent] = []
    await run(tmp_path, config, events, prompt="hi")
    warnings = [e.message for e in events if isinstance(e, Notice)]
    assert any("AGENTS.md" in w for w in warnings)
    assert "x" * 2000 not in system_prompt(scripted, "in4")


async def test_a_prompt_file_runs_with_its_agent_its_narrowed_tools_and_arguments(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    prompts = tmp_path / ".github" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "explain.prompt.md").write_text(
        "---\ndescription: Explain a file\nagent: plan\ntools: [read_file, grep]\n"
        "model: openai/expensive\n---\nExplain $1 to a newcomer.\n"
    )
    scripted.add("in5", text("explained"))
    events: list[AgentEvent] = []
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "in5"), events, prompt="/explain app.py"
    )
    assert outcome.state.status == "success" and outcome.agent == "plan"
    request = scripted.requests_for("in5")[0]
    assert request.messages[-1]["content"] == "Explain app.py to a newcomer."
    assert sorted(t["function"]["name"] for t in request.body["tools"]) == ["grep", "read_file"]
    # An untrusted folder's prompt file does not choose the model; the user hears so.
    assert any("model" in e.message for e in events if isinstance(e, Notice))


async def test_a_trusted_folders_prompt_file_chooses_the_model(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    prompts = tmp_path / ".github" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "fast.prompt.md").write_text("---\nmodel: openai/in6-fast\n---\nBe quick.\n")
    scripted.add("in6-fast", text("quick"))
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "in6"), prompt="/fast", trusted=True
    )
    assert outcome.state.status == "success"
    assert scripted.requests_for("in6-fast") and not scripted.requests_for("in6")


async def test_an_unknown_command_fails_before_any_model_call(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    outcome = await run(tmp_path, config_for(tmp_path, scripted, "in7"), prompt="/nope now")
    assert outcome.state.status == "failed"
    assert "/nope" in str(outcome.state.final_output) and "/init" in str(outcome.state.final_output)
    assert not scripted.requests_for("in7")


async def test_clear_starts_a_new_session_without_a_model_call(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "in8"), prompt="/clear", session_id="old"
    )
    assert outcome.state.status == "success" and outcome.session_id != "old"
    assert outcome.session_id in str(outcome.state.final_output)
    assert not scripted.requests_for("in8")


async def test_compact_summarises_the_session_and_the_next_run_starts_from_it(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "in9", text("first answer"), text("Summary: the user asked one thing."), text("next")
    )
    config = config_for(tmp_path, scripted, "in9")
    await run(tmp_path, config, prompt="the first question", session_id="s9")
    compacted = await run(tmp_path, config, prompt="/compact", session_id="s9")
    assert compacted.state.status == "success" and "Compacted" in str(compacted.state.final_output)
    await run(tmp_path, config, prompt="go on", session_id="s9")
    last = scripted.requests_for("in9")[-1].messages
    contents = [str(m.get("content")) for m in last]
    assert any(c.startswith(COMPACTED_PREFIX) for c in contents)
    assert "the first question" not in contents
    # The messages stay in the session file: the history view still shows them.
    session = store_for(tmp_path, config.sessions.dir).open("s9")
    assert any(getattr(e, "prompt", "") == "the first question" for e in session.entries)


async def test_review_with_nothing_to_review_says_so_without_a_model_call(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    outcome = await run(tmp_path, config_for(tmp_path, scripted, "in10"), prompt="/review")
    assert outcome.state.status == "failed"
    assert "nothing to review" in str(outcome.state.final_output)
    assert not scripted.requests_for("in10")


async def test_init_asks_before_writing_agents_md_even_in_yolo(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "Makefile").write_text("check:\n\tpytest\n")
    scripted.add(
        "in11",
        tool_call("write_file", {"path": "AGENTS.md", "content": "Run make check.\n"}),
        text("Could not write it."),
    )
    outcome = await run(
        tmp_path, config_for(tmp_path, scripted, "in11"), prompt="/init", confirm_mode="yolo"
    )
    assert outcome.state.status == "success"
    first = scripted.requests_for("in11")[0].messages[-1]["content"]
    assert "Write a first AGENTS.md" in first
    # The approver said no (nobody is asked in this test): the file is not written.
    assert not (tmp_path / "AGENTS.md").exists()
    told = str(scripted.requests_for("in11")[1].messages[-1]["content"])
    assert "AGENTS.md" in told and ("denied" in told or "rejected" in told or "not" in told)
