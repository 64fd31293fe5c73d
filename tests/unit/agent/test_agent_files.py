"""Agents in Markdown files: parsing, the tool names of other formats, trust, name clashes,
broken files, and how the folder's settings put them in ``config.agents``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agentls.agent.config.agents import EXPLORE_TOOLS, READ_ONLY_TOOLS, AgentRegistry
from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.folder.agent_files import NO_TOOLS, load_agent_files
from agentls.agent.folder.agent_tool_names import AGENTLS_TOOLS, map_tools, split_tool_list
from agentls.agent.folder.settings import FolderSettings
from agentls.agent.tools import builtin_tools


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def agent_file(front: str, body: str = "You review code.") -> str:
    return f"---\n{front.strip()}\n---\n{body}\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


# -- tool names ---------------------------------------------------------------------------


def test_every_builtin_tool_is_an_agentls_name_an_agent_file_may_use() -> None:
    assert {tool.name for tool in builtin_tools()} <= set(AGENTLS_TOOLS)


def test_claude_codes_tool_names_map_onto_agentls_tools() -> None:
    mapped = map_tools(split_tool_list("Read, Grep, Glob, LS, Bash(git status:*), Edit") or [])
    assert mapped.tools == [
        "read_file",
        "grep",
        "search_code",
        "find_files",
        "list_files",
        "execute_command",
        "edit_file",
        "apply_patch",
    ]
    assert mapped.unknown == [] and mapped.wildcards == []
    other = map_tools(["WebFetch", "mcp__github__create_issue", "mcp__github", "Task"])
    assert other.tools == ["mcp_github_create_issue", "delegate"]
    assert other.unknown == ["WebFetch"]
    assert other.wildcards == ["mcp__github"]


def test_copilots_tool_sets_and_vscode_names_map_onto_agentls_tools() -> None:
    mapped = map_tools(
        ["codebase", "search/usages", "editFiles", "runCommands", "problems", "web/fetch"]
    )
    assert mapped.tools == [
        "search_code",
        "grep",
        "find_symbol",
        "find_references",
        "edit_file",
        "apply_patch",
        "execute_command",
        "get_problems",
    ]
    assert mapped.unknown == ["web/fetch"]
    servers = map_tools(["myserver/do_thing", "github/*", "read_file"])
    assert servers.tools == ["mcp_myserver_do_thing", "read_file"]
    assert servers.wildcards == ["github/*"]


def test_a_tool_list_is_a_yaml_list_or_a_comma_separated_string() -> None:
    assert split_tool_list("Read,Grep , Glob") == ["Read", "Grep", "Glob"]
    assert split_tool_list(["read", " edit "]) == ["read", "edit"]
    assert split_tool_list({"read": True}) is None


# -- one file ---------------------------------------------------------------------------


def test_a_claude_agent_file_becomes_an_agent_with_its_prompt_tools_model_and_steps(
    ws: Path, tmp_path: Path
) -> None:
    write(
        ws / ".claude/agents/reviewer.md",
        agent_file(
            "name: reviewer\ndescription: Reviews the diff\ntools: Read, Grep\n"
            "model: openai/bob\nmaxTurns: 7\nisolation: worktree\ncolor: red",
            "You review code.\nBe brief.",
        ),
    )
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    agent = found.agents["reviewer"]
    assert agent.system_prompt == "You review code.\nBe brief."
    assert agent.description == "Reviews the diff"
    assert agent.allowed_tools == ["read_file", "grep", "search_code"]
    assert agent.model == "openai/bob"
    assert agent.max_steps == 7
    assert agent.isolation == "worktree"
    assert agent.source == ".claude/agents/reviewer.md"
    assert found.notices == [] and found.ignored == []


def test_the_name_defaults_to_the_files_stem_and_a_display_name_gives_way_to_it(
    ws: Path, tmp_path: Path
) -> None:
    write(ws / ".agentls/agents/tester.md", "Run the tests.\n")
    write(
        ws / ".github/agents/docs-writer.agent.md",
        agent_file("name: 'Docs Writer'\ndescription: 'Writes docs'\ntools: ['read', 'edit']"),
    )
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert set(found.agents) == {"tester", "docs-writer"}
    assert found.agents["tester"].allowed_tools == []  # no `tools`: every tool
    assert "write_file" in found.agents["docs-writer"].allowed_tools


def test_inherit_means_the_runs_model_and_an_alias_is_said_and_ignored(
    ws: Path, tmp_path: Path
) -> None:
    write(ws / ".claude/agents/a.md", agent_file("model: inherit"))
    write(ws / ".claude/agents/b.md", agent_file("model: haiku"))
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert found.agents["a"].model is None and found.agents["b"].model is None
    assert found.notices == [
        ".claude/agents/b.md: model 'haiku' is not a litellm model id "
        "(e.g. anthropic/claude-sonnet-4-5); the agent uses the run's model"
    ]


def test_permission_modes_map_onto_what_agentls_has(ws: Path, tmp_path: Path) -> None:
    write(ws / ".claude/agents/planner.md", agent_file("permissionMode: plan\ntools: Read, Bash"))
    write(ws / ".claude/agents/free.md", agent_file("permissionMode: bypassPermissions"))
    write(ws / ".claude/agents/edits.md", agent_file("permissionMode: acceptEdits"))
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert found.agents["planner"].allowed_tools == ["read_file"]
    assert found.agents["free"].confirm_mode == "yolo"
    assert found.agents["edits"].confirm_mode == "confirm-sensitive"


def test_tools_agentls_lacks_are_named_and_naming_none_of_its_own_leaves_no_tool(
    ws: Path, tmp_path: Path
) -> None:
    write(ws / ".claude/agents/web.md", agent_file("tools: WebFetch, WebSearch"))
    write(ws / ".claude/agents/nobash.md", agent_file("disallowedTools: Bash, Write"))
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert found.agents["web"].allowed_tools == [NO_TOOLS]
    registry = AgentRegistry(AppConfig(agents=found.agents))
    assert {info.name: info.read_only for info in registry.list()}["web"] is True
    assert found.notices == [
        ".claude/agents/web.md: no such tool in agentls, left out: WebFetch, WebSearch"
    ]
    nobash = found.agents["nobash"].allowed_tools
    assert "execute_command" not in nobash and "write_file" not in nobash
    assert "read_file" in nobash


def test_a_broken_file_is_named_with_its_line_and_skipped(ws: Path, tmp_path: Path) -> None:
    write(ws / ".claude/agents/broken.md", "---\nname: broken\ntools: [Read\n---\nBody\n")
    write(ws / ".claude/agents/steps.md", agent_file("description: x\nmaxTurns: 0"))
    write(ws / ".claude/agents/empty.md", agent_file("description: nothing to say", ""))
    write(ws / ".claude/agents/good.md", agent_file("description: fine"))
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert set(found.agents) == {"good"}
    broken, empty, steps = found.notices
    assert broken.startswith(".claude/agents/broken.md is not used: its front matter is not")
    assert "line 4" in broken
    assert empty == ".claude/agents/empty.md is not used: its body (the agent's prompt) is empty"
    assert steps.startswith(".claude/agents/steps.md is not used: `maxTurns` (line 3): ")


def test_a_workspace_file_linking_outside_the_folder_is_not_read(ws: Path, tmp_path: Path) -> None:
    secret = write(tmp_path / "outside" / "secret.md", "a secret of yours\n")
    (ws / ".claude/agents").mkdir(parents=True)
    (ws / ".claude/agents/leak.md").symlink_to(secret)
    (ws / ".claude/agents/inside.md").symlink_to(write(ws / "docs/agent.md", "Inside.\n"))
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert set(found.agents) == {"inside"}
    assert found.notices == [
        ".claude/agents/leak.md is not used: it is a link that leads outside the folder"
    ]


def test_unknown_and_unsupported_keys_are_said_and_ui_keys_are_not(
    ws: Path, tmp_path: Path
) -> None:
    write(
        ws / ".claude/agents/a.md",
        agent_file("color: blue\nhandoffs: []\nhooks: {}\nfavourite: tea"),
    )
    found = load_agent_files(ws, {}, trusted=True, user_dir=tmp_path / "user")
    assert "a" in found.agents
    assert found.notices == [
        ".claude/agents/a.md: ignoring unknown front matter key(s) favourite",
        ".claude/agents/a.md: agentls does not take hooks from agent files",
    ]


# -- precedence -----------------------------------------------------------------------------


def test_a_clash_says_which_wins_in_the_documented_order(ws: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    for where in (
        user / "agents/dup.md",
        ws / ".github/agents/dup.agent.md",
        ws / ".claude/agents/dup.md",
        ws / ".agentls/agents/dup.md",
    ):
        write(where, agent_file(f"description: from {where.parent}"))
    write(ws / ".claude/agents/docs.md", agent_file("description: docs from a file"))
    settings = {"docs": AgentConfig(system_prompt="Write the docs.")}
    found = load_agent_files(ws, settings, trusted=True, user_dir=user)
    assert found.agents["dup"].source == ".agentls/agents/dup.md"
    assert "docs" not in found.agents
    assert found.notices == [
        ".github/agents/dup.agent.md replaces the agent dup of your agents/dup.md",
        ".claude/agents/dup.md replaces the agent dup of .github/agents/dup.agent.md",
        ".agentls/agents/dup.md replaces the agent dup of .claude/agents/dup.md",
        ".claude/agents/docs.md: the agent docs of the settings' `agents:` wins over this file",
    ]


def test_a_trusted_file_and_the_users_own_replace_a_built_in_and_say_so(
    ws: Path, tmp_path: Path
) -> None:
    user = tmp_path / "user"
    write(user / "agents/explore.md", agent_file("description: my explore\ntools: Read"))
    write(ws / ".claude/agents/review.md", agent_file("description: our review"))
    found = load_agent_files(ws, {}, trusted=False, user_dir=user)
    assert found.agents["explore"].description == "my explore"
    assert "review" not in found.agents  # untrusted: never a built-in
    trusted = load_agent_files(ws, {}, trusted=True, user_dir=user)
    assert trusted.agents["review"].description == "our review"
    assert ".claude/agents/review.md replaces the built-in agent review" in trusted.notices


# -- trust ------------------------------------------------------------------------------------


def test_an_untrusted_folders_file_keeps_its_text_and_what_narrows_only(
    ws: Path, tmp_path: Path
) -> None:
    write(
        ws / ".claude/agents/deploy.md",
        agent_file(
            "description: Deploys\ntools: Read, Bash\nmodel: openai/pricey\n"
            "permissionMode: bypassPermissions\nmaxTurns: 5\nsandbox: read-only",
            "You deploy.",
        ),
    )
    write(ws / ".claude/agents/long.md", agent_file("maxTurns: 500\nnetwork: true"))
    write(ws / ".claude/agents/plan.md", agent_file("description: not the built-in"))
    found = load_agent_files(ws, {}, trusted=False, user_dir=tmp_path / "user")
    deploy = found.agents["deploy"]
    assert deploy.system_prompt == "You deploy." and deploy.description == "Deploys"
    assert deploy.allowed_tools == ["read_file", "execute_command"]
    assert (deploy.model, deploy.confirm_mode) == (None, "confirm-sensitive")
    assert (deploy.max_steps, deploy.sandbox) == (5, "read-only")
    assert found.agents["long"].max_steps == 20 and found.agents["long"].network is False
    assert found.ignored == [
        ".claude/agents/deploy.md's model, permissionMode (yolo is looser than confirm-sensitive)",
        ".claude/agents/long.md's maxTurns (more than 20), network (would turn the network on)",
        ".claude/agents/plan.md (it would replace the built-in agent plan)",
    ]


def test_an_untrusted_file_is_no_wider_than_the_users_own_build_agent(
    ws: Path, tmp_path: Path
) -> None:
    write(ws / ".claude/agents/helper.md", agent_file("tools: Read, Bash, Write"))
    build = AgentConfig(
        system_prompt="Build.", allowed_tools=["read_file", "execute_command"], max_steps=8
    )
    found = load_agent_files(ws, {"build": build}, trusted=False, user_dir=tmp_path / "user")
    helper = found.agents["helper"]
    assert helper.allowed_tools == build.allowed_tools and helper.max_steps == 8
    assert found.ignored == [".claude/agents/helper.md's tools (would add write_file)"]


# -- in the folder's settings -----------------------------------------------------------------


def test_the_folders_settings_put_file_agents_in_the_config_and_the_trust_notice(
    ws: Path, user_config_dir: Path
) -> None:
    write(ws / ".claude/agents/reviewer.md", agent_file("model: openai/bob\ntools: Read"))
    write(ws / ".claude/agents/broken.md", "---\nname: [\n---\nx\n")
    settings = FolderSettings(ws)
    loaded = settings.load(trusted=False)
    registry = AgentRegistry(loaded.config)
    assert registry.get("reviewer").allowed_tools == ["read_file"]
    assert registry.get("reviewer").model is None
    sources = {info.name: info.source for info in registry.list()}
    assert sources["reviewer"] == ".claude/agents/reviewer.md"
    assert sources["build"] == sources["explore"] == "built-in"
    assert loaded.restricted
    notice = loaded.notice("trust it")
    assert notice is not None and ".claude/agents/reviewer.md's model" in notice
    assert len(settings.agent_notices) == 1
    assert settings.agent_notices[0].startswith(".claude/agents/broken.md is not used")
    trusted = settings.load(trusted=True)
    assert AgentRegistry(trusted.config).get("reviewer").model == "openai/bob"


def test_the_settings_agents_win_and_keep_their_source(ws: Path, user_config_dir: Path) -> None:
    (user_config_dir / "config.yaml").write_text(
        yaml.safe_dump({"agents": {"docs": {"system_prompt": "Mine.", "max_steps": 4}}})
    )
    write(ws / ".claude/agents/docs.md", agent_file("description: the repo's"))
    config = FolderSettings(ws).load(trusted=True).config
    registry = AgentRegistry(config)
    assert registry.get("docs").system_prompt == "Mine."
    assert {info.name: info.source for info in registry.list()}["docs"] == "config"


def test_agent_files_are_read_again_before_each_run(ws: Path, user_config_dir: Path) -> None:
    settings = FolderSettings(ws)
    settings.start(ws, {}, source="editor settings", editor_trust=True)
    before = settings.config
    assert not AgentRegistry(before).exists("helper")
    assert settings.refresh_trust().changed is False
    write(ws / ".agentls/agents/helper.md", agent_file("description: new"))
    update = settings.refresh_trust()
    assert update.changed and AgentRegistry(update.config).exists("helper")
    assert not AgentRegistry(before).exists("helper")  # a run in flight keeps its agents
    assert settings.refresh_trust().changed is False
    (ws / ".agentls/agents/helper.md").unlink()
    assert not AgentRegistry(settings.refresh_trust().config).exists("helper")


# -- the built-in explore agent ------------------------------------------------------------------


def test_explore_is_read_only_and_takes_the_explore_model_when_set() -> None:
    assert set(EXPLORE_TOOLS) <= set(READ_ONLY_TOOLS)
    assert "ask_user" not in EXPLORE_TOOLS and "update_plan" not in EXPLORE_TOOLS
    registry = AgentRegistry(AppConfig())
    explore = registry.get("explore")
    assert explore.model is None and explore.max_steps <= 20
    assert "concise report" in explore.system_prompt
    assert {info.name: info.read_only for info in registry.list()}["explore"] is True
    cheap = AppConfig.model_validate({"subagents": {"explore_model": "openai/cheap"}})
    assert AgentRegistry(cheap).get("explore").model == "openai/cheap"
    own = AppConfig.model_validate(
        {
            "subagents": {"explore_model": "openai/cheap"},
            "agents": {"explore": {"system_prompt": "x", "model": "openai/mine"}},
        }
    )
    assert AgentRegistry(own).get("explore").model == "openai/mine"
