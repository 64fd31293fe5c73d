"""What a server keeps is its own: two servers in one process share no edit lock, no
inline review book and no run manager, and the file access a server makes uses its own."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp

from agentls.agent.config.models import AppConfig
from agentls.agent.folder.runs import RunTicket
from agentls.server.app import AgentLanguageServer, build_server
from agentls.server.edit_confirmation import InlineReview
from agentls.server.lsp_files import LspFileAccess
from agentls.server.run_handle import RunHandle

REVIEWING_CLIENT = lsp.ClientCapabilities(
    workspace=lsp.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=lsp.WorkspaceEditClientCapabilities(
            document_changes=True,
            change_annotation_support=lsp.ChangeAnnotationsSupportOptions(),
        ),
    ),
    experimental={"agentls": {"inlineReview": True}},
)


def _files(server: AgentLanguageServer, root: Path) -> LspFileAccess:
    server.protocol.client_capabilities = REVIEWING_CLIENT
    config = AppConfig.model_validate({"workspace": {"root": str(root)}})
    files = server.files_for(config)
    assert isinstance(files, LspFileAccess)
    return files


def test_two_servers_in_one_process_keep_separate_review_books_and_edit_locks(
    tmp_path: Path,
) -> None:
    one, other = build_server(), build_server()
    assert one.edit_lock is not other.edit_lock
    assert one.reviews is not other.reviews
    assert one.runs is not other.runs

    one.reviews.track(RunHandle(RunTicket("r1", "s1")), {"h1": ("a.py", 1, "+1 −0 at line 1")})
    assert "h1" in one.reviews.hunks
    assert other.reviews.hunks == {}


async def test_one_servers_edit_in_flight_does_not_hold_up_the_other(tmp_path: Path) -> None:
    one, other = build_server(), build_server()
    async with one.edit_lock:
        assert not other.edit_lock.locked()
        async with other.edit_lock:
            assert one.edit_lock.locked() and other.edit_lock.locked()


def test_a_servers_file_access_uses_that_servers_lock_and_book(tmp_path: Path) -> None:
    one, other = build_server(), build_server()
    mine, theirs = _files(one, tmp_path), _files(other, tmp_path)
    assert mine.edit_lock is one.edit_lock and theirs.edit_lock is other.edit_lock
    assert isinstance(mine.confirmation, InlineReview)
    assert isinstance(theirs.confirmation, InlineReview)
    assert mine.confirmation.reviews is one.reviews
    assert theirs.confirmation.reviews is other.reviews
    # A second access of the same server (a restore, the next run) shares them.
    again = _files(one, tmp_path)
    assert again.edit_lock is one.edit_lock
    assert isinstance(again.confirmation, InlineReview)
    assert again.confirmation.reviews is one.reviews


async def test_handled_notifications_leave_no_future_behind(tmp_path: Path) -> None:
    """pygls keeps a future per notification (a ``didChange`` per keystroke) in its table
    of requests in flight; the server's protocol removes it once the notification is
    handled, so a day of typing keeps nothing."""
    import asyncio

    from pygls.uris import from_fs_path
    from pygls.workspace import Workspace

    server = build_server()
    protocol = server.protocol
    protocol._workspace = Workspace(from_fs_path(str(tmp_path)))  # as initialize makes it
    uri = from_fs_path(str(tmp_path / "a.py")) or ""

    def notify(method: str, params: dict[str, object]) -> None:
        protocol.handle_message(
            protocol.structure_message({"jsonrpc": "2.0", "method": method, "params": params})
        )

    document = {"uri": uri, "languageId": "python", "version": 1, "text": ""}
    notify("textDocument/didOpen", {"textDocument": document})
    for version in range(2, 52):
        notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": "x" * version}],
            },
        )
    for _ in range(10):
        await asyncio.sleep(0)
    assert server.workspace.get_text_document(uri).source == "x" * 51
    assert protocol._request_futures == {}
