"""A minimal pygls server that exposes LspFileAccess to tests and scripted editors.

Requests (params are the JSON objects shown):

- ``test/apply {path, newText|null, confirm, base?, clientConfirms?}``: compute the
  change against the current text (or the given ``base``, to provoke a stale edit),
  apply it through ``LspFileAccess`` and answer the ``EditOutcome`` as a JSON string (a
  dict would reach the client as a namedtuple with mangled keys).
- ``test/read {path}`` → ``{text, version}`` as ``LspFileAccess.read_text`` sees it.

Run: ``python tests/e2e/edits_server.py`` (stdio).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pygls.lsp.server import LanguageServer

from agentls.agent.workspace import FileChange
from agentls.server.inline_review import InlineReviews
from agentls.server.lsp_files import LspFileAccess

server = LanguageServer("agentls-edits-test", "0")
_files: dict[bool, LspFileAccess] = {}
# What the agentls server keeps once for all its file accesses, kept once here too.
_edit_lock = asyncio.Lock()
_reviews = InlineReviews()


def files(ls: LanguageServer, client_confirms: bool) -> LspFileAccess:
    if client_confirms not in _files:
        root = ls.workspace.root_path
        assert root is not None, "the test client must send a rootUri"
        _files[client_confirms] = LspFileAccess(
            ls,
            Path(root),
            edit_lock=_edit_lock,
            reviews=_reviews,
            max_file_size=1_000_000,
            client_capabilities=ls.client_capabilities,
            client_confirms_edits=client_confirms,
        )
    return _files[client_confirms]


def _get(params: Any, name: str, default: Any = None) -> Any:
    return getattr(params, name, default)


@server.feature("test/apply")
async def apply(ls: LanguageServer, params: Any) -> str:
    access = files(ls, bool(_get(params, "clientConfirms", False)))
    path: str = params.path
    if hasattr(params, "base"):
        base = params.base
    else:
        base = (await access.read_text(path)).text if await access.exists(path) else None
    change = FileChange(access.rel(path), _get(params, "newText"), base)
    outcome = await access.apply([change], confirm=bool(_get(params, "confirm", False)))
    return json.dumps(dataclasses.asdict(outcome))


@server.feature("test/read")
async def read(ls: LanguageServer, params: Any) -> dict[str, Any]:
    access = files(ls, False)
    text = await access.read_text(params.path)
    return {"text": text.text, "version": text.version}


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.getLogger("pygls").setLevel(logging.WARNING)
    server.start_io()
