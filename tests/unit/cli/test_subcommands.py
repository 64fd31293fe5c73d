"""The ``agentls`` parser as a user meets it: every subcommand is registered with the
function that runs it (beside its parser, never in the dispatcher), answers ``--help``,
and prints through the masked output."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

import agentls.__main__ as agentls_main
from agentls.cli.main import build_parser
from agentls.cli.main import main as cli_main

#: Every subcommand of the terminal front end: one lost in a refactoring fails here.
SUBCOMMANDS = {
    "run",
    "models",
    "agents",
    "demo",
    "sessions",
    "checkpoints",
    "restore",
    "trust",
    "untrust",
    "mcp",
    "worktrees",
    "apply",
    "discard",
    "mask",
    "slash-commands",
    "commands",  # the old name of slash-commands, still accepted
    "hooks",
    "serve",
    "config-schema",
    "config-docs",
}


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-parsers of ``parser`` by name (none when it has no subcommands)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_subcommand_is_registered_with_the_function_that_runs_it() -> None:
    commands = subparsers(build_parser())
    assert set(commands) == SUBCOMMANDS
    for name, parser in commands.items():
        func = parser.get_default("func")
        assert callable(func), f"`agentls {name}` names no function"
        # The dispatcher knows no command: each one's function lives with its parser.
        where = func.__module__
        assert where != "agentls.cli.main" or name == "serve", f"{name}: {where}"
        assert where.startswith("agentls.cli."), f"{name}: {where}"


def test_only_mask_prints_around_the_masked_output() -> None:
    """``agentls mask`` masks its bytes whole itself; every other command's lines go
    through the masked stdout and stderr."""
    commands = subparsers(build_parser())
    unmasked = {n for n, p in commands.items() if p.get_default("redacted_output") is False}
    assert unmasked == {"mask"}


def help_argvs() -> list[list[str]]:
    argvs = []
    for name, parser in sorted(subparsers(build_parser()).items()):
        if parser.prog.split()[-1] != name:  # an alias (`commands`): its help is its command's
            continue
        argvs.append([name, "--help"])
        argvs += [[name, inner, "--help"] for inner in sorted(subparsers(parser))]
    return argvs


@pytest.mark.parametrize("argv", help_argvs(), ids=" ".join)
def test_help_of_every_subcommand(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # `agentls serve ...` is the language server's, dispatched before the CLI is imported.
    entry = cli_main if argv[0] == "serve" else agentls_main.main
    with pytest.raises(SystemExit) as exited:
        entry(argv)
    assert exited.value.code == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"usage: agentls {' '.join(argv[:-1])} "), printed.out
    assert printed.err == ""


def test_no_subcommand_prints_the_help_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert agentls_main.main([]) == 1
    out = capsys.readouterr().out
    assert out.startswith("usage: agentls ") and "config-schema" in out


def test_serve_in_the_cli_points_at_the_language_server(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["serve"], ["--stdio"], ["--tcp", "config-docs"]):
        assert cli_main(argv) == 1
        assert "started by `agentls --stdio`" in capsys.readouterr().err


def test_a_command_runs_its_function(capsys: pytest.CaptureFixture[str]) -> None:
    assert agentls_main.main(["config-schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "llm" in schema["properties"]


def test_mcp_list_prints_through_the_masked_output(tmp_path: Path) -> None:
    """A token written in a workspace's MCP file is masked in ``agentls mcp list`` like in
    every other line the CLI prints (stdout is the masked one when the command runs)."""
    token = "sk-live-0123456789abcdefghijklmnop"
    server = {"type": "http", "url": "https://mcp.example/", "headers": {"X-Key": token}}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"remote": server}}))
    done = subprocess.run(
        [sys.executable, "-m", "agentls", "mcp", "list", "--workspace", str(tmp_path)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "remote  (.mcp.json)" in done.stdout and "header X-Key: " in done.stdout
    assert token not in done.stdout + done.stderr
