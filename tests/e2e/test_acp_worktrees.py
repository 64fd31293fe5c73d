"""An ACP session in a worktree of its own (``_meta: {"agentls": {"worktree": {...}}}``):
its files are written in the worktree on disk, never through the editor into the user's
tree, each turn's changes are committed on its branch, and the user is told how to apply
them; a new worktree is set up first; bad names are refused at session/new."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError, text_block
from agentls_e2e import git
from test_acp import EditorClient, acp_agent, start

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "start")
    return root


async def test_a_session_in_a_worktree_leaves_the_users_tree_alone(
    repo: Path, scripted: ScriptedModelServer, user_config_dir: Path
) -> None:
    (user_config_dir / "config.yaml").write_text('worktree:\n  setup: "echo deps-ready"\n')
    scripted.add(
        "acp-wt",
        tool_call("edit_file", {"path": "app.py", "old_str": "x = 1", "new_str": "x = 2"}),
        text("Changed x."),
    )
    client = EditorClient()
    async with acp_agent(repo, scripted, "acp-wt", client, "--mode", "yolo") as conn:
        # fs declared: the user's buffers would be used if the session were in their tree.
        await start(conn, repo, fs=True)
        session = await conn.new_session(
            cwd=str(repo), mcp_servers=[], agentls={"worktree": {"name": "acp1"}}
        )
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        assert answer.stop_reason == "end_turn"
        with pytest.raises(RequestError) as refused:
            await conn.new_session(
                cwd=str(repo), mcp_servers=[], agentls={"worktree": {"name": "../x"}}
            )
        assert "cannot name a worktree" in str(refused.value.data)
    assert client.writes == []  # nothing went through the editor
    assert (repo / "app.py").read_text() == "x = 1\n"
    assert git(repo, "show", "agentls/acp1:app.py") == "x = 2\n"
    said = client.agent_text()
    assert "worktree acp1 (branch agentls/acp1): 1 file(s) changed, +1 -1" in said
    assert "agentls apply acp1" in said
    thoughts = str(client.updates)
    assert "setting up worktree acp1: $ echo deps-ready" in thoughts and "deps-ready" in thoughts
