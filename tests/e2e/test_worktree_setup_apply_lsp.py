"""A worktree's set-up step that plants a protected file, a symbolic link out of the
tree and executable bits, then ``agent/applyWorktree`` through the LSP server: the
protected file is cleaned up after the set-up like after any command, and the link and
the modes, which an editor's text edit cannot make, are named and left on the branch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentls_e2e import LspFactory, llm_options, plain
from hooked_repo import git
from test_worktree_setup_apply_cli import PLANTING_SETUP

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(240)


async def test_what_a_setup_step_plants_is_cleaned_up_or_left_on_the_branch(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    (workspace / "app.py").write_text("x = 1\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "notes.md", "content": "# Notes\n"}),
        text("Done."),
    )
    options = {**llm_options(scripted), "worktree": {"setup": PLANTING_SETUP}}
    client = await lsp(init_options=options)
    result = plain(await client.run(prompt="go", confirmMode="yolo", worktree={"name": "s"}))
    assert result["status"] == "success", result
    logged = "\n".join(m.message for m in client.log_messages)
    assert "created .husky" in logged and "created .pre-commit-config.yaml" in logged
    on_branch = git(workspace, "show", "--name-only", "--format=", "agentls/s").split()
    assert ".husky/pre-commit" not in on_branch and ".pre-commit-config.yaml" not in on_branch

    applied = plain(await client.request("agent/applyWorktree", {"name": "s"}))
    assert applied["status"] == "applied", applied
    assert applied["files"] == ["notes.md"]
    assert (workspace / "notes.md").read_text() == "# Notes\n"
    message = applied["message"]
    assert "link-out: a symbolic link to '/etc/passwd' (outside the tree)" in message
    assert "tool.sh: a new executable file" in message and "app.py: made executable" in message
    assert planted(workspace) == []


def planted(root: Path) -> list[str]:
    """What of the set-up step's doing reached the user's tree."""
    found = [name for name in ("link-out", "tool.sh", ".husky") if os.path.lexists(root / name)]
    return found + (["app.py +x"] if os.access(root / "app.py", os.X_OK) else [])


async def test_a_protected_file_on_the_branch_is_a_second_edit_of_its_own(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    scripted.add(
        "alice",
        tool_call("write_file", {"path": "notes.md", "content": "# Notes\n"}),
        text("Done."),
    )
    client = await lsp()
    result = plain(await client.run(prompt="go", confirmMode="yolo", worktree={"name": "p"}))
    assert result["status"] == "success", result
    # A protected file on the branch (say an edit you approved during the run).
    folder = Path(result["worktree"]["path"])
    commit_hook(folder)

    edits_before = len(client.edits)
    applied = plain(await client.request("agent/applyWorktree", {"name": "p"}))
    assert applied["status"] == "applied", applied
    assert sorted(applied["files"]) == [".githooks/pre-commit", "notes.md"]
    # Two edits, each confirmed on its own: the text first, then the protected file.
    assert len(client.edits) == edits_before + 2
    first, second = (str(e.edit) for e in client.edits[-2:])
    assert "notes.md" in first and ".githooks" not in first
    assert ".githooks/pre-commit" in second and "notes.md" not in second


def commit_hook(folder: Path) -> None:
    hook = folder / ".githooks" / "pre-commit"
    hook.parent.mkdir()
    hook.write_text("#!/bin/sh\nexit 0\n")
    git(folder, "add", ".githooks")
    git(folder, "commit", "-qm", "a hook", "--no-verify")
