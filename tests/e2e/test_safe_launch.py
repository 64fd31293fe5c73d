"""agentls starts safely in a workspace whose own modules share our old top-level names.

The workspace holds ``server.py``, ``agent/__init__.py``, ``indexer.py`` and ``agentls.py``,
each of which writes a marker file when imported. With that workspace as the cwd, the CLI,
``agentls --stdio`` and the VS Code extension's launch line (``<python> -P -m agentls
--stdio``) all work and import none of them. And an installed agentls adds no top-level
``server``, ``agent`` or ``indexer`` module to the environment.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from agentls_e2e import REPO_ROOT, AgentClient, llm_options, make_client, plain
from lsprotocol import types
from pygls.uris import from_fs_path

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

#: The workspace's own modules, named like agentls's layers (and agentls itself).
SHADOWS = ("server.py", "agent/__init__.py", "indexer.py", "agentls.py")
VENV_BIN = Path(sys.executable).parent


def clean_env() -> dict[str, str]:
    """The user's environment: no PYTHONPATH pointing into this repository."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


@pytest.fixture
def marked(tmp_path: Path) -> Path:
    """A workspace whose modules named like ours leave ``imported-<name>`` when imported."""
    root = tmp_path / "marked-ws"
    for rel in SHADOWS:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        marker = root / f"imported-{rel.split('/')[0].removesuffix('.py')}"
        path.write_text(f"open({str(marker)!r}, 'w').close()\n")
    (root / "app.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def markers(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("imported-*"))


def test_the_markers_work(marked: Path) -> None:
    """Without -P, the cwd shadows: the check below would see it."""
    for name in ("server", "agent", "indexer", "agentls"):
        subprocess.run(
            [sys.executable, "-c", f"import {name}"], cwd=marked, env=clean_env(), check=True
        )
    assert markers(marked) == [
        "imported-agent",
        "imported-agentls",
        "imported-indexer",
        "imported-server",
    ]


def test_cli_run_in_the_workspace(marked: Path, scripted: ScriptedModelServer) -> None:
    scripted.add("cli", tool_call("read_file", {"path": "app.py"}), text("x is one."))
    done = subprocess.run(
        [
            str(VENV_BIN / "agentls"),
            "run",
            "what is x?",
            "--json",
            "--workspace",
            str(marked),
            "--model",
            "openai/cli",
            "--api-base",
            scripted.api_base,
        ],
        cwd=marked,
        env=clean_env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == "x is one."
    assert markers(marked) == []


async def serve_and_run(
    command: list[str], root: Path, scripted: ScriptedModelServer, model: str
) -> None:
    """Start the server with ``root`` as its cwd, initialize, run one agent/run, shut down."""
    scripted.add(model, tool_call("read_file", {"path": "app.py"}), text("Read it."))
    client = make_client()
    assert isinstance(client, AgentClient)
    await client.start_io(*command, env=clean_env(), cwd=str(root))
    client.root = root
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=from_fs_path(str(root)),
                workspace_folders=[
                    types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="ws")
                ],
                initialization_options=llm_options(scripted, model),
            )
        )
        assert result.server_info is not None and result.server_info.name == "agentls"
        outcome = plain(await client.run(prompt="read app.py", runId="r1"))
        assert outcome["status"] == "success", outcome
        assert outcome["output"] == "Read it."
        await asyncio.wait_for(client.shutdown_session(), 10)
    finally:
        await client.stop()


async def test_console_script_stdio_in_the_workspace(
    marked: Path, scripted: ScriptedModelServer
) -> None:
    await serve_and_run([str(VENV_BIN / "agentls"), "--stdio"], marked, scripted, "script")
    assert markers(marked) == []


async def test_extension_launch_line_in_the_workspace(
    marked: Path, scripted: ScriptedModelServer
) -> None:
    # Exactly what client-vscode/src/launch.ts starts (PYTHON_SERVER_ARGS).
    command = [sys.executable, "-P", "-m", "agentls", "--stdio"]
    await serve_and_run(command, marked, scripted, "ext")
    assert markers(marked) == []


def cannot_import(python: str, names: tuple[str, ...], cwd: Path) -> list[str]:
    """The names in ``names`` that ``python`` cannot find (run from ``cwd``)."""
    probe = (
        "import importlib.util, json, sys\n"
        "print(json.dumps([n for n in sys.argv[1:] if importlib.util.find_spec(n) is None]))"
    )
    done = subprocess.run(
        [python, "-c", probe, *names],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    missing: list[str] = json.loads(done.stdout)
    return missing


def test_project_venv_has_no_top_level_layers(tmp_path: Path) -> None:
    assert cannot_import(sys.executable, ("server", "agent", "indexer"), tmp_path) == [
        "server",
        "agent",
        "indexer",
    ]
    assert cannot_import(sys.executable, ("agentls.server", "agentls.agent"), tmp_path) == []
    done = subprocess.run(
        [sys.executable, "-c", "import server"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "ModuleNotFoundError: No module named 'server'" in done.stderr


def test_child_process_path_holds_only_agentls() -> None:
    """Our children (the model worker, the symbol process) get this folder on PYTHONPATH:
    it must not expose our layers."""
    from agentls.children import CODE_ROOT

    root = Path(CODE_ROOT)
    assert (root / "agentls" / "__init__.py").is_file()
    assert not any((root / name).exists() for name in ("server", "agent", "indexer"))


@pytest.mark.slow
def test_installed_wheel_has_one_top_level_name(tmp_path: Path) -> None:
    """The wheel the extension ships: only ``agentls`` (and its dist-info) at the top."""
    wheels = tmp_path / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels)]
    subprocess.run(
        [*build, str(REPO_ROOT)],
        check=True,
        env=clean_env(),
        timeout=300,
    )
    (wheel,) = wheels.glob("agentls-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"agentls"}
    assert any(n.startswith("agentls/indexer/_lines.") for n in names), "the compiled helper"
    assert "agentls/agent/tools/catalog.json" in names, "what the model is shown of the tools"

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # Unpacked, not pip-installed (no dependencies needed to look at names): a wheel is a zip
    # laid out as site-packages.
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    neutral = tmp_path / "neutral"
    neutral.mkdir()
    assert cannot_import(python, ("server", "agent", "indexer"), neutral) == [
        "server",
        "agent",
        "indexer",
    ]
    assert cannot_import(python, ("agentls", "agentls.server", "agentls.agent"), neutral) == []
