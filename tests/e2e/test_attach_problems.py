"""The current problems as an attachment, through agent/run and the CLI: from the editor
(``agent/diagnostics``), from a language server agentls starts itself (the fake one of
tests/integration, a real LSP server over stdio), and where nothing can tell them."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import VSCODE, LspFactory, llm_options, plain, run_cli
from test_diagnostics_lsp import FAKE_SERVER, LAG, WITH_DIAGNOSTICS, FakeEditorDiagnostics

from agentls.agent.llm.scripted_server import ScriptedModelServer, text

pytestmark = pytest.mark.timeout(180)

ECHO = {
    "name": "echo",
    "command": [sys.executable, str(FAKE_SERVER), "echo"],
    "files": {".py": "python"},
}


def first_user(scripted: ScriptedModelServer, model: str) -> str:
    return str(scripted.requests_for(model)[0].messages[-1]["content"])


async def test_the_editors_problems_are_attached_over_lsp(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add("ep", text("seen"))
    client = await lsp(caps=WITH_DIAGNOSTICS, init_options=llm_options(scripted, "ep"))
    editor = FakeEditorDiagnostics(client)
    buffer = (workspace / "src" / "app.py").read_text() + "total = undefined_name\n"
    editor.track(client.open("src/app.py", buffer))
    await asyncio.sleep(LAG)  # the editor has checked the open file
    result = plain(
        await client.run(prompt="fix the problems", runId="p1", attachments=[{"kind": "problems"}])
    )
    assert result["status"] == "success", result
    sent = first_user(scripted, "ep")
    line = len(buffer.splitlines())
    assert sent.startswith("fix the problems\n\n## The current problems (1 error, 0 warnings)")
    assert f"src/app.py:{line}:9 error: undefined_name is not defined (fake-editor)" in sent
    assert editor.asked[-1] == {"uris": []}  # every document the editor has problems for


async def test_a_files_problems_come_from_the_server_agentls_starts(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, trust_folder: Any
) -> None:
    trust_folder(workspace)
    (workspace / "src" / "other.py").write_text("x = 1\ny = undefined_name\n")
    scripted.add("own", text("seen"))
    # The wait covers the server's start: ample, for a loaded machine.
    diagnostics = {"servers": [ECHO], "wait_ms": 30000}
    options = {**llm_options(scripted, "own"), "diagnostics": diagnostics}
    client = await lsp(caps=VSCODE, init_options=options)
    result = plain(
        await client.run(
            prompt="look",
            runId="p2",
            attachments=[{"kind": "problems", "path": "src/other.py"}],
        )
    )
    assert result["status"] == "success", result
    sent = first_user(scripted, "own")
    assert "## The problems of src/other.py (1 error, 0 warnings)" in sent
    assert "src/other.py:2:5 error: undefined_name is not defined (echo)" in sent
    assert "But:" not in sent  # the server answered in time: nothing to warn of


async def test_a_server_too_slow_to_answer_is_said_so_not_taken_for_clean(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, trust_folder: Any
) -> None:
    trust_folder(workspace)
    silent = {**ECHO, "name": "silent", "command": [sys.executable, str(FAKE_SERVER), "silent"]}
    scripted.add("slow", text("seen"))
    diagnostics = {"servers": [silent], "wait_ms": 1500}
    client = await lsp(
        caps=VSCODE, init_options={**llm_options(scripted, "slow"), "diagnostics": diagnostics}
    )
    result = plain(
        await client.run(
            prompt="look", runId="p4", attachments=[{"kind": "problems", "path": "src/app.py"}]
        )
    )
    assert result["status"] == "success", result
    sent = first_user(scripted, "slow")
    assert "No errors or warnings were reported for src/app.py in time." in sent
    assert "\nBut: language server silent did not" in sent and "within 1.5 s" in sent


async def test_with_diagnostics_off_the_problems_are_refused_before_the_run(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add("off", text("never"))
    options = {**llm_options(scripted, "off"), "diagnostics": {"enabled": False}}
    client = await lsp(caps=WITH_DIAGNOSTICS, init_options=options)
    result = plain(await client.run(prompt="look", runId="p3", attachments=[{"kind": "problems"}]))
    assert result["status"] == "failed"
    assert "the current problems: nothing reports problems to this run" in result["output"]
    assert "diagnostics.enabled is false" in result["output"]
    assert scripted.requests_for("off") == []


def test_the_cli_attaches_a_files_problems_and_says_when_none_are_known(
    tmp_path: Path, scripted: ScriptedModelServer, trust_folder: Any
) -> None:
    trust_folder(tmp_path)
    # A long wait: the server's start counts, and the machine may be loaded.
    servers = "diagnostics:\n  wait_ms: 30000\n  servers:\n    - name: echo\n"
    servers += f"      command: {ECHO['command']}\n"
    (tmp_path / ".agentls.yaml").write_text(servers + '      files: {".py": python}\n')
    (tmp_path / "app.py").write_text("a = undefined_name\nb = undefined_name\n")
    (tmp_path / "notes.txt").write_text("nothing to check\n")
    scripted.add("cp", text("one"), text("two"))
    model = ["--model", "openai/cp", "--api-base", scripted.api_base]

    one = run_cli(tmp_path, "run", "fix", "--attach", "problems:app.py", *model)
    assert one.returncode == 0, one.stderr
    sent = str(scripted.requests_for("cp")[0].messages[-1]["content"])
    assert "## The problems of app.py (2 errors, 0 warnings)" in sent
    assert "app.py:1:5 error: undefined_name is not defined (echo)" in sent
    assert "app.py:2:5 error: undefined_name is not defined (echo)" in sent

    # A fresh run: its language servers were given no file yet, and that is said.
    two = run_cli(tmp_path, "run", "fix", "--attach", "problems", *model)
    assert two.returncode == 0, two.stderr
    sent = str(scripted.requests_for("cp")[1].messages[-1]["content"])
    assert "No errors or warnings in any file whose problems are known." in sent
    assert "attach a file's problems by its path to have it checked" in sent

    text_file = run_cli(tmp_path, "run", "fix", "--attach", "problems:notes.txt", *model)
    assert text_file.returncode != 0
    assert "the problems of notes.txt: no language server checks this kind of file" in (
        text_file.stdout
    )
    missing = run_cli(tmp_path, "run", "fix", "--attach", "problems:gone.py", *model)
    assert missing.returncode != 0 and "the problems of gone.py:" in missing.stdout
    assert len(scripted.requests_for("cp")) == 2


def test_the_cli_in_an_untrusted_folder_says_why_nothing_checks_the_file(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "app.py").write_text("a = undefined_name\n")
    scripted.add("ut", text("never"))
    model = ["--model", "openai/ut", "--api-base", scripted.api_base]
    done = run_cli(tmp_path, "run", "fix", "--attach", "problems:app.py", *model)
    assert done.returncode != 0
    assert "the problems of app.py: no language server checks this kind of file" in done.stdout
    # Either no Python language server is installed here, or the folder is not trusted:
    # the reason is given either way.
    assert "is on PATH" in done.stdout or "have not trusted" in done.stdout, done.stdout
    assert scripted.requests_for("ut") == []
