"""Problems after edits in real Neovim 0.7: the ``agent/diagnostics`` handler of
docs/editors.md (the very text of the doc, run as Neovim's module) answers with what
basedpyright, attached to the same buffer, published for the agent's edit.

The REAL server (``python -P -m agentls --stdio``) runs the scripted model's edits: one
that introduces a type error is answered with exactly that problem, a clean one with
nothing, and the server never starts a language server of its own (Neovim answers).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from edits_helpers import REPO, ensure_editors, report_error, report_result, run_editor
from semantic_workspace import semantic_workspace

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

pytestmark = [pytest.mark.editor, pytest.mark.slow, pytest.mark.timeout(400)]

APP = (
    "def total(prices: list[float]) -> float:\n"
    "    total_price = sum(prices)\n"
    "    return total_price\n"
)
BROKEN = ("    return total_price\n", "    return str(total_price)\n")
FIXED = ("    return str(total_price)\n", "    return round(total_price, 2)\n")
EXPECTED = (
    'app.py:3:12 error: Type "str" is not assignable to return type "float"; '
    '"str" is not assignable to "float" (basedpyright)'
)


@pytest.fixture(scope="module", autouse=True)
def editors() -> None:
    ensure_editors()


@pytest.fixture(scope="module")
def language_server_bin() -> Path:
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "ensure_language_servers.sh")],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "AGENTLS_PYTHON": sys.executable},
    )
    assert done.returncode == 0, f"ensure_language_servers.sh failed:\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1])


def documented_module(into: Path, request: str = "agent/diagnostics") -> Path:
    """The ``lua/agentls_diagnostics.lua`` (``agent/navigate``: ``agentls_navigation.lua``)
    docs/editors.md tells Neovim users to save."""
    doc = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    (module,) = [b for b in re.findall(r"```lua\n(.*?)```", doc, re.S) if f"({request}" in b]
    path = into / f"agentls_{request.split('/')[1]}.lua"
    path.write_text(module, encoding="utf-8")
    return path


async def test_neovim_answers_with_the_problems_basedpyright_published_for_the_edit(
    tmp_path: Path, scripted: ScriptedModelServer, language_server_bin: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP)
    scripted.add(
        "nvim",
        tool_call("edit_file", {"path": "app.py", "old_str": BROKEN[0], "new_str": BROKEN[1]}),
        tool_call("edit_file", {"path": "app.py", "old_str": FIXED[0], "new_str": FIXED[1]}),
        text("done"),
    )
    init = {
        "llm": {"model": "openai/nvim", "api_base": scripted.api_base, "retries": 0},
        # generous: two shared cores; a settled answer ends the wait long before
        "diagnostics": {"wait_ms": 30000},
    }
    report = await run_editor(
        "nvim",
        root,
        file="app.py",
        method="agent/run",
        params={"prompt": "change it", "confirmMode": "yolo"},
        answer="Apply",
        server_cmd=[sys.executable, "-P", "-m", "agentls", "--stdio"],
        init=init,
        env={
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            "AGENTLS_TEST_DIAGNOSTICS_LUA": str(documented_module(tmp_path)),
            "AGENTLS_TEST_LANGSERVER": json.dumps(
                [str(language_server_bin / "basedpyright-langserver"), "--stdio"]
            ),
            # agentls must not find one of its own: Neovim answers
            "PATH": os.environ["PATH"],
        },
        limit=360,
    )
    assert report_error(report) is None, report
    assert report_result(report)["status"] == "success", report
    messages = scripted.requests_for("nvim")[-1].messages
    broken, fixed = [str(m["content"]) for m in messages if m.get("role") == "tool"]
    assert (
        broken
        == f"Edited app.py at line 3 (+1 -1)\n\nNew problems after this edit (1):\n{EXPECTED}"
    )
    assert fixed == "Edited app.py at line 3 (+1 -1)"
    assert report["buffer"] == APP.replace(BROKEN[0], FIXED[1])
    assert report["diagnostics"] == []  # what Neovim shows for the final text


async def test_neovim_answers_code_navigation_and_a_rename_from_basedpyright(
    tmp_path: Path, scripted: ScriptedModelServer, language_server_bin: Path
) -> None:
    """The ``agent/navigate`` handler of docs/editors.md asks basedpyright, attached to the
    buffer, and the model reads its answers, named; its rename reaches the buffers as the
    server's one edit. agentls starts no server of its own (none on PATH, not trusted)."""
    root = semantic_workspace(tmp_path)
    scripted.add(
        "nvim-nav",
        tool_call(
            "navigate_code", {"action": "references", "path": "models.py", "symbol": "Store.save"}
        ),
        tool_call(
            "rename_symbol", {"path": "models.py", "symbol": "Store.save", "new_name": "persist"}
        ),
        text("done"),
    )
    init = {"llm": {"model": "openai/nvim-nav", "api_base": scripted.api_base, "retries": 0}}
    report = await run_editor(
        "nvim",
        root,
        file="models.py",
        method="agent/run",
        params={"prompt": "rename it", "confirmMode": "yolo"},
        answer="Apply",
        server_cmd=[sys.executable, "-P", "-m", "agentls", "--stdio"],
        init=init,
        env={
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            "AGENTLS_TEST_NAVIGATION_LUA": str(documented_module(tmp_path, "agent/navigate")),
            "AGENTLS_TEST_LANGSERVER": json.dumps(
                [str(language_server_bin / "basedpyright-langserver"), "--stdio"]
            ),
            "PATH": os.environ["PATH"],
        },
        limit=360,
    )
    assert report_error(report) is None, report
    assert report_result(report)["status"] == "success", report
    messages = scripted.requests_for("nvim-nav")[-1].messages
    found, renamed = [str(m["content"]) for m in messages if m.get("role") == "tool"]
    assert found == (
        "References to `Store.save` (Neovim (checker)): 3\n"
        'app.py:8: total = shelf.save("book")\n'
        'jobs.py:7: return store.save("backup")\n'
        "models.py:5: def save(self, item: str) -> int:"
    )
    assert renamed.startswith(
        "Renamed `save` to `persist` (Neovim (checker)): 3 occurrences in 3 files"
    ), renamed
    buffers = {Path(name).name: text for name, text in report["buffers"].items()}
    assert "def persist(self, item: str) -> int:" in buffers["models.py"]
    assert "class Cache:\n    def save(self, item: str) -> int:" in buffers["models.py"]
    assert 'total = shelf.persist("book")\n    cache.save("book")' in buffers["app.py"]
    assert 'return store.persist("backup")' in buffers["jobs.py"]
