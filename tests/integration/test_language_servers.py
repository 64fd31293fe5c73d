"""Problems after edits without an editor: agentls starts the language servers itself.

With a real language server, basedpyright from PyPI (scripts/ensure_language_servers.sh
installs it under .cache/, once, with a file lock), through ``run_agent`` and through the
CLI: an edit that introduces a type error is answered with exactly that problem, a clean
edit with nothing. With tests/integration/fake_language_server.py, what goes wrong: a
server that never publishes costs at most ``diagnostics.wait_ms``, one that crashes or is
missing is reported once and the run goes on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AppConfig, DiagnosticsConfig
from agentls.agent.events import AgentEvent, Notice
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunOutcome, RunRequest, run_agent
from agentls.agent.secrets import remember_secret_variable
from agentls.agent.workspace import DiskFileAccess
from agentls.langservers import LanguageServers

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

REPO = Path(__file__).resolve().parents[2]
FAKE = Path(__file__).with_name("fake_language_server.py")

APP = (
    "def total(prices: list[float]) -> float:\n"
    "    total_price = sum(prices)\n"
    "    return total_price\n"
)
#: A type error, and nothing else a checker would add.
BROKEN = ("    return total_price\n", "    return str(total_price)\n")
EXPECTED = (
    'app.py:3:12 error: Type "str" is not assignable to return type "float"; '
    '"str" is not assignable to "float" (basedpyright)'
)
#: A clean edit after it (the error goes away, nothing new comes).
FIXED = ("    return str(total_price)\n", "    return round(total_price, 2)\n")

#: Less than the longest diagnostics wait (60 s): a test of a case that must not wait for it
#: times out if it does; far more than such a test takes on a loaded machine.
WAITED_OUT = 45


@pytest.fixture(scope="session")
def language_server_bin() -> Path:
    """The bin directory holding basedpyright-langserver (installed on first use)."""
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "ensure_language_servers.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "AGENTLS_PYTHON": sys.executable},
    )
    assert done.returncode == 0, f"ensure_language_servers.sh failed:\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP)
    return root


def config_for(
    ws: Path, scripted: ScriptedModelServer, model: str, **diagnostics: Any
) -> AppConfig:
    return AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": f"openai/{model}", "api_base": scripted.api_base, "retries": 0},
            "indexer": {"enabled": False},
            "diagnostics": diagnostics,
        }
    )


def edit(pair: tuple[str, str]) -> Any:
    return tool_call("edit_file", {"path": "app.py", "old_str": pair[0], "new_str": pair[1]})


def tool_results(scripted: ScriptedModelServer, model: str) -> list[str]:
    """What each tool call of the run answered, in order."""
    last = scripted.requests_for(model)[-1].messages
    return [str(m["content"]) for m in last if m.get("role") == "tool"]


async def run(
    ws: Path,
    config: AppConfig,
    source: LanguageServers,
    events: list[AgentEvent] | None = None,
) -> RunOutcome:
    sink = events if events is not None else []
    return await run_agent(
        RunRequest(prompt="work", confirm_mode="yolo"),
        FrontEnd(
            DiskFileAccess(ws), DenyingApprover("test"), observer=sink.append, problems=source
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )


def notices(events: list[AgentEvent]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice)]


def fake_server(mode: str) -> dict[str, Any]:
    return {
        "name": f"fake-{mode}",
        "command": [sys.executable, str(FAKE), mode],
        "files": {".py": "python"},
    }


# -- a real language server ----------------------------------------------------------------


async def test_an_edit_that_introduces_a_type_error_is_told_exactly_that_problem(
    ws: Path,
    scripted: ScriptedModelServer,
    language_server_bin: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", f"{language_server_bin}{os.pathsep}{os.environ['PATH']}")
    scripted.add(
        "bp",
        tool_call("read_file", {"path": "app.py"}),
        edit(BROKEN),
        edit(FIXED),
        tool_call("get_problems", {"paths": ["app.py"]}),
        text("done"),
    )
    # Generous: two shared cores, and a cold type checker's first pass.
    config = config_for(ws, scripted, "bp", wait_ms=30000)
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        events: list[AgentEvent] = []
        outcome = await run(ws, config, source, events)
    assert outcome.state.status == "success", outcome.state.final_output
    _read, broken, fixed, problems = tool_results(scripted, "bp")
    assert (
        broken
        == f"Edited app.py at line 3 (+1 -1)\n\nNew problems after this edit (1):\n{EXPECTED}"
    )
    assert fixed == "Edited app.py at line 3 (+1 -1)"
    assert problems == "No problems down to warning in app.py."
    assert notices(events) == []


def test_the_cli_tells_the_model_the_problem_its_edit_introduced(
    ws: Path,
    scripted: ScriptedModelServer,
    language_server_bin: Path,
    trust_folder: Callable[..., None],
) -> None:
    trust_folder(ws)
    scripted.add("cli", edit(BROKEN), edit(FIXED), text("done"))
    (ws / ".agentls.yaml").write_text("diagnostics:\n  wait_ms: 30000\n")
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PATH": f"{language_server_bin}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        [
            *(sys.executable, "-m", "agentls", "run", "fix it", "--mode", "yolo", "--quiet"),
            *("--model", "openai/cli", "--api-base", scripted.api_base),
        ],
        cwd=ws,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=200,
    )
    assert done.returncode == 0, done.stderr
    broken, fixed = tool_results(scripted, "cli")
    assert broken.endswith(f"\n\nNew problems after this edit (1):\n{EXPECTED}"), broken
    assert "problems" not in fixed, fixed
    # The server was ended with the run: no basedpyright left behind in this folder.
    left = subprocess.run(
        ["pgrep", "-f", "basedpyright-langserver"], capture_output=True, text=True
    )
    for pid in left.stdout.split():
        assert str(ws) not in Path(f"/proc/{pid}/cwd").resolve().as_posix()


async def test_a_language_server_gets_no_api_key_whatever_its_variable_is_called(
    ws: Path, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The variable llm.api_key_env names (remembered when a config is loaded) and one whose
    # name says it is secret; a language server may run the project's code, so neither.
    remember_secret_variable("LS_TEST_MODEL_CRED_NAME_0")
    monkeypatch.setenv("LS_TEST_MODEL_CRED_NAME_0", "model-key-3c9d1f7a2e")
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-8a1f5c3e")
    monkeypatch.setenv("PLAIN_SETTING", "kept-as-is")
    seen = ws / "server-env.txt"
    spy = {
        "name": "env-spy",
        "command": ["bash", "-c", f'env > {seen}; exec "$0" "$@"', sys.executable, str(FAKE)],
        "files": {".py": "python"},
    }
    config = config_for(ws, scripted, "unused", servers=[spy])
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        assert await source.start_for("app.py")
    env = seen.read_text()
    assert "PLAIN_SETTING=kept-as-is" in env
    assert "model-key-3c9d1f7a2e" not in env and "deploy-token-8a1f5c3e" not in env


# -- what goes wrong -------------------------------------------------------------------------


async def test_a_server_that_never_publishes_costs_at_most_the_wait(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("silent", edit(("total_price\n", "total_price  # ok\n")), text("done"))
    config = config_for(ws, scripted, "silent", wait_ms=800, servers=[fake_server("silent")])
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        assert await source.start_for("app.py")
        events: list[AgentEvent] = []
        outcome = await run(ws, config, source, events)
    assert outcome.state.status == "success"
    (result,) = tool_results(scripted, "silent")
    assert result == "Edited app.py at line 3 (+1 -1)"
    assert notices(events) == [
        "language server fake-silent did not report the problems of app.py within 0.8 s "
        "(diagnostics.wait_ms): an edit's result lists only the problems that arrive in time"
    ]


@pytest.mark.timeout(WAITED_OUT)
async def test_a_server_that_crashes_is_reported_once_and_the_run_goes_on(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "crash",
        edit(("total_price\n", "total_price  # one\n")),
        edit(("# one\n", "# two\n")),
        text("done"),
    )
    # The longest wait there is, longer than this test may take: were the dead server waited
    # for, the test times out.
    config = config_for(ws, scripted, "crash", wait_ms=60_000, servers=[fake_server("crash")])
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        events: list[AgentEvent] = []
        outcome = await run(ws, config, source, events)
    assert outcome.state.status == "success"
    assert tool_results(scripted, "crash") == [
        "Edited app.py at line 3 (+1 -1)",
        "Edited app.py at line 3 (+1 -1)",
    ]
    (told,) = notices(events)
    assert told == (
        "language server fake-crash exited (code 3): fake-language-server: cannot analyse "
        "this; edits of its files are not checked for problems in the rest of this session"
    )


@pytest.mark.timeout(WAITED_OUT)
async def test_a_missing_server_is_reported_once_and_never_waited_for(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("gone", edit(("# a\n", "")), edit(BROKEN), edit(FIXED), text("done"))
    (ws / "app.py").write_text("# a\n" + APP)
    missing = {
        "name": "nope",
        "command": ["no-such-langserver", "--stdio"],
        "files": {".py": "python"},
    }
    # The longest wait there is, longer than this test may take: were it waited for, the test
    # times out.
    config = config_for(ws, scripted, "gone", wait_ms=60_000, servers=[missing])
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        events: list[AgentEvent] = []
        await run(ws, config, source, events)
    assert notices(events) == [
        "no language server for .py files is on PATH (looked for no-such-langserver): edits of "
        "them are not checked for problems (diagnostics.servers lists the servers)"
    ]


async def test_an_untrusted_folder_starts_no_server_and_says_how_to_trust_it(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add("untrusted", edit(BROKEN), text("done"))
    config = config_for(ws, scripted, "untrusted", servers=[fake_server("echo")])
    source = LanguageServers(
        config.diagnostics, ws, trusted=False, how_to_trust="run `agentls trust .`"
    )
    async with source:
        events: list[AgentEvent] = []
        await run(ws, config, source, events)
        assert source._connections == {}
    (told,) = notices(events)
    assert "have not trusted" in told and told.endswith("to trust it, run `agentls trust .`")


async def test_get_problems_asks_the_server_for_the_files_named(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    (ws / "other.py").write_text("x = undefined_name\n")
    scripted.add(
        "echo",
        tool_call("get_problems", {"paths": ["other.py", "app.py"]}),
        edit(("    return total_price\n", "    return undefined_name\n")),
        tool_call("get_problems", {}),
        text("done"),
    )
    # The server publishes at once; the long wait only gives its start room on a loaded
    # machine (a first call starts it).
    config = config_for(ws, scripted, "echo", wait_ms=30_000, servers=[fake_server("echo")])
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        await run(ws, config, source)
    named, edited, every = tool_results(scripted, "echo")
    assert named == "other.py:1:5 error: undefined_name is not defined (echo)"
    assert edited.endswith(
        "New problems after this edit (1):\napp.py:3:12 error: undefined_name is not defined (echo)"
    )
    assert every.splitlines() == [
        "app.py:3:12 error: undefined_name is not defined (echo)",
        "other.py:1:5 error: undefined_name is not defined (echo)",
    ]


async def test_get_problems_says_which_files_problems_did_not_arrive_in_time(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    (ws / "other.md").write_text("notes\n")
    scripted.add("late", tool_call("get_problems", {"paths": ["app.py", "other.md"]}), text("done"))
    config = config_for(ws, scripted, "late", wait_ms=300, servers=[fake_server("silent")])
    async with LanguageServers(config.diagnostics, ws, trusted=True) as source:
        await run(ws, config, source)
    (told,) = tool_results(scripted, "late")
    # Not "no problems in app.py": nothing is known of them.
    assert told.splitlines() == [
        "other.md: no language server checks this kind of file",
        "app.py: its problems are not known: the language server did not report them within "
        "0.3 s (diagnostics.wait_ms)",
    ]


async def test_closing_ends_every_server_process(ws: Path) -> None:
    settings = DiagnosticsConfig.model_validate({"servers": [fake_server("echo")]})
    source = LanguageServers(settings, ws, trusted=True)
    found = await source.problems({"app.py": "undefined_name\n"}, 20)
    assert [p.message for p in found.problems] == ["undefined_name is not defined"]
    (connection,) = source._connections.values()
    process = connection._process
    assert process is not None and process.returncode is None
    await source.aclose()
    assert process.returncode is not None
    assert shutil.which("true")  # the test's own environment is untouched
