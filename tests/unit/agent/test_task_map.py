"""The repo map section a run puts in its system prompt."""

from __future__ import annotations

from pathlib import Path

from agentls.agent.config import AppConfig
from agentls.agent.indexing import REPO_MAP_HEADING, build_index, task_map


async def test_map_names_what_the_prompt_asks_about_and_honours_the_budget(
    tmp_path: Path,
) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "orders.py").write_text(
        "class Order:\n    def cancel_order(self, reason):\n        pass\n"
    )
    config = AppConfig.model_validate({"workspace": {"root": str(tmp_path)}})
    index = await build_index(config)
    text = await task_map(index, config, "cancel_order ignores the reason")
    assert text == (
        f"{REPO_MAP_HEADING}\nlib/orders.py:\n  1: class Order:\n"
        "  2: def cancel_order(self, reason):"
    )
    assert await task_map(index, config, "cancel_order ignores the reason") == text
    off = config.model_copy(update={"indexer": config.indexer.model_copy(update={"map_tokens": 0})})
    assert await task_map(index, off, "cancel_order") == ""
    assert await task_map(None, config, "cancel_order") == ""
