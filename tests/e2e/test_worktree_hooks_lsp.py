"""A worktree run through the LSP server in a repository that keeps its git hooks in the
working tree: a sandboxed command of the run tries to rewrite the hook, then the server
commits the run on the host. No hook runs (as shipped or as rewritten), and no git the
server starts gets a secret in its environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentls_e2e import LspFactory, plain
from hooked_repo import STYLES, git, git_spy, make_hooked_repo

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("style", sorted(STYLES))
async def test_a_hook_the_run_rewrote_does_not_run_when_the_server_commits(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, tmp_path: Path, style: str
) -> None:
    repo = make_hooked_repo(workspace, style, tmp_path / "markers")
    shipped_script = (repo.root / repo.script).read_text()
    spy = git_spy(tmp_path)
    scripted.add(
        "alice",
        tool_call("execute_command", {"command": repo.rewrite_command()}),
        tool_call("write_file", {"path": "out.txt", "content": "work\n"}),
        text("Done."),
    )
    client = await lsp(env=spy.env(os.environ["PATH"]))
    result = plain(
        await client.run(prompt="take the hook over", confirmMode="yolo", worktree={"name": "h"})
    )
    # The hook ran neither as shipped nor as the command wanted it...
    assert repo.hooks_ran() == []
    assert result["status"] == "success", result
    # ...when the server's git committed the run on its branch; the command could not
    # change the hook (a protected path).
    assert git(repo.root, "show", "--name-only", "--format=", "agentls/h").split() == ["out.txt"]
    assert git(repo.root, "show", f"agentls/h:{repo.script}") == shipped_script

    assert len(spy.calls()) > 5, "the spy saw the server's git"
    assert spy.leaked() == []
