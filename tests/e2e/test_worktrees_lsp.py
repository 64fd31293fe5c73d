"""Worktree sessions over LSP, with the real server and the scripted model: ``agent/run
{worktree}`` (two at once, the user's tree untouched), ``agent/worktrees``,
``agent/applyWorktree`` (one reviewed edit; merged, or a conflict that writes nothing),
``agent/discardWorktree``, a server killed mid-run, and the bad inputs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import LspFactory, git, kill, llm_options, plain, start_killable
from pygls.exceptions import JsonRpcException

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)


APP = "".join(f"value_{i} = {i}\n" for i in range(1, 11))


@pytest.fixture
def repo(workspace: Path) -> Path:
    """The ``lsp`` fixture's workspace as a repository with one commit."""
    (workspace / "src" / "app.py").write_text(APP)
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    return workspace


def user_files(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] not in (".git", ".agentls")
    }


async def worktrees(client: Any) -> dict[str, dict[str, Any]]:
    listed = plain(await client.request("agent/worktrees", {}))["worktrees"]
    return {w["name"]: w for w in listed}


async def test_two_worktree_runs_at_once_each_on_its_branch(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    before = user_files(repo)
    # One model queue for both runs: the first run's first call is slow, so the second
    # run's first call (started once the first is in flight) takes the second turn.
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "one.txt", "content": "from run one\n"}, delay=2.0),
        tool_call("write_file", {"path": "two.txt", "content": "from run two\n"}),
        text("done"),
        text("done"),
    )
    client = await lsp()
    yolo = {"confirmMode": "yolo"}
    first = client.run(prompt="first task", runId="w1", worktree={"name": "one"}, **yolo)
    await client.wait_for(lambda: scripted.remaining("alice") == 3, what="the first model call")
    second = client.run(prompt="second task", runId="w2", worktree={"name": "two"}, **yolo)
    # While both work, the user's tree is as it was, and both are listed as running.
    await client.wait_for(lambda: scripted.remaining("alice") == 2, what="the second model call")
    running = await worktrees(client)
    assert {n: w["state"] for n, w in running.items()} == {"one": "running", "two": "running"}
    assert user_files(repo) == before

    one, two = (plain(r) for r in await asyncio.gather(first, second))
    assert one["status"] == "success" and two["status"] == "success", (one, two)
    assert one["worktree"]["branch"] == "agentls/one" and two["worktree"]["name"] == "two"
    assert one["worktree"]["files"] == 1 and one["worktree"]["state"] == "ready"
    path_one, path_two = Path(one["worktree"]["path"]), Path(two["worktree"]["path"])
    assert (path_one / "one.txt").read_text() == "from run one\n"
    assert (path_two / "two.txt").read_text() == "from run two\n"
    assert not (path_one / "two.txt").exists() and not (path_two / "one.txt").exists()
    assert user_files(repo) == before  # nothing of either run in the user's tree
    # Each run's changes are a commit on its own branch.
    assert git(repo, "show", "--name-only", "--format=%s", "agentls/one").split() == [
        "agentls:",
        "first",
        "task",
        "one.txt",
    ]
    assert "two.txt" in git(repo, "show", "--name-only", "--format=", "agentls/two")
    listed = await worktrees(client)
    assert {n: (w["state"], w["files"], w["added"]) for n, w in listed.items()} == {
        "one": ("ready", 1, 1),
        "two": ("ready", 1, 1),
    }


