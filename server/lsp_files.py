"""``LspFileAccess``: the agent's FileAccess while an editor is attached.

Reads come from the editor first: a document the client opened (``didOpen`` /
``didChange``, kept by pygls in ``server.workspace``) is read with its unsaved text and
its version; anything else is read from disk with exactly the rules of
``DiskFileAccess`` (confinement, binary and size limits, lossy decoding).

Writes never touch the disk. ``apply`` turns the changes into one
``workspace/applyEdit``: a versioned ``TextDocumentEdit`` of minimal line hunks per
file, ``CreateFile`` plus an insert for a new file, ``DeleteFile`` for a deletion
(server/edits.py builds it). How a change that needs confirmation is confirmed is one
strategy chosen once from the client's capabilities (server/edit_confirmation.py).

After the client answers, the document is read back and the outcome tells the
truth: ``applied``, ``rejected`` (nothing changed), ``partial`` (which hunks were
kept), ``stale`` (the file changed since the agent read it: checked here, before
anything is sent, because Neovim 0.7 answers ``applied: true`` for an edit it skipped
as stale) or ``failed``.

Where the text ends up: an edit to a document that is open lands in the editor's
buffer and stays unsaved until the user (or the VS Code extension, which saves after
edits) saves it. An edit to a file that is not open is applied by the editor too:
VS Code applies it to the file in its workspace; Neovim and Emacs load the file into
a buffer and leave it unsaved, so the disk still holds the old text. This class
remembers what it sent for such files and serves that text to later reads until the
editor opens the document (then its buffer wins) or the file on disk changes; commands
the agent runs next, however, see the disk. The outcome message says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from agentls.agent.errors import InvalidTargetError
from agentls.agent.workspace import (
    DiskFileAccess,
    EditOutcome,
    FileAccess,
    FileChange,
    TextFile,
    is_binary,
    relpath,
)
from agentls.regular_files import NotRegularFileError, read_regular
from agentls.server.edit_confirmation import (
    ClientEditSupport,
    PreparedEdit,
    choose_confirmation,
    error_reply_outcome,
    for_protected,
    protected_plans,
    rejected,
)
from agentls.server.edit_outcome import edit_outcome
from agentls.server.edits import (
    EditOptions,
    FilePlan,
    build_workspace_edit,
    edit_author,
    kept_hunks,
    normalize_encoding,
    plan_file,
)
from agentls.server.inline_review import InlineReviews

log = logging.getLogger(__name__)


@dataclass
class _Sent:
    """Text sent to a file that is not open in the editor (it holds it unsaved)."""

    text: str
    disk_digest: str | None  # the disk's bytes when the edit was sent (None: no file)


def _digest_file(target: Path) -> str | None:
    try:
        # Never blocks on a FIFO: anything but a regular file counts as no file.
        return hashlib.sha256(read_regular(target)).hexdigest()
    except (FileNotFoundError, NotADirectoryError, NotRegularFileError):
        return None
    except OSError:
        return "?"


class LspFileAccess(FileAccess):
    """FileAccess over the editor's documents; writes go out as ``workspace/applyEdit``.

    What every file access of one server shares is passed in by the server that owns it:
    ``edit_lock`` keeps the edits of all its runs (and their previews or questions) one at
    a time, ``reviews`` is its book of hunks under inline review. ``client_caps`` is an
    alias of ``client_capabilities``. ``settle_timeout`` bounds how long the read-back
    waits for the client's ``didChange`` after an applied edit; ``client_confirms_edits``
    tells that the editor asks the user about every server-initiated edit itself.
    """

    def __init__(
        self,
        server: LanguageServer,
        root: Path,
        *,
        edit_lock: asyncio.Lock,
        reviews: InlineReviews,
        max_file_size: int = 1_000_000,
        client_capabilities: lsp.ClientCapabilities | None = None,
        client_caps: lsp.ClientCapabilities | None = None,
        client_confirms_edits: bool = False,
        settle_timeout: float = 2.0,
    ) -> None:
        super().__init__(root, max_file_size=max_file_size)
        self.server = server
        self.client_root = Path(os.path.abspath(root))
        caps = client_capabilities if client_capabilities is not None else client_caps
        self.support = ClientEditSupport.from_capabilities(caps)
        self.client_confirms_edits = client_confirms_edits
        self.edit_lock = edit_lock
        self.confirmation = choose_confirmation(
            server, self.support, reviews, client_confirms_edits=client_confirms_edits
        )
        self.settle_timeout = settle_timeout
        self._disk = DiskFileAccess(root, max_file_size=max_file_size)
        self._sent: dict[str, _Sent] = {}
        self._seq = 0
        self._create_broken = False  # the client declared "create" but failed on it

    # -- documents -----------------------------------------------------------------
    def open_document(self, target: Path) -> TextDocument | None:
        """The editor's open document for ``target`` (a resolved path), if any."""
        docs: list[TextDocument] = list(self.server.workspace.text_documents.values())
        for doc in docs:
            path = to_fs_path(doc.uri)
            if path is not None and os.path.realpath(path) == str(target):
                return doc
        return None

    def uri_for(self, target: Path) -> str:
        doc = self.open_document(target)
        if doc is not None:
            return doc.uri
        return (self.client_root / relpath(self.root, target)).as_uri()

    def _check_buffer(self, path: str, text: str) -> None:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > self.max_file_size:
            raise InvalidTargetError(
                f"{path} is {size} bytes, over the {self.max_file_size}-byte limit "
                "(indexer.max_file_size); search it with grep or search_code instead"
            )
        if is_binary(text[:8192].encode("utf-8", "surrogatepass")):
            raise InvalidTargetError(f"{path} is a binary file; only text files can be read")

    async def _sent_text(self, rel: str, target: Path) -> _Sent | None:
        """What we sent to an unopened file, while the disk still holds what it held then."""
        sent = self._sent.get(rel)
        if sent is None:
            return None
        if await asyncio.to_thread(_digest_file, target) != sent.disk_digest:
            del self._sent[rel]  # saved, or changed by someone else: the disk wins
            return None
        return sent

    async def _current(self, target: Path) -> tuple[str | None, int | None]:
        """(text or None when there is no file, open document version) of ``target``."""
        doc = self.open_document(target)
        if doc is not None:
            return doc.source, doc.version
        rel = relpath(self.root, target)
        sent = await self._sent_text(rel, target)
        if sent is not None:
            return sent.text, None
        if not await asyncio.to_thread(target.exists):
            return None, None
        try:
            return (await self._disk.read_text(rel)).text, None
        except InvalidTargetError:
            return None, None

    # -- reads -----------------------------------------------------------------------
    async def read_text(self, path: str) -> TextFile:
        target = self.resolve(path)
        rel = relpath(self.root, target)
        doc = self.open_document(target)
        if doc is not None:
            text = doc.source
            self._check_buffer(path, text)
            return TextFile(rel, text, False, doc.version)
        sent = await self._sent_text(rel, target)
        if sent is not None:
            self._check_buffer(path, sent.text)
            return TextFile(rel, sent.text)
        return await self._disk.read_text(path)

    async def exists(self, path: str) -> bool:
        target = self.resolve(path)
        if self.open_document(target) is not None:
            return True
        if await self._sent_text(relpath(self.root, target), target) is not None:
            return True
        return await self._disk.exists(path)

    async def is_dir(self, path: str) -> bool:
        return await self._disk.is_dir(path)

    async def list_dir(self, path: str) -> list[str]:
        return await self._disk.list_dir(path)

    # -- writes ----------------------------------------------------------------------
    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        if not changes:
            return EditOutcome("applied", "nothing to change")
        targets = [self.resolve(c.path, for_write=True) for c in changes]
        paths = [relpath(self.root, t) for t in targets]
        async with self.edit_lock:
            plans: list[FilePlan] = []
            stale: list[str] = []
            for change, target, rel in zip(changes, targets, paths, strict=True):
                current, version = await self._current(target)
                if current != change.base_text:
                    stale.append(rel)
                    continue
                plan = plan_file(rel, self.uri_for(target), current, change.new_text, version)
                if plan.op == "edit" and not plan.hunks:
                    continue  # already holds the new text
                plans.append(plan)
            if stale:
                return EditOutcome(
                    "stale",
                    f"{', '.join(stale)} changed in the editor since you read it; "
                    "read it again. Nothing was changed.",
                    paths,
                )
            if not plans:
                return EditOutcome("applied", "nothing to change: the files already hold it", paths)
            return await self._send(plans, paths, targets, confirm=confirm)

    def _unsupported(self, plans: Sequence[FilePlan]) -> str:
        if not self.support.apply_edit:
            return "the editor does not accept edits from the server (no workspace/applyEdit)"
        for plan in plans:
            if plan.op == "delete" and not (
                self.support.document_changes and self.support.delete_files
            ):
                return f"the editor cannot delete files, so {plan.path} was not deleted"
        return ""

    async def _send(
        self,
        plans: list[FilePlan],
        paths: list[str],
        targets: list[Path],
        *,
        confirm: bool,
    ) -> EditOutcome:
        """Ask (the client's one way), send, then read back what the editor kept."""
        reason = self._unsupported(plans)
        if reason:
            return EditOutcome("failed", f"{reason}; nothing was changed", paths)
        confirmation = self.confirmation
        if confirm and protected_plans(plans):
            confirmation = for_protected(confirmation, self.server, self.support)
        if confirm:
            refused = await confirmation.before_send(plans, paths)
            if refused is not None:
                return refused
        annotate = confirm and confirmation.annotate
        self._seq += 1
        prefix = f"agentls-{self._seq}"
        edit = confirmation.prepare(plans, prefix) if annotate else PreparedEdit(prefix)
        outcome = await self._send_and_read_back(plans, paths, targets, edit, annotate=annotate)
        return confirmation.answered(edit, plans, outcome)

    async def _send_and_read_back(
        self,
        plans: list[FilePlan],
        paths: list[str],
        targets: list[Path],
        edit: PreparedEdit,
        *,
        annotate: bool,
    ) -> EditOutcome:
        targets_by_plan = self._targets_of(plans, paths, targets)
        before = {p.path: self._doc_version(t) for p, t in zip(plans, targets_by_plan, strict=True)}
        try:
            result = await self._apply_edit(plans, annotate=annotate, prefix=edit.prefix)
        except JsonRpcException as exc:
            return error_reply_outcome(exc, paths)
        if not result.applied:
            if result.failure_reason:
                return EditOutcome(
                    "failed",
                    f"the editor could not apply the edit: {result.failure_reason}",
                    paths,
                )
            return rejected(paths)
        return await self._read_back(plans, targets_by_plan, before, paths)

    async def _apply_edit(
        self, plans: list[FilePlan], *, annotate: bool, prefix: str
    ) -> lsp.ApplyWorkspaceEditResult:
        options = EditOptions(
            encoding=normalize_encoding(self.server.workspace.position_encoding),
            document_changes=self.support.document_changes,
            create_files=self.support.create_files and not self._create_broken,
            annotate=annotate,
            annotation_prefix=prefix,
        )
        what = self._describe(plans)
        result = await self.server.workspace_apply_edit_async(
            lsp.ApplyWorkspaceEditParams(edit=build_workspace_edit(plans, options), label=what)
        )
        creates = options.create_files and any(p.op == "create" for p in plans)
        if result.applied or not result.failure_reason or not creates:
            return result
        # Neovim 0.7 declares resourceOperations "create" but fails on it ("attempt to
        # call field 'create_file'"). CreateFile goes first, so nothing was changed:
        # send the inserts alone, as to any client that cannot create files (it opens
        # a new buffer for the URI).
        log.info("CreateFile failed (%s); retrying without it", result.failure_reason)
        self._create_broken = True
        options = dataclasses.replace(options, create_files=False)
        return await self.server.workspace_apply_edit_async(
            lsp.ApplyWorkspaceEditParams(edit=build_workspace_edit(plans, options), label=what)
        )

    @staticmethod
    def _targets_of(plans: Sequence[FilePlan], paths: list[str], targets: list[Path]) -> list[Path]:
        by_path = dict(zip(paths, targets, strict=True))
        return [by_path[p.path] for p in plans]

    def _doc_version(self, target: Path) -> int | None:
        doc = self.open_document(target)
        return doc.version if doc is not None else None

    def _describe(self, plans: Sequence[FilePlan]) -> str:
        added = sum(p.added for p in plans)
        removed = sum(p.removed for p in plans)
        reasons = protected_plans(plans)
        protected = " — protected: " + "; ".join(reasons) if reasons else ""
        who = edit_author()
        if len(plans) == 1:
            plan = plans[0]
            verb = {"edit": "edit", "create": "create", "delete": "delete"}[plan.op]
            return f"{who}: {verb} {plan.path} (+{added} −{removed}){protected}"
        return f"{who}: edit {len(plans)} files (+{added} −{removed}){protected}"

    async def _settle(
        self, target: Path, expected: str, before: int | None, opened: bool
    ) -> TextDocument | None:
        """Wait (bounded) until the client's didChange/didOpen for our edit arrived."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.settle_timeout if opened else min(self.settle_timeout, 0.5))
        quiet = 0.25
        last_version: int | None = before
        last_change = loop.time()
        while True:
            doc = self.open_document(target)
            now = loop.time()
            if doc is not None:
                if doc.source == expected:
                    return doc
                if doc.version != last_version:
                    last_version = doc.version
                    last_change = now
                elif doc.version != before and now - last_change >= quiet:
                    return doc  # it changed and went quiet: the user kept only some hunks
            if now >= deadline:
                return doc
            await asyncio.sleep(0.02)

    async def _read_back(
        self,
        plans: Sequence[FilePlan],
        targets: Sequence[Path],
        before: dict[str, int | None],
        paths: list[str],
    ) -> EditOutcome:
        kept_by: dict[str, list[int]] = {}
        dropped_by: dict[str, list[int]] = {}
        notes: list[str] = []
        unknown: list[str] = []

        def assume_all_kept(plan: FilePlan, note: str) -> None:
            """What the editor did cannot be seen: take its word for every hunk, say so."""
            kept_by[plan.path] = [h.index for h in plan.hunks]
            dropped_by[plan.path] = []
            notes.append(note)

        for plan, target in zip(plans, targets, strict=True):
            if plan.op == "delete":
                self._sent.pop(plan.path, None)
                continue
            assert plan.new_text is not None
            was_open = before[plan.path] is not None
            doc = await self._settle(target, plan.new_text, before[plan.path], was_open)
            if doc is None:
                # Not open in the editor: it holds the change in a buffer (or has
                # written it, as VS Code does); we cannot observe which.
                digest = await asyncio.to_thread(_digest_file, target)
                self._sent[plan.path] = _Sent(plan.new_text, digest)
                self.remember_read(plan.path, plan.new_text)
                assume_all_kept(
                    plan,
                    f"{plan.path} is not open in the editor: the editor holds the change, "
                    "possibly unsaved, so commands may still see the old file on disk",
                )
                continue
            self._sent.pop(plan.path, None)
            after = doc.source
            if was_open and doc.version == before[plan.path] and after == plan.old_text:
                # No didChange yet (eglot sends it from an idle timer): trust the
                # client's "applied", say that it is unconfirmed, remember nothing.
                assume_all_kept(
                    plan,
                    f"the editor reported the edit to {plan.path} applied but has not sent "
                    "the new text yet; read the file again before changing it further",
                )
                continue
            kept = kept_hunks(plan.old_text, plan.hunks, after)
            if kept is None:
                unknown.append(plan.path)
                self.remember_read(plan.path, after)
                continue
            kept_by[plan.path] = kept
            dropped_by[plan.path] = [h.index for h in plan.hunks if h.index not in kept]
            self.remember_read(plan.path, after)
        return edit_outcome(plans, kept_by, dropped_by, unknown, notes, paths)
