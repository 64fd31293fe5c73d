"""Every git agentls starts goes through ``agentls.indexer.safe_git`` (and, in the CI
script, its ``safe_git`` function with the same settings): no other way of starting git
may appear in the sources. A new ``subprocess.run(["git", ...])`` fails here."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from agentls.indexer import safe_git

ROOT = Path(__file__).resolve().parents[2]
#: The product's Python: the engine, the front ends, the index, the language servers and
#: the package's own modules (its links to those folders left out: read once).
PYTHON_DIRS = ("agent", "server", "cli", "acp_agent", "indexer", "langservers")
THE_ONE_MODULE = ROOT / "indexer" / "safe_git.py"
CI_SCRIPTS = sorted((ROOT / "ci").glob("*.sh"))
#: The functions of the CI scripts that start git themselves.
CI_GIT_FUNCTIONS = {"git_env_run", "push_branch"}

#: Calls that start a program: their first argument must not be git.
_STARTERS = re.compile(
    r"(^|\.)(run|Popen|call|check_call|check_output|getoutput|getstatusoutput|system|popen"
    r"|create_subprocess_exec|create_subprocess_shell|run_process|spawn\w*|exec[lv]p?e?)$"
)


def python_sources() -> Iterator[Path]:
    for folder in PYTHON_DIRS:
        yield from sorted((ROOT / folder).rglob("*.py"))
    yield from sorted((ROOT / "src" / "agentls").glob("*.py"))


def _names_git(node: ast.AST) -> bool:
    """A string that is the program git, or a shell line starting it."""
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"\s*(\S*/)?git(\s.*)?", node.value, re.DOTALL) is not None
    )


def _call_name(call: ast.Call) -> str:
    return ast.unparse(call.func)


def git_starts(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) of each place in ``tree`` that starts git some other way."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and _names_git(node.elts[0]):
            yield node.lineno, f"an argv starting with git: {ast.unparse(node)[:60]}"
        if isinstance(node, ast.Call) and _STARTERS.search(_call_name(node)):
            first = node.args[0] if node.args else None
            if first is not None and (_names_git(first) or "SAFE_GIT" in ast.unparse(first)):
                yield node.lineno, f"{_call_name(node)} starting git"
            if isinstance(first, ast.Starred) and "GIT" in ast.unparse(first).upper():
                yield node.lineno, f"{_call_name(node)} starting git"


def test_the_scan_finds_the_ways_it_looks_for() -> None:
    source = """
import subprocess, asyncio, os
subprocess.run(["git", "commit"])
subprocess.Popen(("/usr/bin/git", "add"))
asyncio.create_subprocess_exec("git", "status")
os.system("git add -A && git commit -m x")
subprocess.check_output("git status", shell=True)
argv = ["git"] + rest
"""
    assert len(list(git_starts(ast.parse(source)))) >= 6
    harmless = """
if program == "git": pass
programs = {"git", "npm"}
raise WorktreeError("git could not be started")
shutil.which("git")
"""
    assert list(git_starts(ast.parse(harmless))) == []


def test_no_python_source_starts_git_but_the_one_module() -> None:
    found = []
    for path in python_sources():
        if path.resolve() == THE_ONE_MODULE.resolve():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found += [f"{path.relative_to(ROOT)}:{line}: {what}" for line, what in git_starts(tree)]
    assert found == [], "start git through agentls.indexer.safe_git.run_git:\n" + "\n".join(found)


# -- the CI script -----------------------------------------------------------------------

_SHELL_GIT = re.compile(
    r"(^|[;&|(!{`]|\$\(|\b(then|do|else|if|while|until|exec|command|env|time|sudo|xargs)\s)"
    r"\s*(\S*/)?git(\s|$)"
)


def shell_git_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each git started outside ``CI_GIT_FUNCTIONS``."""
    found = []
    inside: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        start = re.match(r"^(\w+)\(\)\s*\{", stripped)
        if start:
            inside = start.group(1)
        elif stripped == "}":
            inside = None
        code = stripped.split(" #", 1)[0] if not stripped.startswith("#") else ""
        if code and _SHELL_GIT.search(code) and inside not in CI_GIT_FUNCTIONS:
            found.append((number, stripped))
    return found


def test_the_shell_scan_finds_a_plain_git() -> None:
    script = 'x=1\ngit add -A\nif ! git diff --quiet; then :; fi\nv="$(git rev-parse HEAD)"\n'
    assert [n for n, _ in shell_git_lines(script)] == [2, 3, 4]
    assert shell_git_lines("safe_git add -A\n# git add\necho git\n") == []


def test_the_ci_scripts_start_git_only_through_safe_git() -> None:
    assert CI_SCRIPTS
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line}"
        for path in CI_SCRIPTS
        for n, line in shell_git_lines(path.read_text())
    ]
    assert found == [], "run git through safe_git in the CI script:\n" + "\n".join(found)


def _shell_array(text: str, name: str) -> list[str]:
    match = re.search(rf"^{name}=\((.*?)\)", text, re.MULTILINE | re.DOTALL)
    assert match, f"{name} is not defined in the CI script"
    return match.group(1).split()


def test_the_ci_script_gives_git_the_same_settings() -> None:
    text = (ROOT / "ci" / "safe-git.sh").read_text()
    expected = list(safe_git.GLOBAL_OPTIONS)
    for key, value in safe_git.SETTINGS:
        expected += ["-c", f"{key}={value}"]
    assert _shell_array(text, "SAFE_GIT_OPTIONS") == expected
    assert set(_shell_array(text, "SAFE_GIT_ENV")) == set(safe_git.ENV_KEPT)
    for name, value in safe_git.ENV_FIXED.items():
        assert f"{name}={value}" in text
