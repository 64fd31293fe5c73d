"""Lines typed while ``agentls run`` works, on a real terminal (a pty) against the scripted
model: a plain line is queued for the model's next call, a ``/steer`` line restarts the
call in flight, an approval question still gets its answer, and without a terminal on
stdin nothing is read."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = pytest.mark.timeout(180)

SLOW = {"chunk_size": 2, "chunk_delay": 0.03}
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_COLOR": "1"}


class TerminalRun:
    """``agentls run`` with a pty on stdin; its stderr gathered as it comes."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "agentls", "run", *args],
            cwd=cwd,
            env=ENV,
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.close(slave)
        self.err = ""
        self._reader = threading.Thread(target=self._gather, daemon=True)
        self._reader.start()
        # The terminal echoes what is typed: drained, or a full echo buffer would block.
        self._echo = threading.Thread(target=self._drain_echo, daemon=True)
        self._echo.start()

    def _gather(self) -> None:
        assert self.process.stderr is not None
        for chunk in iter(lambda: self.process.stderr.read(1), ""):  # type: ignore[union-attr]
            self.err += chunk

    def _drain_echo(self) -> None:
        while True:
            try:
                if not os.read(self.master, 1024):
                    return
            except OSError:
                return

    def wait_for(self, seen: Callable[[str], bool], what: str) -> None:
        while not seen(self.err):
            if self.process.poll() is not None:
                self._reader.join(10)
                if seen(self.err):
                    return
                raise AssertionError(f"the run ended before {what}; stderr:\n{self.err}")
            time.sleep(0.02)

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self) -> tuple[int, str]:
        # stderr has its reader already: only stdout is read here.
        assert self.process.stdout is not None
        out = self.process.stdout.read()
        self.process.wait(timeout=150)
        self._reader.join(10)
        self.process.stdout.close()
        self.process.stderr.close()  # type: ignore[union-attr]
        os.close(self.master)
        return self.process.returncode, out


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    yield root


def model(scripted: ScriptedModelServer, name: str, mode: str = "yolo") -> list[str]:
    return ["--model", f"openai/{name}", "--api-base", scripted.api_base, "--mode", mode]


def test_a_line_typed_while_the_run_works_reaches_the_next_model_call(
    workspace: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("alice", text("Finishing up. " * 30, **SLOW), text("Added the tests too."))
    run = TerminalRun(workspace, "do it", *model(scripted, "alice"))
    run.wait_for(lambda err: "Finishing up." in err, "streamed text")
    run.type("add tests")
    code, out = run.finish()
    assert code == 0, run.err
    assert out.strip() == "Added the tests too.", run.err
    assert "[queued for the model's next step: add tests]" in run.err
    assert "[the model has your message: add tests]" in run.err
    second = scripted.requests_for("alice")[1].messages[-1]
    assert "add tests" in str(second["content"])
    assert "while you were working" in str(second["content"])


def test_a_steer_line_restarts_the_model_call_with_the_message(
    workspace: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("bob", text("Rewriting in Rust. " * 40, **SLOW), text("Using Go."))
    run = TerminalRun(workspace, "do it", *model(scripted, "bob"))
    run.wait_for(lambda err: "Rewriting in Rust." in err, "streamed text")
    run.type("/steer use Go")
    code, out = run.finish()
    assert code == 0, run.err
    assert out.strip() == "Using Go."
    assert "[steering with your message: use Go]" in run.err
    assert "stream cut: the user sent a message" in run.err
    requests = scripted.requests_for("bob")
    assert len(requests) == 2
    assert "use Go" in str(requests[1].messages[-1]["content"])
    # The cut call was the first one: the model never finished the Rust answer.
    assert "Rewriting in Rust." * 40 not in run.err.replace(" ", "")


def test_an_approval_question_still_gets_the_typed_answer(
    workspace: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "carol",
        tool_call("execute_command", {"command": "echo hi > made.txt"}),
        text("Writes hi to made.txt."),  # the command explained, with the question
        text("Made it."),
    )
    run = TerminalRun(workspace, "make it", *model(scripted, "carol", mode="confirm-all"))
    run.wait_for(lambda err: "Allow?" in err, "the approval question")
    run.type("y")
    code, out = run.finish()
    assert code == 0, run.err
    assert out.strip() == "Made it."
    assert (workspace / "made.txt").read_text().strip() == "hi"
    assert "queued" not in run.err
    # The model's last call holds the command's result, and no message from the user.
    assert "while you were working" not in str(scripted.requests_for("carol")[2].messages)


def test_without_a_terminal_stdin_is_not_read(
    workspace: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("dave", text("Done."))
    done = subprocess.run(
        [sys.executable, "-P", "-m", "agentls", "run", "go", *model(scripted, "dave")],
        cwd=workspace,
        env=ENV,
        input="this line is not a message\n",
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Done."
    assert "queued" not in done.stderr
    assert "not a message" not in str(scripted.requests_for("dave")[0].messages)
