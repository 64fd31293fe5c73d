"""navigate_code and rename_symbol without a language server: the tree-sitter answers
(marked textual), and a rename's checks against a navigator that answers what a test
says (a file changed since, a file outside the workspace, a refusal to rename by name).
The real server is in tests/integration/test_semantic_navigation.py."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AppConfig
from agentls.agent.indexing import local_symbols
from agentls.agent.navigation import (
    Action,
    Answer,
    FileEdits,
    NavigationError,
    Place,
    TextEdit,
    navigation_hint,
)
from agentls.agent.tools.base import RunContext, ToolContext, ToolResult
from agentls.agent.tools.navigate import NavigateCodeArgs, NavigateCodeTool
from agentls.agent.tools.rename import RenameSymbolArgs, RenameSymbolTool, invalid_name
from agentls.agent.workspace import DiskFileAccess
from agentls.indexer import IndexSettings, RepoIndexer

MODELS = (
    "class Store:\n    def save(self, item):\n        return 1\n\n\n"
    "class Cache:\n    def save(self, item):\n        return 0\n"
)
APP = "from models import Store\n\nStore().save(1)\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


class ScriptedNavigator:
    """Answers a rename with the edits it is given; answers nothing else."""

    textual = False

    def __init__(self, edits: list[FileEdits]) -> None:
        self.edits = edits

    def covers(self, path: str) -> bool:
        return path.endswith(".py")

    def why_not(self, path: str) -> str:
        return "" if self.covers(path) else "no scripted server for it"

    def languages(self) -> list[str]:
        return [".py"]

    async def ask(self, action: Action, place: Place) -> Answer:
        if action == "document_symbols":
            raise NavigationError("no outline here")
        return Answer("scripted")

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        return Answer("scripted")

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        return "scripted", self.edits


def context(ws: Path, navigator: Any = None, *, indexed: bool = False) -> ToolContext:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}})
    index = RepoIndexer(ws, IndexSettings()).build() if indexed else None
    return ToolContext(
        RunContext(
            files=DiskFileAccess(ws),
            config=config,
            index=index,
            symbols=local_symbols(index),
            navigator=navigator,
        )
    )


def rename_of(path: str, line: int, col: int, base: str | None = None) -> FileEdits:
    return FileEdits(path, (TextEdit(line, col, line, col + 4, "keep"),), base)


async def rename(ctx: ToolContext, **args: Any) -> ToolResult:
    defaults = {"path": "models.py", "symbol": "save", "line": 2, "new_name": "keep"}
    return await RenameSymbolTool().run(RenameSymbolArgs(**{**defaults, **args}), ctx)


async def test_without_a_server_the_answers_come_from_names_and_say_so(ws: Path) -> None:
    ctx = context(ws, indexed=True)
    found = await NavigateCodeTool().run(
        NavigateCodeArgs(action="definition", path="app.py", symbol="save"), ctx
    )
    assert found.success
    assert found.output.splitlines() == [
        "Definitions of `save` (tree-sitter (textual: by name, not by meaning)): 2",
        "models.py:2: def save(self, item):",
        "models.py:7: def save(self, item):",
    ]
    outline = await NavigateCodeTool().run(
        NavigateCodeArgs(action="document_symbols", path="models.py"), ctx
    )
    assert "models.py:6: class Cache" in outline.output
    calls = await NavigateCodeTool().run(
        NavigateCodeArgs(action="incoming_calls", path="app.py", symbol="save"), ctx
    )
    assert not calls.success
    assert calls.output.startswith("incoming calls need a language server")
    refused = await rename(ctx, path="app.py", line=3)
    assert not refused.success
    assert "renaming needs a language server" in refused.output
    assert (ws / "app.py").read_text() == APP


async def test_a_file_a_server_does_not_cover_says_why_the_answer_is_textual(ws: Path) -> None:
    (ws / "notes.js").write_text("function save() {}\nsave()\n")
    ctx = context(ws, ScriptedNavigator([]), indexed=True)
    found = await NavigateCodeTool().run(
        NavigateCodeArgs(action="references", path="notes.js", symbol="save", line=2), ctx
    )
    # By name: the Python method's use is listed with the JavaScript function's.
    assert found.output.splitlines() == [
        "References to `save` (tree-sitter (textual: by name, not by meaning); no scripted "
        "server for it): 2",
        "app.py:3: Store().save(1)",
        "notes.js:2: save()",
    ]


async def test_a_file_changed_since_the_server_answered_is_not_renamed(ws: Path) -> None:
    # Its text then was not its text now: nothing is written, in any file.
    edits = [rename_of("app.py", 3, 9), rename_of("models.py", 2, 9, base="old text")]
    done = await rename(context(ws, ScriptedNavigator(edits)))
    assert not done.success
    assert done.output == (
        "Not renamed: models.py changed since the server computed the rename; ask again. "
        "Nothing was changed."
    )
    # A range that no longer holds the old name.
    done = await rename(context(ws, ScriptedNavigator([rename_of("app.py", 1, 1)])))
    assert done.output.startswith("Not renamed: app.py:1 no longer holds `save`")
    assert (ws / "app.py").read_text() == APP
    assert (ws / "models.py").read_text() == MODELS


async def test_files_outside_the_workspace_are_refused_by_name(ws: Path) -> None:
    outside = str(ws.parent / "elsewhere.py")
    edits = [rename_of("app.py", 3, 9), rename_of(outside, 1, 1)]
    done = await rename(context(ws, ScriptedNavigator(edits)))
    assert done.output == (
        f"Not renamed: the rename would change files outside the workspace: {outside}. "
        "Nothing was changed."
    )
    assert (ws / "app.py").read_text() == APP


async def test_a_rename_is_one_change_over_its_files(ws: Path) -> None:
    edits = [rename_of("app.py", 3, 9), rename_of("models.py", 2, 9)]
    done = await rename(context(ws, ScriptedNavigator(edits)))
    assert done.output == (
        "Renamed `save` to `keep` (scripted): 2 occurrences in 2 files: app.py (1), models.py (1)"
    )
    assert (ws / "app.py").read_text() == "from models import Store\n\nStore().keep(1)\n"
    assert (ws / "models.py").read_text() == MODELS.replace("def save", "def keep", 1)


def test_names_are_checked_for_the_file_s_language() -> None:
    assert invalid_name("a.py", "persist") is None
    assert invalid_name("a.py", "lambda") == "'lambda' is a Python keyword"
    assert invalid_name("a.py", "new-name") == "'new-name' is not a Python identifier"
    assert invalid_name("a.ts", "$store") is None
    assert invalid_name("a.go", "two words") == "'two words' is not an identifier"


def test_the_system_prompt_line_only_when_a_server_answers() -> None:
    line = navigation_hint(ScriptedNavigator([]), [])
    assert line.startswith("Code navigation: a language server answers for .py files.")
    assert "`rename_symbol` renames" in line
    read_only = navigation_hint(ScriptedNavigator([]), ["read_file", "navigate_code"])
    assert "rename_symbol" not in read_only
    assert navigation_hint(ScriptedNavigator([]), ["read_file"]) == ""
    assert navigation_hint(None, []) == ""


async def test_a_rename_reaching_a_protected_file_is_asked_about_whatever_the_mode(
    ws: Path,
) -> None:
    from agentls.agent.policy.approval import BaseApprover, EditRequest
    from agentls.agent.workspace import EditOutcome, FileAccess

    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "tasks_helper.py").write_text(APP)

    class Refusing(BaseApprover):
        def __init__(self) -> None:
            self.asked: list[EditRequest] = []

        async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
            self.asked.append(request)
            return EditOutcome("rejected", message="the user refused")

    edits = [rename_of("app.py", 3, 9), rename_of(".vscode/tasks_helper.py", 3, 9)]
    ctx = context(ws, ScriptedNavigator(edits))
    refusing = Refusing()
    ctx = dataclasses.replace(ctx, run=dataclasses.replace(ctx.run, approver=refusing))

    # The policy saw only models.py (not protected), so this call was not to be confirmed.
    done = await rename(ctx)

    assert not done.success
    (asked,) = refusing.asked
    assert asked.insist and ".vscode" in asked.reason
    assert sorted(c.path for c in asked.changes) == [".vscode/tasks_helper.py", "app.py"]
    assert (ws / "app.py").read_text() == APP
    assert (ws / ".vscode" / "tasks_helper.py").read_text() == APP
