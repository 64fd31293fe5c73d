"""A worktree run's edits follow one policy in every front end (``agent/folder/media.py``):
written in the worktree without a question, even in the default ``confirm-sensitive``
mode where an edit of the user's tree is asked about (they are reviewed when the branch
is applied), and a protected file refused. The same scripted run through the CLI, the
language server and ACP leaves the same branch and asks nobody."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from agentls_e2e import LspFactory, git, plain, run_cli
from test_acp import EditorClient, acp_agent, start

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)


def script(scripted: ScriptedModelServer, model: str) -> None:
    """A run that writes an ordinary file, then a protected one (VS Code's settings)."""
    scripted.add(
        model,
        tool_call("write_file", {"path": "notes.md", "content": "# Notes\n"}),
        tool_call(
            "write_file",
            {"path": ".vscode/settings.json", "content": json.dumps({"x": 1})},
        ),
        text("done"),
    )


def committed(root: Path) -> Path:
    """``root`` as a repository with one commit of what it holds."""
    (root / "app.py").write_text("x = 1\n")
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


def assert_the_policy(repo: Path, branch: str) -> None:
    """The ordinary file is on the branch; the protected one was refused; the user's
    tree has neither."""
    changed = git(repo, "show", "--name-only", "--format=", branch).split()
    assert changed == ["notes.md"], changed
    assert not (repo / "notes.md").exists() and not (repo / ".vscode").exists()


def test_cli(tmp_path: Path, scripted: ScriptedModelServer) -> None:
    repo = committed(tmp_path)
    script(scripted, "policy-cli")
    model = ["--model", "openai/policy-cli", "--api-base", scripted.api_base]
    # No terminal on stdin: an edit that needed a question would be refused.
    done = run_cli(repo, "run", "write notes", "--worktree", "p", *model)
    assert done.returncode == 0, done.stderr
    assert "Apply this change" not in done.stderr
    assert_the_policy(repo, "agentls/p")


async def test_lsp(lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path) -> None:
    repo = committed(workspace)
    script(scripted, "policy-lsp")
    asked: list[Any] = []

    def refuse(params: Any) -> None:
        asked.append(params)
        return None

    client = await lsp(model="policy-lsp")
    client.approvals = refuse
    result = plain(await client.run(prompt="write notes", worktree={"name": "p"}))
    assert result["status"] == "success", result
    assert asked == [] and client.edits == []
    assert_the_policy(repo, "agentls/p")


async def test_acp(tmp_path: Path, scripted: ScriptedModelServer) -> None:
    repo = committed(tmp_path)
    script(scripted, "policy-acp")
    client = EditorClient()
    async with acp_agent(repo, scripted, "policy-acp", client) as conn:
        await start(conn, repo, fs=True)
        session = await conn.new_session(
            cwd=str(repo), mcp_servers=[], agentls={"worktree": {"name": "p"}}
        )
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        assert answer.stop_reason == "end_turn"
    assert client.permissions == [] and client.writes == []
    assert_the_policy(repo, "agentls/p")
