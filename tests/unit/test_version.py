"""One version number: pyproject takes it from ``agentls.__version__``, the server reports it
in ``initialize``'s serverInfo, and the VS Code extension carries the same."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from lsprotocol import types

import agentls
from agentls.server.app import build_server

REPO = Path(__file__).resolve().parents[2]


def test_pyproject_takes_its_version_from_the_package() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    assert "version" not in project, "the version is written once, in agentls/__init__.py"
    assert "version" in project["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "agentls.__version__"}


def test_the_server_reports_the_package_version_in_initialize() -> None:
    server = build_server()
    # pygls's own initialize: it yields to our handler (skipped here: it starts the
    # configuration's loading), then answers with the capabilities and serverInfo.
    steps = server.protocol.lsp_initialize(
        types.InitializeParams(capabilities=types.ClientCapabilities())
    )
    next(steps)
    with pytest.raises(StopIteration) as answered:
        steps.send(None)
    result = answered.value.value
    assert isinstance(result, types.InitializeResult)
    assert result.server_info == types.ServerInfo(name="agentls", version=agentls.__version__)


def test_the_extension_has_the_same_version() -> None:
    package = json.loads((REPO / "client-vscode" / "package.json").read_text(encoding="utf-8"))
    assert package["version"] == agentls.__version__
