"""The folder engine's own parts: one how-to-trust hint per medium, the language servers
kept while their config and trust stay (closed when replaced or at ``aclose``), the
one commit title of a worktree run, and the folder's sessions, slash commands and agents."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig, DiagnosticsConfig
from agentls.agent.config.state_paths import StatePathError
from agentls.agent.folder.folder import FolderEngine
from agentls.agent.folder.media import ACP, EDITOR, TERMINAL
from agentls.agent.folder.settings import FolderSettings
from agentls.agent.folder.worktree_runs import WorktreeSummary, commit_title
from agentls.agent.sessions.entries import RunStartEntry


class FakeServers:
    """Stands for ``LanguageServers``: records how it was made and whether it was closed."""

    def __init__(self, settings: DiagnosticsConfig, root: Path, *, trusted: bool, how: str):
        self.root, self.trusted, self.how = root, trusted, how
        self.closed = False
        #: Stands for the same servers' CodeNavigator.
        self.navigator: Any = object()

    def covers(self, path: str) -> bool:
        return False

    def saw(self, path: str, text: str) -> None:
        pass

    async def begin_edit(self, texts: Mapping[str, str | None]) -> Any:
        raise NotImplementedError

    async def problems(self, texts: Mapping[str, str] | None, wait: float) -> Any:
        raise NotImplementedError

    def take_notices(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        self.closed = True


def fake_factory(
    settings: DiagnosticsConfig, root: Path, *, trusted: bool, how_to_trust: str
) -> FakeServers:
    return FakeServers(settings, root, trusted=trusted, how=how_to_trust)


def config_in(root: Path) -> AppConfig:
    config = AppConfig()
    workspace = config.workspace.model_copy(update={"root": root})
    return config.model_copy(update={"workspace": workspace})


def test_one_how_to_trust_hint_per_medium(tmp_path: Path) -> None:
    command = f"agentls trust {tmp_path}"
    assert TERMINAL.how_to_trust(tmp_path) == f"run `{command}` (the next run follows)"
    for medium in (EDITOR, ACP):
        assert medium.how_to_trust(tmp_path) == (
            f"run `{command}` in a terminal (the next run follows)"
        )
    granted = EDITOR.how_to_trust(tmp_path, editor_grants_trust=True)
    assert "Workspace Trust" in granted
    # And no medium confirms a worktree's edits one by one (docs/worktrees.md).
    assert not any(m.worktree_edits_confirmed for m in (EDITOR, TERMINAL, ACP))


def test_the_trust_notice_carries_the_mediums_hint(tmp_path: Path) -> None:
    (tmp_path / ".agentls.yaml").write_text("llm:\n  api_base: http://127.0.0.1:9/v1\n")
    engine = FolderEngine(ACP, settings=FolderSettings(tmp_path))
    engine.settings.load()
    notices = engine.notices(sandbox=False)
    assert len(notices) == 1
    assert "is not a trusted folder" in notices[0] and "llm.api_base" in notices[0]
    assert ACP.how_to_trust(tmp_path) in notices[0]
    # An editor that shows its own restricted mode is not told again.
    assert engine.notices(trust=False, sandbox=False) == ()
    engine.settings.decide_trust(True)
    assert engine.notices(sandbox=False) == ()
    # Nothing loaded yet: nothing to say about trust.
    assert FolderEngine(ACP).notices(sandbox=False) == ()


async def test_language_servers_are_kept_replaced_and_closed(tmp_path: Path) -> None:
    engine = FolderEngine(EDITOR, language_servers=fake_factory)
    engine.settings.start(tmp_path, {}, source="initializationOptions", editor_trust=False)
    config = config_in(tmp_path)
    first = engine.language_servers(config)
    assert isinstance(first, FakeServers)
    assert first.how == EDITOR.how_to_trust(tmp_path, editor_grants_trust=True)
    assert engine.language_servers(config) is first
    # Trust changed: new servers, the old ones closed.
    engine.settings.set_editor_trust(True)
    second = engine.language_servers(config)
    assert isinstance(second, FakeServers)
    assert second is not first and second.trusted
    await engine.aclose()
    assert isinstance(first, FakeServers) and first.closed
    assert isinstance(second, FakeServers) and second.closed
    off = config.model_copy(
        update={"diagnostics": config.diagnostics.model_copy(update={"enabled": False})}
    )
    assert engine.language_servers(off) is None
    assert FolderEngine(EDITOR).language_servers(config) is None


def test_code_navigation_is_the_language_servers_own(tmp_path: Path) -> None:
    engine = FolderEngine(EDITOR, language_servers=fake_factory)
    engine.settings.start(tmp_path, {}, source="initializationOptions", editor_trust=False)
    config = config_in(tmp_path)
    servers = engine.language_servers(config)
    assert isinstance(servers, FakeServers)
    assert engine.navigator(config) is servers.navigator
    off = config.model_copy(
        update={"diagnostics": config.diagnostics.model_copy(update={"enabled": False})}
    )
    assert engine.navigator(off) is None  # the tree-sitter symbols answer then


def test_one_commit_title_and_summary() -> None:
    assert commit_title("  fix the parser\nand its tests") == "agentls: fix the parser"
    assert commit_title("x" * 100) == "agentls: " + "x" * 60
    assert commit_title("   ") == "agentls: run"
    summary = WorktreeSummary(name="w", branch="agentls/w", path="/p", files=2, added=3, removed=1)
    assert summary.text() == (
        "worktree w (branch agentls/w): 2 file(s) changed, +3 -1. Apply it to your tree "
        "with `agentls apply w`, or `agentls discard w`."
    )


async def test_a_worktrees_edit_policy_is_the_mediums(tmp_path: Path) -> None:
    """What the media table says is what a worktree run does: edits written without a
    question (protected files refused) unless the medium confirms them one by one."""
    from git_repo import git

    from agentls.agent.folder.media import Medium
    from agentls.agent.policy.approval import BaseApprover
    from agentls.agent.workspace import DiskFileAccess

    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    asking = Medium("terminal", "", worktree_edits_confirmed=True)
    for medium, asked in ((TERMINAL, False), (asking, True)):
        engine = FolderEngine(medium)
        run = await engine.hold_worktree(root, f"policy-{medium.name}-{asked}")
        try:
            approver = BaseApprover()
            files = DiskFileAccess(run.worktree.folder)
            wrapped = run.reviewed_at_apply(approver, files)
            assert (wrapped is approver) is asked
            assert (files.confirmer is None) is asked
        finally:
            engine.release_worktree(run)
            await engine.aclose()
        # A session's worktree (ACP keeps one for all its turns) follows the same table.
        kept = await FolderEngine(medium).open_worktree(root, f"kept-{medium.name}-{asked}")
        files = DiskFileAccess(kept.worktree.folder)
        approver = BaseApprover()
        assert (kept.reviewed_at_apply(approver, files) is approver) is asked


def test_the_folders_sessions_are_under_its_root_and_never_through_a_symlink(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    engine = FolderEngine(TERMINAL)
    store = engine.sessions(config_in(root))
    assert store.root == root / ".agentls" / "sessions"
    store.open("s1").append_sync(RunStartEntry(run_id="r1", prompt="fix it"))
    assert [s.id for s in engine.sessions(config_in(root)).list()] == ["s1"]

    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".agentls").symlink_to(root / ".agentls")
    with pytest.raises(StatePathError):
        engine.sessions(config_in(linked))


def test_the_slash_commands_are_read_again_at_each_call(
    tmp_path: Path, user_config_dir: Path
) -> None:
    engine = FolderEngine(EDITOR)
    (user_config_dir / "prompts").mkdir()
    (user_config_dir / "prompts" / "mine.prompt.md").write_text("Do mine.\n")
    before = engine.slash_commands(tmp_path)
    assert "clear" in before.commands  # a built-in
    assert before.get("mine").source == "user"
    assert "tidy" not in before.commands

    prompts = tmp_path / ".github" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "tidy.prompt.md").write_text("---\ndescription: Tidy up\n---\nTidy $1.\n")
    (prompts / "bad name!.prompt.md").write_text("Never offered.\n")
    after = engine.slash_commands(tmp_path)
    assert after.get("tidy").source == "workspace"
    assert after.get("tidy").description == "Tidy up"
    assert len(after.problems) == 1 and "bad name!" in after.problems[0]


def test_the_agents_are_the_defaults_and_the_configs(tmp_path: Path) -> None:
    engine = FolderEngine(ACP)
    config = config_in(tmp_path).model_copy(
        update={
            "agents": {
                "docs": AgentConfig(
                    system_prompt="Write the docs.", description="Writes the docs.", max_steps=3
                )
            }
        }
    )
    agents = engine.agents(config)
    assert agents.names() == ["build", "docs", "explore", "plan", "review", "mixed"]
    assert agents.get("docs").max_steps == 3
    assert {a.name: a.read_only for a in agents.list()}["plan"] is True
    assert not engine.agents(config_in(tmp_path)).exists("docs")
