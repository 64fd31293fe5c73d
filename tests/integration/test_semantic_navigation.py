"""Code navigation without an editor: ``navigate_code`` and ``rename_symbol`` answered by a
real basedpyright that agentls starts itself (the pool of the problems after edits).

On tests/fixtures/workspaces/semantic, where a search by name is wrong (see
tests/e2e/semantic_workspace.py): a definition through an alias of a re-export, the
references of ``Store.save`` without ``Cache.save``'s, the hover's type, the calls, and a
rename over three files that leaves ``Cache`` alone and type-checks after. Then through
``run_agent`` with the scripted model (the system prompt's line, the rename confirmed once
and kept in the checkpoint), and what goes wrong: an unknown symbol, a file no server
understands, an invalid name, a server that dies mid-request.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from semantic_workspace import (
    CACHE_SAVE,
    FAKE_SERVER,
    FIXTURE,
    STORE_SAVE,
    STORE_SAVE_USES,
    path_with_language_servers,
    semantic_workspace,
)

from agentls.agent.checkpoints import CheckpointStore
from agentls.agent.checkpoints.queries import list_checkpoints
from agentls.agent.checkpoints.restoring import restore
from agentls.agent.config.models import AppConfig
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.sessions.store import store_for
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.navigate import NavigateCodeArgs, NavigateCodeTool
from agentls.agent.tools.rename import RenameSymbolArgs, RenameSymbolTool
from agentls.agent.workspace import DiskFileAccess
from agentls.langservers import LanguageServers

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", path_with_language_servers())
    return semantic_workspace(tmp_path)


def config_in(ws: Path, **diagnostics: Any) -> AppConfig:
    return AppConfig.model_validate(
        {"workspace": {"root": str(ws)}, "indexer": {"enabled": False}, "diagnostics": diagnostics}
    )


def context(ws: Path, pool: LanguageServers, **run: Any) -> ToolContext:
    files = DiskFileAccess(ws)
    return ToolContext(RunContext(files=files, config=pool_config(pool, ws), **run))


def pool_config(pool: LanguageServers, ws: Path) -> AppConfig:
    return config_in(ws).model_copy(update={"diagnostics": pool.settings})


async def navigate(ctx: ToolContext, action: str, **args: Any) -> ToolResult:
    return await NavigateCodeTool().run(NavigateCodeArgs(action=action, **args), ctx)  # type: ignore[arg-type]


def places(output: str) -> set[tuple[str, int]]:
    """The ``path:line`` of each listed line."""
    found = set()
    for line in output.splitlines()[1:]:
        path, number, _ = line.split(":", 2)
        found.add((path, int(number)))
    return found


async def test_definition_references_hover_and_calls_follow_meaning_not_names(ws: Path) -> None:
    async with LanguageServers(config_in(ws).diagnostics, ws, trusted=True) as pool:
        ctx = context(ws, pool, navigator=pool.navigator)

        # Through the alias of a re-export, to the class in another module.
        found = await navigate(ctx, "definition", path="app.py", symbol="Shelf", line=14)
        assert found.success, found.output
        assert found.output.splitlines() == [
            "Definitions of `Shelf` (basedpyright): 1",
            "models.py:4: class Store:",
        ]

        # Store.save's uses, the one through the alias included; Cache.save's left out.
        found = await navigate(ctx, "references", path="models.py", symbol="Store.save")
        assert found.success, found.output
        assert places(found.output) == {STORE_SAVE, *STORE_SAVE_USES}
        assert not places(found.output) & CACHE_SAVE
        assert 'app.py:8: total = shelf.save("book")' in found.output

        # A name two classes define is ambiguous alone, and the answer says how to choose.
        found = await navigate(ctx, "references", path="models.py", symbol="save")
        assert not found.success
        assert "line 5: Store.save; line 10: Cache.save" in found.output

        found = await navigate(ctx, "hover", path="app.py", symbol="save", line=8)
        assert found.success
        assert "def save(item: str) -> int" in found.output

        found = await navigate(ctx, "incoming_calls", path="models.py", symbol="Store.save")
        assert found.output.splitlines()[1:] == [
            'app.py:8: total = shelf.save("book")  [in checkout]',
            'jobs.py:7: return store.save("backup")  [in nightly]',
        ]
        found = await navigate(ctx, "outgoing_calls", path="app.py", symbol="checkout")
        assert found.output.splitlines()[1:] == [
            "models.py:5: def save(self, item: str) -> int:  [called at line 8]",
            "models.py:10: def save(self, item: str) -> int:  [called at line 9]",
        ]

        found = await navigate(ctx, "document_symbols", path="models.py")
        assert found.output.splitlines()[1:] == [
            "models.py:4: class Store",
            "models.py:5: method Store.save",
            "models.py:9: class Cache",
            "models.py:10: method Cache.save",
        ]
        found = await navigate(ctx, "workspace_symbols", symbol="Cache")
        assert "models.py:9: class Cache" in found.output

        found = await navigate(ctx, "implementations", path="shapes.py", symbol="Shape.area")
        assert "shapes.py:10: def area(self) -> float:" in found.output.splitlines()


async def test_a_rename_changes_three_files_leaves_the_other_class_alone_and_type_checks(
    ws: Path,
) -> None:
    async with LanguageServers(config_in(ws).diagnostics, ws, trusted=True) as pool:
        ctx = context(ws, pool, navigator=pool.navigator, problems=pool)
        done = await RenameSymbolTool().run(
            RenameSymbolArgs(path="models.py", symbol="Store.save", new_name="persist"), ctx
        )
        assert done.success, done.output
        assert done.output.startswith(
            "Renamed `save` to `persist` (basedpyright): 3 occurrences in 3 files:"
        )
        models = (ws / "models.py").read_text()
        assert "    def persist(self, item: str) -> int:\n        return len(item)" in models
        assert "class Cache:\n    def save(self, item: str) -> int:" in models
        app = (ws / "app.py").read_text()
        assert 'total = shelf.persist("book")' in app
        assert 'cache.save("book")' in app
        assert 'return store.persist("backup")' in (ws / "jobs.py").read_text()
        assert (ws / "api.py").read_text() == (semantic_source("api.py"))

        texts = {p: (ws / p).read_text() for p in ("models.py", "app.py", "jobs.py", "api.py")}
        checked = await pool.problems(texts, 30)
        assert checked.late == [] and checked.unchecked == []
        assert [p.render() for p in checked.problems if p.severity == "error"] == []


def snapshot(ws: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in ws.iterdir() if p.is_file()}


def semantic_source(name: str) -> str:
    return (FIXTURE / name).read_text()


async def test_bad_input_is_a_clear_error_and_nothing_is_written(ws: Path) -> None:
    (ws / "notes.txt").write_text("save the Store\n")
    before = snapshot(ws)
    async with LanguageServers(config_in(ws).diagnostics, ws, trusted=True) as pool:
        ctx = context(ws, pool, navigator=pool.navigator)

        found = await navigate(ctx, "references", path="models.py", symbol="Warehouse")
        assert not found.success
        assert found.output == "`Warehouse` does not appear in models.py"

        found = await navigate(ctx, "definition", path="notes.txt", symbol="Store")
        assert not found.success
        assert found.output == (
            "no language server or parser understands notes.txt: use grep or search_code"
        )

        found = await navigate(ctx, "hover", path="app.py", symbol="save", line=3)
        assert found.output == "`save` is not on line 3 of app.py; it is on lines 8, 9"

        rename = RenameSymbolTool()
        for bad, why in [
            ("class", "'class' is a Python keyword"),
            ("2x", "'2x' is not a Python identifier"),
        ]:
            done = await rename.run(
                RenameSymbolArgs(path="models.py", symbol="Store.save", new_name=bad), ctx
            )
            assert not done.success
            assert done.output == f"Not renamed: {why}. Nothing was changed."
    assert snapshot(ws) == before


async def test_a_server_that_dies_mid_request_is_a_tool_error_and_nothing_is_written(
    ws: Path,
) -> None:
    dying = {
        "name": "fake-dying",
        "command": [sys.executable, str(FAKE_SERVER), "die-on-request"],
        "files": {".py": "python"},
    }
    settings = config_in(ws, servers=[dying]).diagnostics
    before = snapshot(ws)
    async with LanguageServers(settings, ws, trusted=True) as pool:
        ctx = context(ws, pool, navigator=pool.navigator)
        done = await RenameSymbolTool().run(
            RenameSymbolArgs(path="jobs.py", symbol="nightly", new_name="weekly"), ctx
        )
        assert not done.success
        assert done.output.startswith(
            "Not renamed: language server fake-dying failed: fake-dying exited (code 4)"
        ), done.output
        assert done.output.endswith("Nothing was changed.")
        # Dead, it is said so at once, not waited for again.
        found = await navigate(ctx, "references", path="jobs.py", symbol="nightly")
        assert not found.success
        assert "fake-dying exited (code 4)" in found.output
    assert snapshot(ws) == before


async def test_a_run_is_told_of_the_servers_and_its_rename_is_one_confirmed_edit_in_the_checkpoint(
    ws: Path, scripted: ScriptedModelServer
) -> None:
    scripted.add(
        "semantic",
        tool_call(
            "navigate_code",
            {"action": "references", "path": "models.py", "symbol": "Store.save"},
        ),
        tool_call(
            "rename_symbol", {"path": "models.py", "symbol": "Store.save", "new_name": "persist"}
        ),
        text("renamed"),
    )
    config = AppConfig.model_validate(
        {
            "workspace": {"root": str(ws)},
            "llm": {"model": "openai/semantic", "api_base": scripted.api_base, "retries": 0},
            "indexer": {"enabled": False},
        }
    )
    asked: list[Any] = []

    class Recording(DenyingApprover):
        async def confirm_edit(self, request: Any, files: Any) -> Any:
            asked.append(sorted(c.path for c in request.changes))
            return await files.apply(request.changes, confirm=False)

    async with LanguageServers(config.diagnostics, ws, trusted=True) as pool:
        outcome = await run_agent(
            RunRequest(prompt="rename Store.save to persist", confirm_mode="confirm-sensitive"),
            FrontEnd(
                DiskFileAccess(ws),
                Recording("test"),
                problems=pool,
                navigator=pool.navigator,
            ),
            config=config,
            llm=LiteLLMAdapter(config.llm),
        )
    assert outcome.state.status == "success", outcome.state
    first = scripted.requests_for("semantic")[0].messages
    assert "Code navigation: a language server answers for .py, .pyi" in str(first[0]["content"])
    results = [
        str(m["content"])
        for m in scripted.requests_for("semantic")[-1].messages
        if m.get("role") == "tool"
    ]
    assert results[0].startswith("References to `Store.save` (basedpyright): 3")
    assert results[1].startswith("Renamed `save` to `persist` (basedpyright)")
    assert asked == [["app.py", "jobs.py", "models.py"]]  # one question for the three files
    assert 'shelf.persist("book")' in (ws / "app.py").read_text()

    # The checkpoint holds the three files, and restoring it puts them back.
    sessions = store_for(ws, config.sessions.dir)
    (run,) = list_checkpoints(sessions, outcome.session_id)
    assert sorted(f["path"] for f in run["files"]) == ["app.py", "jobs.py", "models.py"]
    store = CheckpointStore.for_session(sessions, outcome.session_id)
    await restore(store, outcome.run_id, DiskFileAccess(ws), confirm=False)
    assert snapshot(ws) == {p.name: p.read_text() for p in FIXTURE.iterdir()}