async def test_a_worktree_runs_symbols_are_its_own_and_parsed_outside_the_server(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    # Not committed: the worktree starts from HEAD plus the user's uncommitted changes.
    (repo / "src" / "helpers.py").write_text("def added_helper(x):\n    return x\n")
    scripted.add(
        "alice",
        tool_call("find_symbol", {"name": "added_helper"}),
        text("found it"),
    )
    client = await lsp()
    result = plain(await client.run(prompt="where", worktree={"name": "sym"}, confirmMode="yolo"))
    assert result["status"] == "success", result
    found = [
        m["content"] for m in scripted.requests_for("alice")[-1].messages if m.get("role") == "tool"
    ]
    assert found and "src/helpers.py:1" in found[0], found
    # The server itself never loaded a grammar: the worktree's symbols had a process of
    # their own (parsing on the server's threads held the GIL away from the editor).
    pong = plain(await client.request("agent/ping", {}))
    assert pong["parserLoaded"] is False, pong


async def test_apply_is_one_reviewed_edit_and_a_conflict_writes_nothing(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    edit = {"path": "src/app.py", "old_str": "value_2 = 2\n", "new_str": "value_2 = 20\n"}
    scripted.add("alice", tool_call("edit_file", edit), text("done"))
    scripted.add("alice", tool_call("edit_file", edit), text("done"))
    client = await lsp()
    result = plain(await client.run(prompt="change", confirmMode="yolo", worktree={"name": "a"}))
    assert result["status"] == "success", result
    result = plain(await client.run(prompt="change", confirmMode="yolo", worktree={"name": "b"}))
    assert result["status"] == "success", result

    # The user changed another line meanwhile: merged, through one confirmed edit.
    app = repo / "src" / "app.py"
    app.write_text(APP.replace("value_9 = 9", "value_9 = 99"))
    edits_before = len(client.edits)
    applied = plain(await client.request("agent/applyWorktree", {"name": "a"}))
    assert applied["status"] == "applied", applied
    assert applied["files"] == ["src/app.py"] and applied["merged"] == ["src/app.py"]
    assert len(client.edits) == edits_before + 1
    annotations = client.edits[-1].edit.change_annotations or {}
    assert annotations and all(a.needs_confirmation for a in annotations.values())
    assert app.read_text() == APP.replace("value_9 = 9", "value_9 = 99").replace(
        "value_2 = 2\n", "value_2 = 20\n"
    )

    # The same line changed by the user: a conflict, nothing written, nothing sent.
    app.write_text(APP.replace("value_2 = 2", "value_2 = 7"))
    edits_before = len(client.edits)
    conflict = plain(await client.request("agent/applyWorktree", {"name": "b"}))
    assert conflict["status"] == "conflict", conflict
    assert conflict["conflicts"] == [
        {"path": "src/app.py", "reason": "you changed the same lines since the worktree was made"}
    ]
    assert "agentls/b" in conflict["message"]
    assert app.read_text() == APP.replace("value_2 = 2", "value_2 = 7")
    assert len(client.edits) == edits_before

    # The user says no: nothing written, and the worktree stays to be applied later.
    app.write_text(APP)
    client.edit_answers = [False]
    refused = plain(await client.request("agent/applyWorktree", {"name": "b"}))
    assert refused["status"] == "rejected", refused
    assert app.read_text() == APP
    assert "b" in await worktrees(client)


async def test_discard_removes_the_worktree_and_its_branch(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    scripted.add("alice", tool_call("write_file", {"path": "n.txt", "content": "n\n"}), text("ok"))
    client = await lsp()
    result = plain(await client.run(prompt="note", confirmMode="yolo", worktree={}))
    name = result["worktree"]["name"]  # named after a fresh id
    folder = Path(result["worktree"]["path"])
    assert name in await worktrees(client)
    assert folder.is_dir()  # noqa: ASYNC240

    (folder / "left.txt").write_text("work nobody committed\n")
    with pytest.raises(JsonRpcException, match="uncommitted changes"):
        await client.request("agent/discardWorktree", {"name": name})
    (folder / "left.txt").unlink()

    done = plain(await client.request("agent/discardWorktree", {"name": name}))
    assert done == {"discarded": True}
    assert name not in await worktrees(client)
    assert not folder.exists()  # noqa: ASYNC240
    assert git(repo, "branch", "--list", f"agentls/{name}").strip() == ""
    with pytest.raises(JsonRpcException, match="no worktree 'nope'"):
        await client.request("agent/discardWorktree", {"name": "nope"})
    with pytest.raises(JsonRpcException, match="no worktree 'nope'"):
        await client.request("agent/applyWorktree", {"name": "nope"})


async def test_bad_worktree_requests_say_why(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path, tmp_path: Path
) -> None:
    client = await lsp()
    with pytest.raises(JsonRpcException, match="cannot name a worktree"):
        await client.run(prompt="x", worktree={"name": "../escape"})
    git(repo, "branch", "agentls/taken")
    with pytest.raises(JsonRpcException, match="the branch agentls/taken exists already"):
        await client.run(prompt="x", worktree={"name": "taken"})
    assert scripted.remaining("alice") == 0  # no model call was made

    plain_folder = tmp_path / "not-a-repo"
    plain_folder.mkdir()
    other = await lsp(root=plain_folder)
    with pytest.raises(JsonRpcException, match="not in a git repository"):
        await other.run(prompt="x", worktree={"name": "w"})
    assert plain(await other.request("agent/worktrees", {})) == {"worktrees": []}


async def test_a_worktree_of_a_killed_server_is_listed_by_the_next(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "half.txt", "content": "half done\n"}),
        text("never seen", delay=60),
    )
    doomed = await start_killable(repo, scripted, "alice")
    run = doomed.run(prompt="long task", confirmMode="yolo", worktree={"name": "cut"})
    await doomed.wait_for(lambda: scripted.remaining("alice") == 0, what="the second model call")
    await kill(doomed)
    run.cancel()

    client = await lsp()
    listed = await worktrees(client)
    assert listed["cut"]["state"] == "uncommitted changes", listed
    assert (Path(listed["cut"]["path"]) / "half.txt").read_text() == "half done\n"
    assert "half.txt" not in user_files(repo)
    with pytest.raises(JsonRpcException, match=r"uncommitted changes.*force: true"):
        await client.request("agent/discardWorktree", {"name": "cut"})
    assert (Path(listed["cut"]["path"]) / "half.txt").exists()
    # Forced, it goes with what the killed run left there.
    forced = plain(await client.request("agent/discardWorktree", {"name": "cut", "force": True}))
    assert forced == {"discarded": True}
    assert "cut" not in await worktrees(client)
    assert git(repo, "branch", "--list", "agentls/cut").strip() == ""


async def test_a_new_worktree_is_set_up_before_its_first_run(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    setup = "echo preparing; echo made > .setup-ran; echo ready"
    scripted.add("alice", text("done"), text("again"))
    client = await lsp(init_options={**llm_options(scripted), "worktree": {"setup": setup}})
    result = plain(await client.run(prompt="go", confirmMode="yolo", worktree={"name": "s"}))
    assert result["status"] == "success", result
    folder = Path(result["worktree"]["path"])
    assert (folder / ".setup-ran").read_text() == "made\n"
    logged = [m.message for m in client.log_messages if m.message.startswith("[worktree s setup]")]
    assert logged == [
        f"[worktree s setup] $ {setup}",
        "[worktree s setup] preparing",
        "[worktree s setup] ready",
        "[worktree s setup] exit code 0",
    ]
    # A run that continues the worktree does not set it up again.
    (folder / ".setup-ran").unlink()
    again = plain(await client.run(prompt="more", confirmMode="yolo", worktree={"name": "s"}))
    assert again["status"] == "success", again
    assert not (folder / ".setup-ran").exists()


async def test_a_failing_setup_stops_the_run_and_keeps_the_worktree(
    lsp: LspFactory, scripted: ScriptedModelServer, repo: Path
) -> None:
    setup = "echo 'cannot fetch deps' >&2; exit 3"
    scripted.add("alice", text("never asked"))
    client = await lsp(init_options={**llm_options(scripted), "worktree": {"setup": setup}})
    result = plain(await client.run(prompt="go", confirmMode="yolo", worktree={"name": "f"}))
    assert result["status"] == "failed", result
    assert "the setup of worktree f (`" in result["output"]
    assert "failed (exit 3)" in result["output"] and "cannot fetch deps" in result["output"]
    assert result["worktree"]["name"] == "f"
    assert scripted.remaining("alice") == 1  # the model was never asked
    assert (await worktrees(client))["f"]["state"] == "ready"
