"""Test-side editor model for the edit tests: documents, versions, applying TextEdits.

``FakeEditor`` plays the part of an editor behind a pytest-lsp client: it keeps the
open documents, answers ``workspace/applyEdit`` the way the test asks (accept,
reject, JSON-RPC error, keep some hunks, pretend to apply) and reports what it did
with ``didChange`` like a real editor, before or after its answer.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInternalError
from pytest_lsp import LanguageClient, make_test_lsp_client

from agentls.server.edits import apply_text_edits

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "tests" / "e2e" / "edits_server.py"

Mode = Literal["accept", "reject", "error", "version-error", "some", "ignore"]


@dataclass
class FakeEditor:
    client: LanguageClient
    root: Path
    mode: Mode = "accept"
    #: for mode "some": which edits (0-based, in the order sent) to keep
    keep: set[int] = field(default_factory=set)
    #: send didChange after answering (as a slow editor would) instead of before
    change_after_answer: bool = False
    #: answer to window/showMessageRequest: an action title, or None
    message_answer: str | None = "Apply"
    docs: dict[str, tuple[str, int]] = field(default_factory=dict)
    edits_seen: list[lsp.ApplyWorkspaceEditParams] = field(default_factory=list)
    questions: list[lsp.ShowMessageRequestParams] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    hold: float = 0.0
    created: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def open(self, rel: str, text: str | None = None, version: int = 1) -> None:
        if text is None:
            text = (self.root / rel).read_text(encoding="utf-8")
        uri = self.uri(rel)
        self.docs[uri] = (text, version)
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(
                    uri=uri, language_id="python", version=version, text=text
                )
            )
        )

    def type_text(self, rel: str, text: str) -> None:
        """The user edits the buffer: a full-text didChange."""
        uri = self.uri(rel)
        _, version = self.docs[uri]
        self._change(uri, text, version + 1)

    def text(self, rel: str) -> str:
        return self.docs[self.uri(rel)][0]

    def _change(self, uri: str, text: str, version: int) -> None:
        self.docs[uri] = (text, version)
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def on_apply_edit(
        self, params: lsp.ApplyWorkspaceEditParams
    ) -> lsp.ApplyWorkspaceEditResult:
        self.edits_seen.append(params)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.hold:
                await asyncio.sleep(self.hold)
            if self.mode == "reject":
                return lsp.ApplyWorkspaceEditResult(applied=False)
            if self.mode == "error":
                raise JsonRpcInternalError("User cancelled server edit")
            if self.mode == "version-error":
                raise JsonRpcInternalError("Edits on `app.py' require version 1, you have 2")
            if self.mode == "ignore":
                return lsp.ApplyWorkspaceEditResult(applied=True)
            updates = self._apply(params.edit)
            if self.change_after_answer:
                loop = asyncio.get_running_loop()
                loop.call_later(0.2, self._flush, updates)
            else:
                self._flush(updates)
            return lsp.ApplyWorkspaceEditResult(applied=True)
        finally:
            self.in_flight -= 1

    def _flush(self, updates: list[tuple[str, str]]) -> None:
        for uri, text in updates:
            if uri in self.docs:
                _, version = self.docs[uri]
                self._change(uri, text, version + 1)

    def _apply(self, edit: lsp.WorkspaceEdit) -> list[tuple[str, str]]:
        updates: list[tuple[str, str]] = []
        counter = 0
        for change in edit.document_changes or []:
            if isinstance(change, lsp.CreateFile):
                self.created.append(change.uri)
                continue
            if isinstance(change, lsp.DeleteFile):
                self.deleted.append(change.uri)
                continue
            assert isinstance(change, lsp.TextDocumentEdit)
            uri = change.text_document.uri
            if uri in self.docs:
                text, version = self.docs[uri]
                assert change.text_document.version in (None, version)
            else:
                text = ""
            chosen = []
            for e in change.edits:
                if self.mode != "some" or counter in self.keep:
                    chosen.append(e)
                counter += 1
            updates.append((uri, apply_text_edits(text, chosen)))
        return updates

    async def on_show_message_request(
        self, params: lsp.ShowMessageRequestParams
    ) -> lsp.MessageActionItem | None:
        self.questions.append(params)
        if self.message_answer is None:
            return None
        return lsp.MessageActionItem(title=self.message_answer)


def capabilities(*, annotations: bool, show_message: bool) -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        workspace=lsp.WorkspaceClientCapabilities(
            apply_edit=True,
            workspace_edit=lsp.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[
                    lsp.ResourceOperationKind.Create,
                    lsp.ResourceOperationKind.Delete,
                ],
                change_annotation_support=(
                    lsp.ChangeAnnotationsSupportOptions(groups_on_label=True)
                    if annotations
                    else None
                ),
            ),
        ),
        window=(
            lsp.WindowClientCapabilities(show_message=lsp.ShowMessageRequestClientCapabilities())
            if show_message
            else lsp.WindowClientCapabilities()
        ),
    )


async def start_editor(
    root: Path, caps: lsp.ClientCapabilities, configure: Callable[[FakeEditor], None] | None = None
) -> FakeEditor:
    client = make_test_lsp_client()
    editor = FakeEditor(client, root)
    if configure:
        configure(editor)

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)  # type: ignore[untyped-decorator]
    async def _apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        return await editor.on_apply_edit(params)

    @client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)  # type: ignore[untyped-decorator]
    async def _ask(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
        return await editor.on_show_message_request(params)

    await client.start_io(sys.executable, str(SERVER), cwd=str(REPO))
    await client.initialize_session(
        lsp.InitializeParams(capabilities=caps, root_uri=root.as_uri(), process_id=None)
    )
    return editor


async def request(editor: FakeEditor, method: str, params: dict[str, Any]) -> Any:
    return await editor.client.protocol.send_request_async(method, params)  # type: ignore[no-untyped-call]


# -- real editors ----------------------------------------------------------------------
EDITORS_DIR = REPO / "tests" / "e2e" / "editors"
ENSURE_EDITORS = REPO / "scripts" / "ensure_editors.sh"
HARNESS_CMD = [sys.executable, str(SERVER)]


def ensure_editors() -> None:
    """Install Neovim / Emacs + eglot if missing; skip only when told to."""
    import os
    import subprocess

    import pytest

    if os.environ.get("AGENTLS_SKIP_EDITOR_TESTS") == "1":
        pytest.skip("AGENTLS_SKIP_EDITOR_TESTS=1")
    subprocess.run(["bash", str(ENSURE_EDITORS)], check=True, timeout=900)


async def run_editor(
    editor: Literal["nvim", "emacs"],
    root: Path,
    *,
    file: str,
    method: str,
    params: dict[str, Any],
    answer: str,
    server_cmd: list[str] | None = None,
    init: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    limit: float = 150,
) -> dict[str, Any]:
    """Run a scripted headless editor against a server; the JSON report it wrote."""
    import json
    import os

    out = root.parent / f"{editor}-report-{os.getpid()}-{id(params)}.json"
    environ = {
        **os.environ,
        **(env or {}),
        "AGENTLS_TEST_ROOT": str(root),
        "AGENTLS_TEST_CMD": json.dumps(server_cmd or HARNESS_CMD),
        "AGENTLS_TEST_FILE": file,
        "AGENTLS_TEST_METHOD": method,
        "AGENTLS_TEST_PARAMS": json.dumps(params),
        "AGENTLS_TEST_ANSWER": answer,
        "AGENTLS_TEST_INIT": json.dumps(init) if init is not None else "",
        "AGENTLS_TEST_OUT": str(out),
        "HOME": str(root.parent),  # no user config of either editor
    }
    if editor == "nvim":
        argv = [
            "nvim",
            "--headless",
            "-u",
            "NONE",
            "-c",
            f"luafile {EDITORS_DIR / 'nvim_request.lua'}",
        ]
    else:
        argv = ["emacs", "--batch", "-l", str(EDITORS_DIR / "emacs_request.el")]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(REPO),
        env=environ,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        output, _ = await asyncio.wait_for(proc.communicate(), limit)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError(f"{editor} did not finish within {limit}s") from None
    if not out.exists():
        raise AssertionError(f"{editor} wrote no report:\n{output.decode(errors='replace')}")
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    report["output"] = output.decode(errors="replace")
    return report


@dataclass(frozen=True)
class RealEditor:
    """What differs between the real editors the tests drive; everything else is shared.

    Neovim 0.7 cannot confirm annotated edits: the server asks with
    window/showMessageRequest (the script answers), then sends a plain versioned edit.
    eglot 1.9 declares neither change annotations nor window.showMessage; it asks its own
    "Proceed?" before every server edit and answers a "no" with a JSON-RPC error, which
    the server reports as a rejection. The server is told so (``clientConfirms`` to the
    harness, ``editor.confirms_edits`` to agentls), since eglot does not identify itself.
    """

    name: Literal["nvim", "emacs"]
    accept: str
    decline: str
    #: Text of the one question the user sees about an edit of app.py.
    asks: str
    confirms_itself: bool

    def answer(self, accept: bool) -> str:
        return self.accept if accept else self.decline


EDITORS = {
    "nvim": RealEditor("nvim", "Apply", "Reject", "Apply edit to app.py", False),
    "emacs": RealEditor("emacs", "yes", "no", "Proceed?", True),
}


def report_error(report: dict[str, Any]) -> Any:
    """What went wrong in an editor's script or request (None when nothing did)."""
    return report.get("script_error") or report.get("error")


def report_result(report: dict[str, Any]) -> Any:
    """The request's result (eglot hands it over as JSON text, Neovim as a table)."""
    import json

    result = report["result"]
    return json.loads(result) if isinstance(result, str) else result
