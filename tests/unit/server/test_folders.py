"""The server's workspace folders: the first is the default, a folder is found by its URI
however the client escaped it, a path by the innermost folder holding it, and a folder
that is none of them (unknown, removed) is refused naming it and the open ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from agentls.server.app import build_server
from agentls.server.folders import Folders
from agentls.server.index_service import PROGRESS_TOKEN


def uri(path: Path) -> str:
    return from_fs_path(str(path)) or ""


def test_the_first_folder_is_the_default_and_each_is_found_by_its_uri(tmp_path: Path) -> None:
    ls = build_server()
    folders = Folders()
    api, web = tmp_path / "api", tmp_path / "web"
    first = folders.add(ls, uri(api), api)
    second = folders.add(ls, uri(web), web)
    assert folders.default is first and len(folders) == 2
    assert folders.named(None) is first and folders.named(uri(web)) is second
    assert folders.add(ls, uri(web), web) is second  # added twice: the same folder
    # another spelling of the same path (VS Code escapes what others do not)
    assert folders.find(uri(web).replace("/web", "/%77eb")) is second
    # each index reports on a token of its own; the first keeps the one it always had
    assert first.index_service._token == PROGRESS_TOKEN
    assert second.index_service._token != PROGRESS_TOKEN
    # folders are made lazily: no engine (and so no language server) before it is needed
    assert first._engine is None and second._engine is None


def test_a_folder_that_is_none_of_them_is_refused_naming_it_and_the_open_ones(
    tmp_path: Path,
) -> None:
    ls = build_server()
    folders = Folders()
    api, web = tmp_path / "api", tmp_path / "web"
    folders.add(ls, uri(api), api)
    removed = folders.add(ls, uri(web), web)
    assert folders.remove(uri(web)) is removed and removed.removed
    assert folders.remove(uri(web)) is None
    with pytest.raises(JsonRpcInvalidParams) as raised:
        folders.named(uri(web))
    assert uri(web) in str(raised.value) and uri(api) in str(raised.value)


def test_a_path_belongs_to_the_innermost_folder_that_holds_it(tmp_path: Path) -> None:
    ls = build_server()
    folders = Folders()
    outer, inner = tmp_path / "repo", tmp_path / "repo" / "packages" / "ui"
    inner.mkdir(parents=True)
    folders.add(ls, uri(outer), outer)
    nested = folders.add(ls, uri(inner), inner)
    assert folders.holding(inner / "src" / "a.ts") is nested
    assert folders.holding(outer / "README.md") is folders.default
    assert folders.holding(tmp_path / "repository" / "x.py") is None  # a prefix is not a parent


def test_before_initialize_the_server_serves_the_current_directory_as_a_stand_in(
    tmp_path: Path,
) -> None:
    ls = build_server()
    stand_in = ls.default_folder
    assert stand_in.implicit and stand_in.root == Path.cwd()
    ls.folders.drop_implicit()
    assert len(ls.folders) == 0
    real = ls.folders.add(ls, uri(tmp_path), tmp_path)
    assert ls.default_folder is real
