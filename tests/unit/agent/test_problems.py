"""Problems after edits in the engine: which problems are new, what the edit's result says,
and the FileAccess wrapper and get_problems over a source that computes problems from text
(the real sources have their own tests: tests/integration/test_language_servers.py, the
editors' e2e tests)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.llm.models import ToolCall
from agentls.agent.problems import (
    FileProblems,
    Problem,
    ProblemCheckingFiles,
    Problems,
    edit_report,
    new_problems,
)
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess, FileChange

YOLO = AgentConfig(system_prompt="t", confirm_mode="yolo")


def p(
    line: int, message: str, severity: Any = "error", col: int = 1, path: str = "a.py"
) -> Problem:
    return Problem(path, line, col, severity, message, "checker")


# -- new_problems ------------------------------------------------------------------------


def test_a_problem_moved_by_lines_added_above_is_not_new() -> None:
    old = "x = y\n"
    new = "import os\n\nx = y\n"
    before = [p(1, '"y" is not defined', col=5)]
    after = [p(3, '"y" is not defined', col=5)]
    assert new_problems(before, after, old, new) == []


def test_a_second_occurrence_of_the_same_message_is_new() -> None:
    old = "x = y\n"
    new = "x = y\nz = y\n"
    before = [p(1, '"y" is not defined', col=5)]
    after = [p(1, '"y" is not defined', col=5), p(2, '"y" is not defined', col=5)]
    assert new_problems(before, after, old, new) == [p(2, '"y" is not defined', col=5)]


def test_a_problem_inside_the_rewritten_lines_that_was_there_before_is_not_new() -> None:
    old = "a = y\n"
    new = "b = y\n"
    before = [p(1, '"y" is not defined', col=5)]
    after = [p(1, '"y" is not defined', col=5)]
    assert new_problems(before, after, old, new) == []


def test_new_problems_come_most_severe_first() -> None:
    after = [p(2, "unused", "warning"), p(5, "bad type"), p(1, "hint", "hint")]
    assert [x.message for x in new_problems([], after, "", "")] == ["bad type", "unused", "hint"]


def test_whitespace_in_messages_does_not_make_a_problem_new() -> None:
    before = [p(1, "Argument of type\n  int is wrong")]
    after = [p(1, "Argument of type int is wrong")]
    assert new_problems(before, after, "a\n", "a\n") == []


# -- the edit's report ---------------------------------------------------------------------


def test_the_report_names_each_new_error_and_warning_like_an_editor() -> None:
    found = {
        "app.py": FileProblems(
            before=[],
            after=[
                Problem("app.py", 41, 9, "error", '"total_price" is not defined', "Pylance"),
                Problem("app.py", 3, 1, "information", "just so you know", "Pylance"),
            ],
        )
    }
    report = edit_report(found, {"app.py": ""}, {"app.py": ""}, limit=10)
    assert report == (
        "New problems after this edit (1):\n"
        'app.py:41:9 error: "total_price" is not defined (Pylance)'
    )


def test_the_report_lists_at_most_the_limit_and_counts_the_rest() -> None:
    after = [p(line, f"problem {line}") for line in range(1, 8)]
    report = edit_report({"a.py": FileProblems([], after)}, {}, {"a.py": ""}, limit=3)
    lines = report.splitlines()
    assert lines[0] == "New problems after this edit (7):"
    assert lines[1:4] == [f"a.py:{n}:1 error: problem {n} (checker)" for n in (1, 2, 3)]
    assert lines[4] == "… and 4 more (get_problems lists them all)"


def test_nothing_is_reported_when_nothing_is_new_or_nothing_is_known_after() -> None:
    same = [p(1, "old")]
    assert (
        edit_report({"a.py": FileProblems(same, same)}, {"a.py": "x\n"}, {"a.py": "x\n"}, 5) == ""
    )
    assert edit_report({"a.py": FileProblems(same, None)}, {}, {"a.py": ""}, 5) == ""


def test_without_a_baseline_the_problems_are_listed_and_said_to_maybe_be_older() -> None:
    report = edit_report({"a.py": FileProblems(None, [p(2, "bad")])}, {}, {"a.py": ""}, 5)
    assert report.splitlines() == [
        "Problems in a.py after this edit (1; its problems before the edit are not known, so "
        "some may be older):",
        "a.py:2:1 error: bad (checker)",
    ]


# -- a source for the wrapper and the tool -------------------------------------------------


def problems_of(path: str, text: str) -> list[Problem]:
    """Every line that mentions ``undefined_name`` has an error there."""
    return [
        Problem(
            path,
            n,
            line.index("undefined_name") + 1,
            "error",
            "undefined_name is not defined",
            "fake",
        )
        for n, line in enumerate(text.splitlines(), 1)
        if "undefined_name" in line
    ]


class FakeWatch:
    def __init__(self, source: FakeSource, before: Mapping[str, str | None]) -> None:
        self.source = source
        self.before = before
        self.closed = False

    async def after_edit(self, texts: Mapping[str, str], wait: float) -> dict[str, FileProblems]:
        if self.source.never_answers:  # only the caller's own bound ends this
            await asyncio.sleep(3600)
            return {path: FileProblems(None, None) for path in texts}
        await asyncio.sleep(self.source.delay)
        return {
            path: FileProblems(
                problems_of(path, self.before.get(path) or ""), problems_of(path, text)
            )
            for path, text in texts.items()
        }

    async def close(self) -> None:
        self.closed = True


class FakeSource:
    def __init__(self, *, delay: float = 0.0, never_answers: bool = False) -> None:
        self.delay = delay
        self.never_answers = never_answers
        self.seen: list[str] = []
        self.watches: list[FakeWatch] = []
        self.notices = ["the checker is slow today"]

    def covers(self, path: str) -> bool:
        return path.endswith(".py")

    def saw(self, path: str, text: str) -> None:
        self.seen.append(path)

    async def begin_edit(self, texts: Mapping[str, str | None]) -> FakeWatch:
        watch = FakeWatch(self, texts)
        self.watches.append(watch)
        return watch

    async def problems(self, texts: Mapping[str, str] | None, wait: float) -> Problems:
        found = Problems()
        for path, text in (texts or {}).items():
            found.problems += problems_of(path, text)
        return found

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    (tmp_path / "notes.md").write_text("hello\n")
    return tmp_path


def checked(
    ws: Path, source: FakeSource, wait: float = 2.0
) -> tuple[ProblemCheckingFiles, list[Any]]:
    told: list[Any] = []
    files = ProblemCheckingFiles(
        DiskFileAccess(ws), source, wait=wait, limit=10, observer=told.append
    )
    return files, told


async def test_an_edit_that_introduces_an_error_is_told_that_error(ws: Path) -> None:
    source = FakeSource()
    files, told = checked(ws, source)
    old = (await files.read_text("app.py")).text
    new = old.replace("return 1", "return undefined_name")
    outcome = await files.apply([FileChange("app.py", new, old)], confirm=False)
    assert outcome.status == "applied"
    assert outcome.problems == (
        "New problems after this edit (1):\napp.py:2:12 error: undefined_name is not defined (fake)"
    )
    assert source.seen == ["app.py"] and source.watches[0].closed
    assert [n.message for n in told] == ["the checker is slow today"]


async def test_a_clean_edit_adds_nothing(ws: Path) -> None:
    files, _ = checked(ws, FakeSource())
    old = (await files.read_text("app.py")).text
    outcome = await files.apply([FileChange("app.py", old.replace("1", "2"), old)], confirm=False)
    assert outcome.status == "applied" and outcome.problems == ""


async def test_a_file_no_source_checks_is_not_waited_for(ws: Path) -> None:
    # A source that answers only after far longer than the suite's timeout: were it asked,
    # the test would hang until the timeout fails it.
    source = FakeSource(delay=3600)
    files, _ = checked(ws, source)
    outcome = await files.apply([FileChange("notes.md", "bye\n", "hello\n")], confirm=False)
    assert outcome.status == "applied" and outcome.problems == ""
    assert files.last_wait == 0.0
    assert source.watches == []


async def test_a_source_that_never_answers_costs_at_most_the_wait(ws: Path) -> None:
    # Were the wait not bounded, this edit would hang until the suite's timeout fails it.
    files, _ = checked(ws, FakeSource(never_answers=True), wait=0.3)
    old = (await files.read_text("app.py")).text
    outcome = await files.apply([FileChange("app.py", "undefined_name\n", old)], confirm=False)
    assert outcome.status == "applied" and outcome.problems == ""
    assert files.last_wait >= 0.3  # it did wait for the source, then gave up


async def test_a_refused_edit_is_not_checked(ws: Path) -> None:
    source = FakeSource()
    files, _ = checked(ws, source)
    # stale: the base text is not what the file holds
    outcome = await files.apply(
        [FileChange("app.py", "undefined_name\n", "other\n")], confirm=False
    )
    assert outcome.status == "stale" and outcome.problems == ""
    assert source.watches[0].closed


def engine(ws: Path, source: FakeSource | None, **diagnostics: Any) -> ExecutionEngine:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}, "diagnostics": diagnostics})
    files = DiskFileAccess(ws)
    if source is not None:
        files = ProblemCheckingFiles(files, source, wait=1, limit=10)
    return ExecutionEngine(build_registry(), RunContext(files, config, problems=source))


async def call(e: ExecutionEngine, name: str, **args: Any) -> Any:
    return (await e.execute_tool_call(ToolCall(id="c1", name=name, arguments=args), YOLO)).result


async def test_edit_file_tells_the_model_the_new_problem(ws: Path) -> None:
    result = await call(
        engine(ws, FakeSource()),
        "edit_file",
        path="app.py",
        old_str="return 1",
        new_str="return undefined_name",
    )
    assert result.success
    assert result.output == (
        "Edited app.py at line 2 (+1 -1)\n\nNew problems after this edit (1):\n"
        "app.py:2:12 error: undefined_name is not defined (fake)"
    )


async def test_get_problems_lists_the_problems_of_the_files_asked_about(ws: Path) -> None:
    (ws / "bad.py").write_text("x = undefined_name\ny = undefined_name\n")
    e = engine(ws, FakeSource())
    result = await call(e, "get_problems", paths=["bad.py", "app.py", "notes.md"], max_results=1)
    assert result.success
    assert result.output.splitlines() == [
        "bad.py:1:5 error: undefined_name is not defined (fake)",
        "[1 more not shown; narrow the paths]",
        "notes.md: no language server checks this kind of file",
    ]
    clean = await call(e, "get_problems", paths=["app.py"], severity="error")
    assert clean.output == "No errors in app.py."
    outside = await call(e, "get_problems", paths=["../x.py"])
    assert "escapes the workspace" in outside.output


async def test_get_problems_without_a_source_says_so(ws: Path) -> None:
    result = await call(engine(ws, None), "get_problems")
    assert not result.success and "neither the editor nor a language server" in result.output


def test_an_untrusted_folder_may_tune_the_report_but_not_start_programs() -> None:
    from agentls.agent.config.models import AppConfig
    from agentls.agent.config.untrusted import filter_untrusted

    data = {
        "diagnostics": {
            "wait_ms": 500,
            "servers": [{"name": "x", "command": ["x"], "files": {".x": "x"}}],
        }
    }
    filtered = filter_untrusted(data, AppConfig(), {}, frozenset())
    assert filtered.kept == {"diagnostics": {"wait_ms": 500}}
    assert filtered.ignored == ["diagnostics.servers"]
