"""agent/message over stdio: the user writes to a run while it works (queued, or steering
the model call in flight), and a message to a run that has ended is refused with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentls_e2e import LspFactory, llm_options, plain
from hooked_repo import git

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

SLOW = {"chunk_size": 2, "chunk_delay": 0.03}


async def test_a_queued_message_reaches_the_model_before_the_run_ends(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("Finishing up. " * 30, **SLOW), text("Added the tests too."))
    client = await lsp()
    running = client.run(prompt="do it", runId="m1")
    await client.wait_for(lambda: bool(client.of("agent/stream", "m1")), what="streamed text")
    answer = plain(await client.request("agent/message", {"runId": "m1", "text": "add tests"}))
    assert answer == {"accepted": True, "messageId": "m1"}
    result = plain(await running)
    assert result["status"] == "success" and result["output"] == "Added the tests too."
    assert client.of("agent/messageDelivered", "m1") == [{"runId": "m1", "messageIds": ["m1"]}]
    assert "add tests" in str(scripted.requests_for("alice")[1].messages[-1]["content"])
    late = plain(await client.request("agent/message", {"runId": "m1", "text": "and docs"}))
    assert late["accepted"] is False and "no run m1 is in flight" in late["reason"]


async def test_steer_restarts_the_model_call_with_the_message(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("Rewriting in Rust. " * 40, **SLOW), text("Using Go."))
    client = await lsp()
    running = client.run(prompt="do it", runId="s1")
    await client.wait_for(lambda: bool(client.of("agent/stream", "s1")), what="streamed text")
    answer = plain(
        await client.request("agent/message", {"runId": "s1", "text": "use Go", "mode": "steer"})
    )
    assert answer["accepted"] is True
    result = plain(await running)
    assert result["output"] == "Using Go."
    assert any(c.get("restart") for c in client.of("agent/stream", "s1"))
    assert len(scripted.requests_for("alice")) == 2


def worktree_folder(repo: Path, branch: str) -> Path:
    listed = git(repo, "worktree", "list", "--porcelain").split("\n\n")
    [entry] = [e for e in listed if f"branch refs/heads/{branch}" in e]
    return Path(entry.splitlines()[0].removeprefix("worktree "))


@pytest.mark.timeout(240)
async def test_a_message_to_a_run_whose_worktree_set_up_failed_is_named(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    """The run never started, so it never read the message: the user is told which."""
    (workspace / "app.py").write_text("x = 1\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    # The set-up (in the new worktree, sandboxed) waits for the test's word, then fails:
    # the message arrives during it.
    setup = "while [ ! -e go ]; do sleep 0.05; done; echo broken >&2; exit 3"
    client = await lsp(init_options={**llm_options(scripted), "worktree": {"setup": setup}})
    running = client.run(prompt="go", runId="w1", confirmMode="yolo", worktree={"name": "s"})
    await client.wait_for(
        lambda: any("setup] $" in m.message for m in client.log_messages), what="set-up started"
    )
    answer = plain(await client.request("agent/message", {"runId": "w1", "text": "add tests"}))
    assert answer["accepted"] is True
    (worktree_folder(workspace, "agentls/s") / "go").touch()
    result = plain(await running)
    assert result["status"] == "failed", result
    await client.wait_for(
        lambda: any("add tests" in m.message for m in client.messages), what="the warning"
    )
    [warning] = [m.message for m in client.messages if "add tests" in m.message]
    assert "the run ended before it could read your message(s): 'add tests'" in warning
    assert scripted.requests_for("alice") == []
