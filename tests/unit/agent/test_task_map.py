"""The repo map section a run puts in its system prompt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.agent.config.models import AppConfig
from agentls.agent.indexing import (
    REPO_MAP_HEADING,
    SYMBOLS_CACHE_FILE,
    build_index,
    local_symbols,
    task_map,
)
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.workspace import DiskFileAccess
from agentls.indexer.symbols_client import SymbolProcess


@pytest.mark.parametrize("kept", ["in this process", "in a child process"])
async def test_map_names_what_the_prompt_asks_about_and_honours_the_budget(
    tmp_path: Path, kept: str
) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "orders.py").write_text(
        "class Order:\n    def cancel_order(self, reason):\n        pass\n"
    )
    config = AppConfig.model_validate({"workspace": {"root": str(tmp_path)}})
    index = await build_index(config)
    assert index is not None
    process = SymbolProcess(index, index.root / SYMBOLS_CACHE_FILE)
    symbols = local_symbols(index) if kept == "in this process" else process
    try:
        text = await task_map(symbols, config, "cancel_order ignores the reason")
        assert text == (
            f"{REPO_MAP_HEADING}\nlib/orders.py:\n  1: class Order:\n"
            "  2: def cancel_order(self, reason):"
        )
        assert await task_map(symbols, config, "cancel_order ignores the reason") == text
        off = config.model_copy(
            update={"indexer": config.indexer.model_copy(update={"map_tokens": 0})}
        )
        assert await task_map(symbols, off, "cancel_order") == ""
        assert await task_map(local_symbols(None), config, "cancel_order") == ""
    finally:
        await process.close()


async def test_files_the_session_edited_rank_in_the_next_runs_map(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for n in range(30):
        (pkg / f"m{n:02}.py").write_text(f"def handler_{n}(event):\n    return event\n")
    config = AppConfig.model_validate(
        {
            "workspace": {"root": str(tmp_path)},
            "llm": {"model": "openai/edits", "api_base": scripted.api_base},
            "indexer": {"map_tokens": 40},
        }
    )
    scripted.add(
        "edits",
        tool_call("write_file", {"path": "pkg/m17.py", "content": "def handler_17(e): ...\n"}),
        text("edited"),
        text("nothing to do"),
    )

    async def run(prompt: str) -> None:
        index = await build_index(config)
        outcome = await run_agent(
            RunRequest(prompt=prompt, session_id="s1", confirm_mode="yolo"),
            FrontEnd(DiskFileAccess(tmp_path), DenyingApprover("test"), index=index),
            config=config,
            llm=LiteLLMAdapter(config.llm),
        )
        assert outcome.state.status == "success"

    await run("rewrite the seventeenth handler")
    # Equal modification times: only the session's own record tells the edited file apart.
    for path in pkg.iterdir():
        os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    await run("tidy up")
    system = scripted.requests_for("edits")[-1].messages[0]["content"]
    the_map = system[system.index(REPO_MAP_HEADING) :]
    assert "pkg/m17.py" in the_map
    assert "pkg/m18.py" not in the_map and "pkg/m16.py" not in the_map
