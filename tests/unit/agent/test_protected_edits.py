"""Changes to protected files (.mcp.json, .vscode/, AGENTS.md, .agentls.yaml...) are asked
about in every confirm mode, whichever file tool makes them."""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.llm.models import ToolCall
from agentls.agent.policy.approval import decide
from agentls.agent.protected.edits import candidates, protected_targets
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess, EditProposal
from agentls.cli.terminal import TerminalApprover, TerminalAsker

MCP = ".mcp.json: it declares MCP servers that agentls and other tools start"
REGISTRY = build_registry()


def _agent(mode: str) -> AgentConfig:
    return AgentConfig(system_prompt="t", confirm_mode=mode)  # type: ignore[arg-type]


def _decide(tool: str, mode: str = "yolo", root: Path | None = None, **args: Any) -> Any:
    return decide(
        REGISTRY.get(tool),
        args,
        _agent(mode),
        allowed_for_run=frozenset({tool}),
        root=root,
    )


UNIFIED = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b\n"
RENAME = (
    "diff --git a/notes.md b/AGENTS.md\nsimilarity index 100%\n"
    "rename from notes.md\nrename to AGENTS.md\n"
)
V4A_MOVE = (
    "*** Begin Patch\n*** Update File: tasks.json\n*** Move to: .vscode/tasks.json\n"
    "@@\n-a\n+b\n*** End Patch\n"
)
V4A_ADD = "*** Begin Patch\n*** Add File: .agentls.yaml\n+llm: {}\n*** End Patch\n"


@pytest.mark.parametrize("mode", ["yolo", "confirm-sensitive", "confirm-all"])
@pytest.mark.parametrize(
    ("tool", "args", "reason"),
    [
        ("write_file", {"path": ".mcp.json", "content": "{}"}, MCP),
        ("write_file", {"path": "./a/../.mcp.json", "content": "{}"}, MCP),
        ("edit_file", {"path": ".vscode/tasks.json", "old_str": "a", "new_str": "b"}, ".vscode:"),
        ("delete_file", {"path": "docs/AGENTS.md"}, "docs/AGENTS.md: it instructs"),
        ("apply_patch", {"patch": UNIFIED.replace("src/app.py", ".mcp.json")}, MCP),
        ("apply_patch", {"patch": "@@ -1 +1 @@\n-a\n+b\n", "path": ".mcp.json"}, MCP),
        ("apply_patch", {"patch": UNIFIED + RENAME}, "AGENTS.md: it instructs"),
        ("apply_patch", {"patch": V4A_MOVE}, ".vscode:"),
        ("apply_patch", {"patch": V4A_ADD}, ".agentls.yaml: it configures agentls"),
        # What steers the next run: an agent's permissions, a skill the model loads.
        ("write_file", {"path": ".github/agents/x.agent.md", "content": "x"}, "defines agents"),
        ("write_file", {"path": ".github/skills/s/SKILL.md", "content": "x"}, "skills"),
        ("write_file", {"path": ".agents/skills/s/SKILL.md", "content": "x"}, "skills"),
        ("write_file", {"path": ".claude/agents/x.md", "content": "x"}, ".claude:"),
    ],
)
def test_a_protected_file_is_asked_about_in_every_mode(
    mode: str, tool: str, args: dict[str, Any], reason: str
) -> None:
    decision = _decide(tool, mode, **args)
    assert decision.kind == "needs_approval" and decision.insist
    assert decision.reason.startswith("it changes a protected file: ")
    assert reason in decision.reason


def test_an_ordinary_file_is_not_asked_about_in_yolo() -> None:
    assert _decide("write_file", path="src/app.py", content="x").kind == "skip"
    assert _decide("apply_patch", patch=UNIFIED).kind == "skip"


def test_a_patch_that_does_not_parse_names_no_file_and_changes_none() -> None:
    assert _decide("apply_patch", patch="*** Begin Patch\n*** Add File: .mcp.json\n").kind == (
        "skip"
    )


def test_a_symlink_to_a_protected_directory_is_seen_through(tmp_path: Path) -> None:
    (tmp_path / ".vscode").mkdir()
    os.symlink(".vscode", tmp_path / "v")
    assert _decide("write_file", path="v/tasks.json", content="{}").kind == "skip"  # no root
    decision = _decide("write_file", root=tmp_path, path="v/tasks.json", content="{}")
    assert decision.kind == "needs_approval" and ".vscode" in decision.reason


def test_paths_are_normalised_as_written() -> None:
    assert candidates("./src/../.mcp.json", None) == [".mcp.json"]
    assert candidates("../outside/.mcp.json", None) == []
    assert protected_targets(["src/app.py", "README.md"]) == []


# -- through the engine: the write itself asks, even in yolo -------------------------------------
def _engine(ws: Path, files: DiskFileAccess) -> ExecutionEngine:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}})
    return ExecutionEngine(build_registry(), RunContext(files, config))


async def _write(engine: ExecutionEngine, path: str) -> Any:
    call = ToolCall(id="c1", name="write_file", arguments={"path": path, "content": "{}\n"})
    return (await engine.execute_tool_call(call, _agent("yolo"))).result


async def test_in_yolo_a_protected_write_is_confirmed_and_a_no_is_kept(tmp_path: Path) -> None:
    asked: list[EditProposal] = []

    async def say_no(proposal: EditProposal) -> bool:
        asked.append(proposal)
        return False

    engine = _engine(tmp_path, DiskFileAccess(tmp_path, confirmer=say_no))
    result = await _write(engine, ".mcp.json")
    assert [c.path for c in asked[0].changes] == [".mcp.json"]
    assert not result.success and "rejected" in result.output
    assert not (tmp_path / ".mcp.json").exists()
    assert (await _write(engine, "ordinary.json")).success  # nobody asked
    assert len(asked) == 1


async def test_without_a_terminal_a_protected_write_is_refused_saying_why(tmp_path: Path) -> None:
    engine = _engine(tmp_path, DiskFileAccess(tmp_path))
    result = await _write(engine, "./x/../.mcp.json")
    assert not result.success
    assert f"this change to a protected file ({MCP}) needs confirmation" in result.output
    assert "nobody can be asked (no terminal)" in result.output
    assert not (tmp_path / ".mcp.json").exists()


async def test_the_terminal_asks_y_or_n_naming_why_the_file_is_protected(tmp_path: Path) -> None:
    """The CLI's own parts: a TerminalAsker on a real pseudo-terminal confirms the write."""
    main, side = os.openpty()
    stderr = io.StringIO()
    with os.fdopen(side, "r") as stdin:
        asker = TerminalAsker(stdin=stdin, stderr=stderr)
        config = AppConfig.model_validate({"workspace": {"root": str(tmp_path)}})
        engine = ExecutionEngine(
            build_registry(),
            RunContext(asker.disk_files(config), config, approver=TerminalApprover(asker)),
        )
        os.write(main, b"n\n")
        result = await asyncio.wait_for(_write(engine, "docs/../.mcp.json"), 10)
    os.close(main)
    assert not result.success and "rejected" in result.output
    assert f"Protected file: {MCP}." in stderr.getvalue()
    assert "Apply this change to .mcp.json (+1 -0)? [y/N]" in stderr.getvalue()
    assert not (tmp_path / ".mcp.json").exists()
