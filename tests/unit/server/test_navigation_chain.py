"""The editor's navigator and the chain behind it, with a stand-in for the client's side of
``agent/navigate`` (the real client answers in tests/e2e/test_navigation_lsp.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agentls.agent.navigation import Action, Answer, FileEdits, Place
from agentls.server.navigation import EditorNavigator, NavigatorChain
from agentls.server.protocol import NavigateResult


class _Workspace:
    def __init__(self) -> None:
        self.text_documents: dict[str, Any] = {}


class _Protocol:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: list[dict[str, Any]] = []

    def send_request_async(self, method: str, params: Any) -> asyncio.Future[Any]:
        assert method == "agent/navigate"
        self.asked.append(params)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self.answer is not None:  # None: the editor never answers
            future.set_result(NavigateResult.model_validate(self.answer))
        return future


class _Client:
    def __init__(self, answer: Any) -> None:
        self.protocol = _Protocol(answer)
        self.workspace = _Workspace()


class _Servers:
    """The language servers' navigator behind the editor."""

    textual = False

    def __init__(self) -> None:
        self.asked: list[str] = []

    def covers(self, path: str) -> bool:
        return path.endswith(".py")

    def why_not(self, path: str) -> str:
        return "" if self.covers(path) else "no language server for it"

    def languages(self) -> list[str]:
        return [".py"]

    async def ask(self, action: Action, place: Place) -> Answer:
        self.asked.append(action)
        return Answer("basedpyright", hover="(method) save")

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        return Answer("basedpyright")

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        return "basedpyright", []


def _editor(tmp_path: Path, answer: Any) -> tuple[EditorNavigator, _Client]:
    client = _Client(answer)
    editor = EditorNavigator(client, tmp_path, [".py"])  # type: ignore[arg-type]
    return editor, client


async def test_an_editor_that_never_answers_hands_on_and_is_not_asked_again(
    tmp_path: Path,
) -> None:
    editor, client = _editor(tmp_path, None)
    editor.seconds = 0.01
    servers = _Servers()
    chain = NavigatorChain([editor, servers])
    place = Place("a.py", 1, 1, "save()\n")
    first = await chain.ask("hover", place)
    assert first.by.startswith("basedpyright; the editor did not answer agent/navigate within")
    assert first.hover == "(method) save"
    second = await chain.ask("hover", place)
    assert second.by == "basedpyright"
    assert len(client.protocol.asked) == 1
    assert not editor.covers("a.py") and "did not answer" in editor.why_not("a.py")


async def test_the_editor_answers_first_in_characters_of_the_line(tmp_path: Path) -> None:
    # `save` after an emoji: 2 UTF-16 units, 1 character.
    text = 'label = "😀"; save()\n'
    at = {"start": {"line": 0, "character": 14}, "end": {"line": 0, "character": 18}}
    editor, client = _editor(
        tmp_path,
        {
            "answered": True,
            "by": "VS Code",
            "locations": [{"uri": (tmp_path / "a.py").as_uri(), "range": at}],
        },
    )
    servers = _Servers()
    answer = await NavigatorChain([editor, servers]).ask("definition", Place("a.py", 1, 14, text))
    assert answer.by == "VS Code"
    assert [(loc.path, loc.line, loc.col, loc.end_col) for loc in answer.locations] == [
        ("a.py", 1, 14, 18)
    ]
    assert client.protocol.asked[0]["position"] == {"line": 0, "character": 14}
    assert servers.asked == []
