"""``agent/attachCandidates`` over stdio: the files and symbols a `@` picker offers, searched
in the server with a limit, and what it says when it cannot search."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import AgentClient, LspFactory, llm_options, plain
from pygls.exceptions import JsonRpcInvalidParams

from agentls.agent.llm.scripted_server import ScriptedModelServer

pytestmark = pytest.mark.timeout(120)


async def ask(client: AgentClient, query: str, limit: int = 50) -> dict[str, Any]:
    answer: dict[str, Any] = plain(
        await client.request("agent/attachCandidates", {"query": query, "limit": limit})
    )
    return answer


async def until_symbols(client: AgentClient, query: str) -> dict[str, Any]:
    """The answer once the symbol process has parsed the workspace (it fills after start)."""
    for _ in range(200):
        answer = await ask(client, query)
        if any(item["kind"] == "symbol" for item in answer["items"]):
            return answer
        await asyncio.sleep(0.1)
    raise AssertionError(f"no symbol matched {query!r}: {answer}")


async def test_files_and_symbols_match_what_was_typed_best_first(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    (workspace / "src" / "greeting_cards.py").write_text("def send_card(to):\n    return to\n")
    for n in range(300):
        (workspace / "src" / f"module_{n}.py").write_text(f"VALUE_{n} = {n}\n")
    client = await lsp(init_options=llm_options(scripted))
    answer = await until_symbols(client, "greet")
    files = [item["path"] for item in answer["items"] if item["kind"] == "file"]
    symbols = [item for item in answer["items"] if item["kind"] == "symbol"]
    assert files[0] == "src/greeting_cards.py"
    assert symbols[0] == {
        "kind": "symbol",
        "path": "src/app.py",
        "name": "greet",
        "line": 1,
        "symbolKind": "function",
        "detail": "def greet(name):",
    }
    assert answer["notes"] == []
    limited = await ask(client, "module", limit=5)
    assert len([i for i in limited["items"] if i["kind"] == "file"]) == 5
    # An empty query lists files only (the first, in path order): no symbol is "best".
    empty = await ask(client, "", limit=3)
    assert [i["kind"] for i in empty["items"]] == ["file"] * 3
    with pytest.raises(JsonRpcInvalidParams):
        await ask(client, "x", limit=0)


async def test_without_an_index_the_answer_says_why_it_is_empty(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    options = {**llm_options(scripted), "indexer": {"enabled": False}}
    client = await lsp(init_options=options)
    answer = await ask(client, "greet")
    assert answer["items"] == []
    assert answer["notes"][0].startswith("no index of this workspace")
    assert any(note.startswith("no symbols:") for note in answer["notes"])
