"""Allow, ask and deny rules for shell commands, decided in the one place that decides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.llm.models import ToolCall
from agentls.agent.policy.approval import ApprovalAnswer, ApprovalRequest, BaseApprover, decide
from agentls.agent.policy.command_rules import CommandRules, evaluate_command, suggest_rule
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.tools.exec import ExecuteCommandTool, PythonExecutorTool
from agentls.agent.workspace import DiskFileAccess

RULES = CommandRules(
    allow=("pytest*", "git status*", "ls*"), ask=("git push*",), deny=("rm*", "curl*")
)
MODES = ["yolo", "confirm-sensitive", "confirm-all"]


def _agent(mode: str = "confirm-sensitive", **more: Any) -> AgentConfig:
    return AgentConfig.model_validate({"system_prompt": "x", "confirm_mode": mode, **more})


def _decide(command: str, mode: str = "confirm-sensitive", **kw: Any) -> Any:
    return decide(ExecuteCommandTool(), {"command": command}, _agent(mode), rules=RULES, **kw)


# -- deny ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_a_denied_command_is_forbidden_in_every_mode(mode: str) -> None:
    decision = _decide("rm -rf build", mode, allowed_for_run=frozenset({"execute_command"}))
    assert decision.kind == "forbidden"
    assert decision.reason == "`rm -rf build` matches the deny rule `rm*`"
    assert decision.rule is not None and decision.rule.tier == "deny"
    assert decision.rule.rule == "rm*"


@pytest.mark.parametrize(
    ("command", "where"),
    [
        ("timeout 5 rm -rf build", "run by timeout"),
        ("env X=1 rm x", "run by env"),
        ("sudo rm x", "run by sudo"),
        ("sudo -u root -- rm x", "run by sudo"),
        ("nice -n 5 rm x", "run by nice"),
        ("nohup rm x", "run by nohup"),
        ("ls | xargs rm", "run by xargs"),
        ("ls | xargs -0 -I{} rm {}", "run by xargs"),
        ("find . -name '*.o' -exec rm {} \\;", "run by find -exec"),
        ("find . -execdir rm -f {} +", "run by find -exec"),
        ("bash -c 'rm -rf build'", "in bash -c"),
        ("sh -ec 'ls; rm x'", "in sh -c"),
        ("eval 'rm x'", "run by eval"),
        ("echo $(rm x)", "in a substitution"),
        ("cat <(rm x)", "in a process substitution"),
        ("su -c 'rm x'", "run by su"),
        ("flock /tmp/lock -c 'rm x'", "run by flock"),
        ("watch -n 1 'rm x'", "run by watch"),
        ("busybox rm x", "run by busybox"),
        ("trap 'rm x' EXIT", "run by trap"),
        ("sudo -R / rm -rf /", "run by sudo"),  # an option the table does not know
        ("timeout 5 sudo env A=1 rm x", "run by env"),
    ],
)
def test_deny_looks_inside_wrappers_shells_and_substitutions(command: str, where: str) -> None:
    decision = _decide(command, "yolo")
    assert decision.kind == "forbidden", decision
    assert decision.rule is not None and decision.rule.where == where


@pytest.mark.parametrize(
    "command", ["/bin/rm x", "X=1 rm x", "\\rm x", "r''m x", "RM x", "curl -s https://x.example"]
)
def test_deny_matches_however_the_command_is_written(command: str) -> None:
    assert _decide(command, "yolo").kind == "forbidden"


def test_deny_does_not_catch_a_word_that_is_only_an_argument() -> None:
    for command in ("echo rm", "timeout 5 pytest -k curl", "ls | xargs grep curl"):
        assert _decide(command, "yolo").kind == "skip", command


@pytest.mark.parametrize(
    "command",
    [
        "bash script.sh",
        "curl_cmd=x; $curl_cmd",
        "ls | sh",
        "source ./env.sh",
        "[[ -f x ]] && ls",
        "alias ls=rm; ls x",
        "python3 -c 'import shutil; shutil.rmtree(\"x\")'",
        "git -c alias.x='!rm -rf /' x",
    ],
)
def test_what_the_deny_rules_cannot_check_is_asked_about_even_in_yolo(command: str) -> None:
    decision = _decide(command, "yolo")
    assert decision.kind == "needs_approval" and decision.insist
    assert "cannot be checked against your rules (deny and ask)" in decision.reason


def test_without_deny_or_ask_rules_yolo_runs_what_it_cannot_check() -> None:
    decision = decide(ExecuteCommandTool(), {"command": "bash script.sh"}, _agent("yolo"))
    assert decision.kind == "skip"


# -- ask ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_an_ask_rule_asks_in_every_mode_and_after_allow_for_this_run(mode: str) -> None:
    decision = _decide("git push origin main", mode, allowed_for_run=frozenset({"execute_command"}))
    assert decision.kind == "needs_approval" and decision.insist
    assert decision.reason == "`git push origin main` matches the ask rule `git push*`"


def test_an_ask_rule_wins_over_a_matching_allow_rule() -> None:
    rules = CommandRules(allow=("git*",), ask=("git push*",))
    decision = decide(ExecuteCommandTool(), {"command": "git push"}, _agent(), rules=rules)
    assert decision.kind == "needs_approval" and decision.insist


def test_an_ask_rule_sees_through_git_global_options_and_wrappers() -> None:
    assert _decide("git -C . push", "yolo").kind == "needs_approval"
    assert _decide("timeout 60 git push", "yolo").kind == "needs_approval"


def test_deny_wins_over_ask() -> None:
    rules = CommandRules(ask=("rm*",), deny=("rm -rf*",))
    decision = decide(ExecuteCommandTool(), {"command": "rm -rf x"}, _agent(), rules=rules)
    assert decision.kind == "forbidden"


# -- allow ------------------------------------------------------------------------------------
def test_config_allow_rules_and_the_agents_own_add_up() -> None:
    agent = _agent(allowed_commands=["make*"])
    decision = decide(ExecuteCommandTool(), {"command": "pytest -q && make"}, agent, rules=RULES)
    assert decision.kind == "skip"
    assert decision.reason == "every command matches an allow rule (`pytest*`, `make*`)"


def test_an_allow_rule_does_not_cover_a_command_that_runs_code() -> None:
    rules = CommandRules(allow=("git*",))
    decision = decide(
        ExecuteCommandTool(),
        {"command": "git -c core.fsmonitor='sh -c evil' status"},
        _agent(),
        rules=rules,
    )
    assert decision.kind == "needs_approval" and not decision.insist
    assert "matches the allow rule `git*`, but `git -c` sets git configuration" in (decision.reason)


def test_without_a_sandbox_an_allow_rule_no_longer_skips_the_question() -> None:
    decision = _decide("pytest -q", sandbox_available=False)
    assert decision.kind == "needs_approval"
    assert "no sandbox is available" in decision.reason and "pytest*" in decision.reason
    assert not decision.rule_would_skip


def test_with_the_sandbox_turned_off_on_purpose_an_allow_rule_still_skips() -> None:
    agent = _agent(sandbox="off")
    decision = decide(
        ExecuteCommandTool(),
        {"command": "pytest -q"},
        agent,
        rules=RULES,
        sandbox_available=False,
    )
    assert decision.kind == "skip"


def test_an_unmatched_command_asks_and_says_a_rule_would_skip_it() -> None:
    decision = _decide("pytest -q && make")
    assert decision.kind == "needs_approval" and decision.rule_would_skip
    assert decision.reason == "`make` matches no allow rule"


def test_python_is_not_a_shell_command_so_no_rule_applies() -> None:
    rules = CommandRules(allow=("*",), deny=("*",))
    tool, args = PythonExecutorTool(), {"code": "import os; os.remove('x')"}
    assert decide(tool, args, _agent("yolo"), rules=rules).kind == "skip"
    decision = decide(tool, args, _agent(), rules=rules)
    assert decision.kind == "needs_approval" and not decision.rule_would_skip


def test_an_evaluation_records_which_rule_matched() -> None:
    evaluation = evaluate_command("ls && sudo rm -rf x", RULES)
    assert evaluation.verdict == "forbidden"
    assert evaluation.match is not None
    assert (evaluation.match.tier, evaluation.match.rule, evaluation.match.command) == (
        "deny",
        "rm*",
        "rm -rf x",
    )


# -- the rule "always allow" would save -----------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("pytest -q tests/", "pytest*"),
        ("ls -la; ls src", "ls*"),
        ("git status -s", "git status*"),
        ("npm test", "npm test*"),
        ("./scripts/check.sh --fast", "./scripts/check.sh*"),
        ("pytest && ls", None),  # two programs
        ("git status && git log", None),  # two subcommands
        ("CI=1 pytest", None),
        ("bash -c 'pytest'", None),
        ("timeout 60 pytest", None),
        ("python -c 'print(1)'", None),
        ("find . -exec grep x {} +", None),
        ("pytest > out.txt", None),
    ],
)
def test_the_suggested_rule(command: str, rule: str | None) -> None:
    assert suggest_rule(command) == rule


# -- through the engine, with the rules of the run's config ---------------------------------------
class _Asks(BaseApprover):
    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


def _engine(root: Path, approver: BaseApprover, **commands: list[str]) -> ExecutionEngine:
    config = AppConfig.model_validate({"workspace": {"root": str(root)}, "commands": commands})
    return ExecutionEngine(
        build_registry(), RunContext(DiskFileAccess(root), config, approver=approver)
    )


async def _run(engine: ExecutionEngine, command: str, mode: str = "yolo") -> Any:
    call = ToolCall(id="c1", name="execute_command", arguments={"command": command})
    return await engine.execute_tool_call(call, _agent(mode, sandbox="off"))


async def test_the_model_is_told_which_deny_rule_refused_its_command(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    engine = _engine(tmp_path, _Asks(), deny=["rm*"])
    result = await _run(engine, "rm -rf build")
    assert not result.result.success
    assert result.result.output.startswith(
        "Not allowed: `rm -rf build` matches the deny rule `rm*`."
    )
    assert (tmp_path / "build").is_dir()


async def test_allow_for_this_run_does_not_cover_an_ask_rule(tmp_path: Path) -> None:
    approver = _Asks(ApprovalAnswer("approve_run"), ApprovalAnswer("deny"))
    engine = _engine(tmp_path, approver, ask=["touch*"])
    assert (await _run(engine, "touch a", "confirm-sensitive")).result.success
    denied = await _run(engine, "touch b", "confirm-sensitive")
    assert not denied.result.success and not (tmp_path / "b").exists()
    assert [r.insist for r in approver.asked] == [True, True]
    assert approver.asked[1].reason == "`touch b` matches the ask rule `touch*`"
