"""A run that hands a search to a built-in read-only agent (``plan``) as a subagent, as
each front end shows it: the CLI's indented lines, the language server's ``agent/subagent``
and nested ``agent/step`` (its progress, approvals and edit labels naming the subagent), an
ACP editor's tool calls titled with the subagent's name under the ``delegate`` call.

The scripted model answers the parent with a ``delegate`` call, then the child (its own
conversation: a ``grep``, then its report), then the parent's final answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import ToolCallProgress, ToolCallStart
from agentls_e2e import LspFactory, plain, run_cli
from test_acp import EditorClient, acp_agent

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)

TASK = "Find where greet is defined"
#: A built-in read-only agent the parent hands the search to.
CHILD = "plan"
REPORT = "greet is defined in src/app.py."


def delegating(scripted: ScriptedModelServer, model: str) -> None:
    scripted.add(
        model,
        tool_call("delegate", {"agent": CHILD, "task": TASK}, id="call_d"),
        tool_call("grep", {"pattern": "def greet"}, id="call_g"),
        text(REPORT),
        text("It is in src/app.py."),
    )


def greet_repo(root: Path) -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "app.py").write_text("def greet(name):\n    return f'hi {name}'\n")
    return root


# -- the CLI ------------------------------------------------------------------------------


def test_the_cli_prints_the_subagents_steps_under_the_delegate_line(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = greet_repo(tmp_path / "repo")
    delegating(scripted, "sub-cli")
    model = ["--model", "openai/sub-cli", "--api-base", scripted.api_base]
    done = run_cli(ws, "run", "where is greet?", "--mode", "yolo", *model)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.startswith("▶ step 1/") and "delegate" in line
    )
    nested = lines[start + 1 : start + 4]
    assert nested[0].startswith(f"  ↳ {CHILD} (") and nested[0].endswith(f"started: {TASK}"), lines
    assert nested[1].startswith(f"  {CHILD} › grep pattern=def greet ✓"), lines
    assert nested[2].startswith(f"  ✓ {CHILD} success: ") and "tokens" in nested[2], lines
    assert "It is in src/app.py." in done.stdout


# -- the language server ------------------------------------------------------------------


async def test_the_server_sends_the_subagent_and_its_steps_nested_under_the_delegate_call(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    greet_repo(workspace)
    delegating(scripted, "alice")
    client = await lsp()
    client.approvals = ["Allow once"] * 4
    run = client.run(prompt="where is greet?", runId="s1", confirmMode="confirm-all")
    result = plain(await run)
    assert result["status"] == "success", result

    subagent = client.of("agent/subagent", "s1")
    assert [p["phase"] for p in subagent] == ["start", "end"]
    assert subagent[0]["callId"] == "call_d" and subagent[0]["agent"] == CHILD
    assert subagent[0]["task"] == TASK and subagent[0]["model"]
    assert subagent[1]["status"] == "success" and subagent[1]["steps"] >= 1
    assert subagent[1]["usage"]["total_tokens"] > 0

    steps = [
        (p["callId"], p["phase"], p.get("parentCallId"), p.get("agent"))
        for p in client.of("agent/step", "s1")
    ]
    assert steps == [
        ("call_d", "tool_start", None, None),
        ("call_d/call_g", "tool_start", "call_d", CHILD),
        ("call_d/call_g", "tool_end", "call_d", CHILD),
        ("call_d", "tool_end", None, None),
    ]

    reports = [
        getattr(r, "message", None) for r in client.progress_reports.get("agentls/run/s1", [])
    ]
    # The run's own step (the delegate call's), naming the subagent and its call.
    assert any(
        str(m).startswith("Step 1/") and str(m).endswith(f" · {CHILD}: grep def greet")
        for m in reports
    ), reports

    # The child's call was asked about with its name on it.
    asked = [r.message for r in client.approval_requests]
    assert any(m.startswith(f"agentls wants to run grep (subagent {CHILD}).") for m in asked), asked


async def test_a_subagents_edit_is_labelled_with_its_name(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    greet_repo(workspace)
    scripted.add(
        "alice",
        tool_call("delegate", {"agent": "build", "task": "Greet with hello"}, id="call_b"),
        tool_call(
            "edit_file",
            {"path": "src/app.py", "old_str": "f'hi {name}'", "new_str": "f'hello {name}'"},
            id="call_e",
        ),
        text("Changed the greeting."),
        text("The build agent changed the greeting."),
    )
    client = await lsp()  # VS Code-like: confirms annotated edits
    result = plain(await client.run(prompt="greet with hello", runId="s2"))
    assert result["status"] == "success", result
    (edit,) = client.edits
    labels = {note.label for note in (edit.edit.change_annotations or {}).values()}
    assert labels == {"subagent build: edit src/app.py"}
    assert edit.label.startswith("subagent build: edit src/app.py")
    assert "hello {name}" in (workspace / "src" / "app.py").read_text()


# -- an ACP editor ------------------------------------------------------------------------


async def test_an_acp_editor_gets_the_subagents_calls_titled_with_its_name(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = greet_repo(tmp_path / "repo")
    delegating(scripted, "sub-acp")
    client = EditorClient(answers=["allow_once"] * 4)
    async with acp_agent(ws, scripted, "sub-acp", client) as conn:
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("where is greet?")]
        )
        assert answer.stop_reason == "end_turn"
    starts: list[Any] = [u for u in client.updates if isinstance(u, ToolCallStart)]
    child = next(u for u in starts if u.tool_call_id == "call_d/call_g")
    assert child.title == f"{CHILD} › grep def greet"
    assert child.field_meta == {"agentls": {"parentToolCallId": "call_d", "agent": CHILD}}
    delegate = [
        u for u in client.updates if isinstance(u, ToolCallProgress) and u.tool_call_id == "call_d"
    ]
    shown = [c.content.text for u in delegate for c in u.content or [] if hasattr(c, "content")]
    assert any("✓ grep def greet" in t for t in shown), shown
    assert any(f"{CHILD} success" in t for t in shown), shown
    assert "It is in src/app.py." in client.agent_text()
