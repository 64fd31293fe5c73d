"""The agent reads the editor's unsaved buffer, not the disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentls_e2e import APP_PY, CLIENTS, LspFactory, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call

UNSAVED = 'def greet(name):\n    return f"UNSAVED hi {name}"\n'


@pytest.mark.parametrize(("editor", "sync"), [("vscode", "incremental"), ("neovim", "full")])
async def test_read_file_sees_unsaved_buffer(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path, editor: str, sync: str
) -> None:
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("read"))
    client = await lsp(caps=CLIENTS[editor])
    uri = client.open("src/app.py", APP_PY)
    if sync == "full":
        client.change(uri, UNSAVED)
    else:
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=1, character=14),
                            end=types.Position(line=1, character=19),
                        ),
                        text="UNSAVED hi",
                    )
                ],
            )
        )
    result = plain(await client.run(prompt="read app", runId="o1", confirmMode="yolo"))
    assert result["status"] == "success"
    assert (workspace / "src" / "app.py").read_text() == APP_PY  # disk untouched
    tool_messages = [m for m in scripted.requests_for("alice")[1].messages if m["role"] == "tool"]
    assert "UNSAVED hi" in str(tool_messages[-1]["content"])
