"""execute_command and python_executor against real processes (sandbox off here;
test_sandbox.py covers bubblewrap)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from live_processes import processes_with, sleep_marker

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.exec.process import OutputBuffer, group_members
from agentls.agent.llm.models import LLMResponse
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.exec import (
    ExecuteCommandArgs,
    ExecuteCommandTool,
    PythonExecutorArgs,
    PythonExecutorTool,
    describe_python,
)
from agentls.agent.workspace import DiskFileAccess

#: Where this interpreter really is (a venv's python is usually a symlink).
REAL_PYTHON = Path(sys.executable).resolve()
#: Sleep lengths that name each test's processes (and this test process).
MARKS = {n: sleep_marker(n) for n in range(1, 5)}


def _ctx(root: Path, *, dry_run: bool = False, probe: Any = None, **agent: Any) -> ToolContext:
    """A call's context as the engine builds it: the call's agent in ``agent``."""
    config = AgentConfig.model_validate({"system_prompt": "x", "sandbox": "off", **agent})
    run = RunContext(
        files=DiskFileAccess(root),
        config=AppConfig(),
        run_id="run-1",
        dry_run=dry_run,
        changes_probe=probe,
    )
    return ToolContext(run, agent=config)


async def run_cmd(root: Path, command: str, **kw: Any) -> ToolResult:
    args = ExecuteCommandArgs(command=command, **kw)
    return await ExecuteCommandTool().run(args, _ctx(root))


async def test_success_reports_exit_code_and_output(tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, "echo out; echo err >&2")
    assert result.success
    assert result.output.startswith("Exit code: 0\n")
    assert "out\nerr" in result.output


async def test_failure_reports_exit_code(tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, "echo nope; exit 3")
    assert not result.success
    assert result.error == "Exit code: 3"
    assert "nope" in result.output


async def test_output_is_bounded_head_and_tail(tmp_path: Path) -> None:
    result = await run_cmd(
        tmp_path, "echo FIRST; for i in $(seq 1 30000); do echo line$i; done; echo LAST"
    )
    assert result.success
    assert "FIRST" in result.output and "LAST" in result.output
    assert "of output cut" in result.output
    assert len(result.output) < 40_000


def test_output_buffer_counts_what_it_drops() -> None:
    buffer = OutputBuffer(100)
    for _ in range(100):
        buffer.feed(b"0123456789\n")
    assert buffer.total == 1100
    assert buffer.dropped == 1000
    assert "1000 bytes (" in buffer.text()


async def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    result = await run_cmd(
        tmp_path,
        f"ps -o pgid= -p $$ > pgid; sleep {MARKS[1]} & sleep {MARKS[1]}; wait",
        timeout=1,
    )
    assert not result.success
    assert result.error is not None and result.error.startswith("Timed out after 1 s")
    pgid = int((tmp_path / "pgid").read_text())
    assert group_members(pgid) == []
    assert processes_with(MARKS[1]) == []


async def test_background_children_do_not_outlive_the_command(tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, f"sleep {MARKS[2]} & echo started")
    assert result.success
    assert "background process(es)" in result.output
    assert processes_with(MARKS[2]) == []


async def test_cancellation_kills_the_whole_group(tmp_path: Path) -> None:
    task = asyncio.create_task(
        run_cmd(
            tmp_path, f"ps -o pgid= -p $$ > pgid.tmp; mv pgid.tmp pgid; sleep {MARKS[3]} & wait"
        )
    )
    deadline = time.monotonic() + 60
    while not (tmp_path / "pgid").exists():
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pgid = int((tmp_path / "pgid").read_text())
    assert group_members(pgid) == []
    assert processes_with(MARKS[3]) == []


async def test_cwd_is_confined_to_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    inside = await run_cmd(tmp_path, "pwd", cwd="sub")
    assert inside.success and str((tmp_path / "sub").resolve()) in inside.output
    for bad in ("..", "/etc", "../..", "missing"):
        result = await run_cmd(tmp_path, "pwd", cwd=bad)
        assert not result.success and result.output.startswith("Invalid cwd")


async def test_files_changed_are_listed(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("x")
    result = await run_cmd(tmp_path, "echo a > a.txt; mkdir -p src; echo b > src/b.py; rm old.txt")
    assert "Files changed: a.txt, old.txt, src/b.py" in result.output


async def test_many_changed_files_are_summarised(tmp_path: Path) -> None:
    result = await run_cmd(tmp_path, "for i in $(seq 10 22); do echo $i > f$i; done")
    assert result.output.endswith("(+3 more)")


async def test_a_probe_from_the_index_is_used(tmp_path: Path) -> None:
    class Probe:
        async def snapshot(self) -> Any:
            return "before"

        async def changed_since(self, snapshot: Any) -> list[str]:
            assert snapshot == "before"
            return ["from/index.py"]

    ctx = _ctx(tmp_path, probe=Probe())
    result = await ExecuteCommandTool().run(ExecuteCommandArgs(command="true"), ctx)
    assert "Files changed: from/index.py" in result.output


async def test_secrets_are_neither_passed_nor_echoed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_API_KEY", "sk-very-secret-value")
    result = await run_cmd(tmp_path, 'echo "[$DEMO_API_KEY]"; echo sk-very-secret-value; env')
    assert "[]" in result.output
    assert "sk-very-secret-value" not in result.output
    assert "DEMO_API_KEY" not in result.output
    assert "PATH=" in result.output


async def test_dry_run_runs_nothing(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, dry_run=True)
    result = await ExecuteCommandTool().run(ExecuteCommandArgs(command="touch x"), ctx)
    assert result.success and "Dry run" in result.output
    assert not (tmp_path / "x").exists()


async def test_python_executor_runs_in_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text("VALUE = 41\n")
    code = "import os, helper\nprint(os.getcwd())\nprint(helper.VALUE + 1)\n"
    result = await PythonExecutorTool().run(PythonExecutorArgs(code=code), _ctx(tmp_path))
    assert result.success, result.output
    assert str(tmp_path) in result.output and "42" in result.output


async def test_python_executor_reports_failures_and_timeouts(tmp_path: Path) -> None:
    tool = PythonExecutorTool()
    failed = await tool.run(PythonExecutorArgs(code="raise SystemExit(2)"), _ctx(tmp_path))
    assert not failed.success and failed.error == "Exit code: 2"
    slow = await tool.run(
        PythonExecutorArgs(code=f"import time\ntime.sleep({MARKS[4]})", timeout=1), _ctx(tmp_path)
    )
    assert not slow.success and "Timed out" in slow.output
    assert processes_with(MARKS[4]) == []


async def test_python_executor_prefers_the_workspace_venv(tmp_path: Path) -> None:
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    shim = venv_bin / "python"
    shim.write_text(f'#!/bin/sh\necho FROM-WORKSPACE-VENV\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    result = await PythonExecutorTool().run(PythonExecutorArgs(code="print(1)"), _ctx(tmp_path))
    assert "FROM-WORKSPACE-VENV" in result.output


# -- approval text ------------------------------------------------------------------------
def _run(llm: Any = None) -> RunContext:
    return RunContext(files=DiskFileAccess(Path.cwd()), config=AppConfig(), llm=llm)


class _ScriptedLLM:
    def __init__(self, answer: str | None = None, fail: bool = False) -> None:
        self.answer = answer
        self.fail = fail
        self.seen: list[list[dict[str, Any]]] = []

    async def completion(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> LLMResponse:
        self.seen.append(messages)
        if self.fail:
            raise RuntimeError("model unavailable")
        return LLMResponse(content=self.answer)


async def test_describe_without_a_model_is_deterministic() -> None:
    args = ExecuteCommandArgs(command="pytest -q && curl x | sh")
    explanation, preview = await ExecuteCommandTool().describe_for_approval(args, _run())
    assert preview == "pytest -q && curl x | sh"
    assert explanation.startswith("Runs 3 commands: `pytest -q`, then, if it succeeds, `curl x`")


async def test_describe_uses_the_model_and_falls_back_on_failure() -> None:
    args = ExecuteCommandArgs(command="rm -rf build")
    llm = _ScriptedLLM("Deletes the build directory.")
    explanation, _ = await ExecuteCommandTool().describe_for_approval(args, _run(llm))
    assert explanation == "Deletes the build directory."
    assert "rm -rf build" in llm.seen[0][-1]["content"]
    broken = _ScriptedLLM(fail=True)
    explanation, _ = await ExecuteCommandTool().describe_for_approval(args, _run(broken))
    assert explanation.startswith("Runs 1 command: `rm -rf build`")


async def test_describe_python() -> None:
    code = "import shutil\nshutil.rmtree('x')\n"
    explanation, preview = await PythonExecutorTool().describe_for_approval(
        PythonExecutorArgs(code=code), _run()
    )
    assert preview == code
    summary, interpreter = explanation.split("\n")
    assert summary == "Runs 2 lines of Python in a fresh interpreter; imports shutil; " + (
        "calls shutil.rmtree."
    )
    assert interpreter == (
        f"Interpreter: {sys.executable} (agentls's own; the workspace has no .venv/bin/python)."
    )
    assert "does not parse" in describe_python("def (")


async def test_the_python_question_names_the_workspace_venv_and_where_it_leads(
    tmp_path: Path,
) -> None:
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(sys.executable)
    run = RunContext(files=DiskFileAccess(tmp_path), config=AppConfig())
    explanation, _ = await PythonExecutorTool().describe_for_approval(
        PythonExecutorArgs(code="print(1)"), run
    )
    interpreter = explanation.splitlines()[-1]
    assert interpreter.startswith(f"Interpreter: {venv_bin / 'python'}, the workspace's own .venv")
    assert f"a symlink to {REAL_PYTHON}" in interpreter
    assert "inside the workspace" not in interpreter
