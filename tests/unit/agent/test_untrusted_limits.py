"""An untrusted folder can only make a run cheaper, and only narrow the user's agents."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agentls.agent.config.agent_bounds import REACH_KEYS, widening
from agentls.agent.config.cost_keys import ADDED_LISTS, RULES
from agentls.agent.config.loader import load
from agentls.agent.config.models import AgentConfig, ContextConfig, DiagnosticsConfig, IndexerConfig
from agentls.agent.contract import RunRequest
from agentls.agent.prompts.slash_command_runs import prepare

#: Each cost key set far above its default, as a repository wanting the user's tokens would.
RAISED = {
    "indexer": {
        "enabled": True,
        "max_file_size": 50_000_000,
        "hold_text": True,
        "max_text_bytes": 10**12,
        "map_tokens": 600_000,
        # 0: the symbol process never ends, so its memory is held all day.
        "symbols_idle_seconds": 0,
    },
    "context": {
        "max_tool_result_tokens": 0,
        "summarize_after_steps": 1,
        "keep_recent_steps": 400,
        "max_context_tokens": 0,
        "compact_at": 0,
        "compact_to": 1.0,
        "instructions_bytes": 10**9,
    },
    "diagnostics": {"enabled": True, "wait_ms": 60_000, "max_problems": 200},
}

#: What the user chose themselves, below every default, so a default value is a raise too.
USER_OWN = {
    "indexer": {
        "enabled": False,
        "max_file_size": 1000,
        "hold_text": False,
        "max_text_bytes": 1000,
        "map_tokens": 100,
        "exclude_dirs": ["secret"],
    },
    "context": {
        "max_tool_result_tokens": 100,
        "summarize_after_steps": 0,
        "keep_recent_steps": 1,
        "max_context_tokens": 1000,
        "compact_at": 0.5,
        "compact_to": 0.2,
        "instructions_bytes": 100,
    },
    "diagnostics": {"enabled": False, "wait_ms": 10, "max_problems": 1},
}


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))


@pytest.mark.parametrize("model", [IndexerConfig, ContextConfig, DiagnosticsConfig])
def test_every_key_of_a_section_an_untrusted_folder_sets_says_which_way_is_cheaper(
    model: type[IndexerConfig | ContextConfig | DiagnosticsConfig],
) -> None:
    section = {IndexerConfig: "indexer", ContextConfig: "context"}.get(model, "diagnostics")
    listed = {key for s, key in [*RULES, *ADDED_LISTS] if s == section}
    assert listed | ({"servers"} if section == "diagnostics" else set()) == set(model.model_fields)


def test_raising_any_cost_key_is_ignored_and_named(tmp_path: Path, user_config_dir: Path) -> None:
    write(tmp_path / ".agentls.yaml", RAISED)
    loaded = load(tmp_path, trusted=False)
    defaults = load(tmp_path, trusted=False, workspace_file=False).config
    for section, keys in RAISED.items():
        for key in keys:
            if getattr(getattr(defaults, section), key) == keys[key]:
                continue  # the default already: nothing to refuse
            assert getattr(getattr(loaded.config, section), key) == getattr(
                getattr(defaults, section), key
            ), f"{section}.{key}"
            assert any(item.startswith(f"{section}.{key} (") for item in loaded.ignored), key
    assert "context.max_context_tokens (0 (no limit) is more than 80000)" in loaded.ignored
    assert loaded.notice("trust it") and "indexer.map_tokens" in str(loaded.notice("trust it"))
    # The same keys from a trusted folder apply.
    assert load(tmp_path, trusted=True).config.indexer.map_tokens == 600_000


def test_under_the_users_own_lower_values_even_the_defaults_are_raises(
    tmp_path: Path, user_config_dir: Path
) -> None:
    write(user_config_dir / "config.yaml", USER_OWN)
    defaults = {
        section: getattr(load(tmp_path, trusted=True, user_file=tmp_path / "none").config, section)
        for section in USER_OWN
    }
    write(
        tmp_path / ".agentls.yaml",
        {
            section: {k: getattr(defaults[section], k) for k in keys if k != "exclude_dirs"}
            | ({"exclude_dirs": ["more"]} if section == "indexer" else {})
            for section, keys in USER_OWN.items()
        },
    )
    loaded = load(tmp_path, trusted=False)
    for section, keys in USER_OWN.items():
        for key, value in keys.items():
            if key != "exclude_dirs":
                assert getattr(getattr(loaded.config, section), key) == value, key
    # Excludes add up: the folder cannot drop the user's.
    assert loaded.config.indexer.exclude_dirs == ["secret", "more"]


def test_lowering_a_cost_key_applies(tmp_path: Path, user_config_dir: Path) -> None:
    write(
        tmp_path / ".agentls.yaml",
        {
            "indexer": {"map_tokens": 200, "hold_text": False, "symbols_idle_seconds": 30},
            "context": {
                "instructions_bytes": 2048,
                "max_tool_result_tokens": 50,
                "compact_at": 0.5,
            },
            "diagnostics": {"wait_ms": 0, "max_problems": "3"},
        },
    )
    loaded = load(tmp_path, trusted=False)
    config = loaded.config
    assert config.indexer.map_tokens == 200 and not config.indexer.hold_text
    assert config.indexer.symbols_idle_seconds == 30
    assert config.context.instructions_bytes == 2048
    assert config.context.max_tool_result_tokens == 50 and config.context.compact_at == 0.5
    assert config.diagnostics.wait_ms == 0 and config.diagnostics.max_problems == 3
    assert loaded.ignored == []


def test_a_new_agent_of_an_untrusted_folder_starts_from_the_users_build_agent(
    tmp_path: Path, user_config_dir: Path
) -> None:
    user_build = {
        "confirm_mode": "confirm-all",
        "sandbox": "read-only",
        "allowed_tools": ["read_file", "grep", "edit_file"],
        "max_steps": 7,
    }
    write(user_config_dir / "config.yaml", {"agents": {"build": user_build}})
    write(
        tmp_path / ".agentls.yaml",
        {
            "agents": {
                "fast": {"system_prompt": "Go.", "description": "Quick fixes."},
                "wide": {
                    "system_prompt": "Go.",
                    "allowed_tools": [],
                    "confirm_mode": "confirm-sensitive",
                    "sandbox": "workspace-write",
                    "max_steps": 50,
                },
                "narrow": {"system_prompt": "Look.", "allowed_tools": ["read_file"]},
            }
        },
    )
    loaded = load(tmp_path, trusted=False)
    build = loaded.config.agents["build"]
    for name in ("fast", "wide", "narrow"):
        agent = loaded.config.agents[name]
        assert widening(agent, build) == [], name
        assert agent.confirm_mode == "confirm-all" and agent.sandbox == "read-only"
    assert loaded.config.agents["fast"].allowed_tools == user_build["allowed_tools"]
    assert loaded.config.agents["fast"].description == "Quick fixes."
    assert loaded.config.agents["narrow"].allowed_tools == ["read_file"]
    for key in ("allowed_tools", "confirm_mode", "sandbox", "max_steps"):
        assert any(item.startswith(f"agents.wide.{key} (") for item in loaded.ignored), key
    # A trusted folder's agent is its own.
    assert load(tmp_path, trusted=True).config.agents["wide"].sandbox == "workspace-write"


def test_widening_names_each_setting_that_lets_an_agent_do_more() -> None:
    base = AgentConfig(
        system_prompt="",
        allowed_tools=["read_file"],
        confirm_mode="confirm-all",
        sandbox="read-only",
        max_steps=5,
        command_timeout=10,
    )
    wide = AgentConfig(system_prompt="", allowed_commands=["curl*"], network=True)
    assert [item.split(" ")[0] for item in widening(wide, base)] == list(REACH_KEYS)
    assert widening(base, base) == []


def _prompt_file(folder: Path, name: str, agent: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"---\nagent: {agent}\n---\nDo it.\n")


@pytest.mark.parametrize("trusted", [False, True])
async def test_a_workspace_prompt_file_switches_only_to_an_agent_no_wider_than_the_users(
    tmp_path: Path, user_config_dir: Path, trusted: bool
) -> None:
    _prompt_file(tmp_path / ".github" / "prompts", "ship.prompt.md", "build")
    _prompt_file(tmp_path / ".github" / "prompts", "look.prompt.md", "review")
    config = load(tmp_path, trusted=trusted).config
    tools = ["read_file", "write_file"]

    async def prepared(prompt: str, agent: str) -> tuple[str, list[str]]:
        request = RunRequest(prompt=prompt, agent=agent)
        done = await prepare(request, config, root=tmp_path, trusted=trusted, known_tools=tools)
        return done.request.agent, done.notes

    agent, notes = await prepared("/ship", "plan")
    assert agent == "plan"
    assert "asks for agent build, which may do more than plan" in notes[0]
    assert "allowed_tools (would allow every tool)" in notes[0]
    assert await prepared("/ship", "mixed") == ("build", [])  # mixed builds anyway
    assert await prepared("/look", "build") == ("review", [])  # narrower: switched
    agent, notes = await prepared("/ship", "review")
    assert agent == "review" and notes


async def test_the_users_own_prompt_file_switches_agents_freely(
    tmp_path: Path, user_config_dir: Path
) -> None:
    _prompt_file(user_config_dir / "prompts", "ship.prompt.md", "build")
    config = load(tmp_path, trusted=False).config
    request = RunRequest(prompt="/ship", agent="plan")
    done = await prepare(request, config, root=tmp_path, trusted=False, known_tools=[])
    assert done.request.agent == "build" and done.notes == []
