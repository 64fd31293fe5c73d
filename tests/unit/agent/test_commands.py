"""Commands from prompt files: where they come from, their arguments, what they may narrow."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.prompts.slash_commands import (
    SlashCommandError,
    expand,
    load_slash_commands,
    parse_invocation,
)

TOOLS = ["read_file", "edit_file", "execute_command", "grep"]


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(
        root / ".github/prompts/fix-tests.prompt.md",
        "---\ndescription: Fix the failing tests of a module\nargument-hint: <module>\n"
        "agent: build\nmodel: openai/gpt-4.1\ntools: [read_file, edit_file, nosuchtool]\n---\n"
        "Run the tests of $ARGUMENTS and fix what fails. Start with $1.\n",
    )
    write(
        root / ".github/prompts/release.prompt.md",
        "---\ndescription: Prepare a release\n---\n"
        "Prepare release ${input:version:x.y.z} for ${input:channel}.\n",
    )
    write(
        root / ".claude/commands/explain.md", "# Explain the code\n\nExplain $ARGUMENTS simply.\n"
    )
    write(root / ".github/prompts/init.prompt.md", "Hijack init.\n")
    write(root / ".github/prompts/bad.prompt.md", "---\ndescription: [unclosed\n---\nx\n")
    write(root / ".github/prompts/latin.prompt.md", b"caf\xe9\n")
    return root


def test_commands_come_from_both_kinds_of_files_and_the_built_ins(ws: Path, tmp_path: Path) -> None:
    found = load_slash_commands(ws, user_dir=tmp_path / "user")
    names = [c.name for c in found.listed()]
    assert names == [
        "clear",
        "compact",
        "explain",
        "fix-tests",
        "init",
        "model",
        "release",
        "review",
    ]
    fix = found.get("fix-tests")
    assert fix.description == "Fix the failing tests of a module" and fix.hint == "<module>"
    assert fix.source == "workspace" and fix.path == ".github/prompts/fix-tests.prompt.md"
    assert found.get("explain").description == "Explain the code"
    assert found.get("release").hint == "version=<x.y.z> channel=<channel>"
    assert found.get("init").source == "built-in"


def test_every_broken_file_is_named(ws: Path, tmp_path: Path) -> None:
    problems = load_slash_commands(ws, user_dir=tmp_path / "user").problems
    assert any(
        p.startswith(".github/prompts/bad.prompt.md: its front matter is not valid YAML on line")
        for p in problems
    ), problems
    assert ".github/prompts/latin.prompt.md is not used: it is not UTF-8 text (line 1)" in problems
    assert ".github/prompts/init.prompt.md: /init is a built-in command; not replaced" in problems


def test_a_workspace_command_replaces_the_users_and_says_so(ws: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    write(user / "prompts/explain.prompt.md", "Mine.\n")
    write(user / "commands/mine.md", "Only mine: $ARGUMENTS\n")
    found = load_slash_commands(ws, user_dir=user)
    assert found.get("mine").source == "user" and found.get("mine").path == "your commands/mine.md"
    assert found.get("explain").source == "workspace"
    assert ".claude/commands/explain.md replaces /explain of your prompts/explain.prompt.md" in (
        found.problems
    )


def test_an_unknown_command_lists_the_known_ones(ws: Path, tmp_path: Path) -> None:
    with pytest.raises(
        SlashCommandError, match=r"unknown command /nope; the commands here are: /clear"
    ):
        load_slash_commands(ws, user_dir=tmp_path).get("nope")


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("/fix-tests auth", ("fix-tests", "auth")),
        ("/review", ("review", "")),
        ("  /release version=1.2 channel=beta ", ("release", "version=1.2 channel=beta")),
        ("/explain\nthe parser\nplease", ("explain", "the parser\nplease")),
        ("fix the tests", None),
        ("/ not a command", None),
        ("//comment", None),
        ("/usr/bin/env is a path", None),
    ],
)
def test_a_prompt_is_a_command_when_it_starts_with_a_slash_and_a_name(
    prompt: str, expected: tuple[str, str] | None
) -> None:
    assert parse_invocation(prompt) == expected


def test_arguments_fill_the_body_and_tools_only_narrow(ws: Path, tmp_path: Path) -> None:
    command = load_slash_commands(ws, user_dir=tmp_path).get("fix-tests")
    done = expand(command, "auth billing", known_tools=TOOLS, trusted=True)
    assert done.prompt == "Run the tests of auth billing and fix what fails. Start with auth."
    assert done.tools == ("read_file", "edit_file") and done.agent == "build"
    assert done.model == "openai/gpt-4.1"
    assert done.notes == (
        ".github/prompts/fix-tests.prompt.md: unknown tool(s) nosuchtool left out of its `tools`",
    )


def test_an_untrusted_folders_prompt_file_does_not_choose_the_model(
    ws: Path, tmp_path: Path
) -> None:
    command = load_slash_commands(ws, user_dir=tmp_path).get("fix-tests")
    done = expand(command, "auth", known_tools=TOOLS, trusted=False)
    assert done.model is None
    assert "its model openai/gpt-4.1 is ignored: this folder is not trusted" in done.notes[-1]


def test_inputs_come_as_name_value_and_a_missing_one_is_a_clear_error(
    ws: Path, tmp_path: Path
) -> None:
    command = load_slash_commands(ws, user_dir=tmp_path).get("release")
    done = expand(command, "version=1.2 channel=beta", known_tools=TOOLS, trusted=True)
    assert done.prompt == "Prepare release 1.2 for beta."
    with pytest.raises(SlashCommandError, match=r"needs channel: run `/release channel=...`"):
        expand(command, "version=1.2", known_tools=TOOLS, trusted=True)


def test_arguments_without_a_placeholder_are_added_at_the_end(tmp_path: Path) -> None:
    root = tmp_path / "r"
    write(root / ".claude/commands/plain.md", "Tidy the imports.\n")
    command = load_slash_commands(root, user_dir=tmp_path).get("plain")
    assert expand(command, "in src/", known_tools=TOOLS, trusted=True).prompt == (
        "Tidy the imports.\n\nin src/"
    )
