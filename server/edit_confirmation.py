"""How an edit that needs confirmation is confirmed, chosen once per client.

The client's declared capabilities (and the front end's word that the editor asks by
itself) decide one strategy when the FileAccess is made; ``LspFileAccess`` then only
asks it, per edit, whether to send the edit and whether to annotate it:

* ``AnnotatedEdits`` (``changeAnnotationSupport``, VS Code): every hunk carries an
  annotation with ``needsConfirmation: true``; the user keeps all, some or none of the
  hunks in the editor's preview, and the read-back tells which;
* ``AskFirst`` (``window.showMessage``, Neovim): one ``window/showMessageRequest``
  "Apply edit to src/app.py (+3 −1)?" with Apply / Reject first, then a plain edit;
* ``EditorPrompts`` (the editor asks about every server edit itself, eglot): a plain
  edit whose JSON-RPC error reply is the user's "no";
* ``InlineReview`` (``experimental.agentls.inlineReview``, agentls's VS Code extension):
  annotated like ``AnnotatedEdits``, but the editor applies the edit at once and the user
  keeps or undoes each hunk while the agent goes on; the hunks are followed by their
  annotation ids until the decisions come back (server/inline_review.py);
* ``CannotConfirm``: nobody can be asked, so the edit is refused.

An edit to a protected file (``agent.protected.paths``: ``.mcp.json``, ``.vscode/``,
``AGENTS.md``…) must be seen before it takes effect, and every question names why the
file is protected. Inline review applies first and asks later, so for such an edit
``for_protected`` asks first instead (or refuses when the client cannot be asked).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from agentls.agent.protected.edits import protected_targets
from agentls.agent.workspace import EditOutcome
from agentls.server.edits import EDIT_AUTHOR, FilePlan, annotation_id
from agentls.server.inline_review import InlineReviews, client_reviews_inline
from agentls.server.run_handle import CURRENT_RUN

log = logging.getLogger(__name__)

APPLY = "Apply"
REJECT = "Reject"


@dataclass(frozen=True)
class ClientEditSupport:
    """What the client declared about workspace edits and asking the user."""

    apply_edit: bool = False
    document_changes: bool = False
    create_files: bool = False
    delete_files: bool = False
    annotations: bool = False
    show_message: bool = False
    inline_review: bool = False

    @classmethod
    def from_capabilities(cls, caps: lsp.ClientCapabilities | None) -> ClientEditSupport:
        workspace = caps.workspace if caps else None
        wedit = workspace.workspace_edit if workspace else None
        ops = (
            {getattr(op, "value", op) for op in (wedit.resource_operations or [])}
            if wedit
            else set()
        )
        window = caps.window if caps else None
        return cls(
            apply_edit=bool(workspace and workspace.apply_edit),
            document_changes=bool(wedit and (wedit.document_changes or ops)),
            create_files="create" in ops,
            delete_files="delete" in ops,
            annotations=bool(wedit and wedit.change_annotation_support is not None),
            show_message=bool(window and window.show_message is not None),
            inline_review=client_reviews_inline(caps),
        )


def rejected(paths: Sequence[str], why: str = "") -> EditOutcome:
    detail = f" ({why})" if why else ""
    return EditOutcome(
        "rejected",
        f"The user rejected this edit{detail}; {', '.join(paths)} is exactly as it was.",
        list(paths),
    )


@dataclass(frozen=True)
class PreparedEdit:
    """What one edit is sent with: its annotation ids' prefix and the hunks followed."""

    prefix: str
    followed: tuple[str, ...] = ()


class Confirmation:
    """One client's way to confirm an edit (by default: nothing to ask, nothing to follow)."""

    #: Send the hunks with ``needsConfirmation`` annotations.
    annotate = False

    async def before_send(self, plans: Sequence[FilePlan], paths: list[str]) -> EditOutcome | None:
        """None to send the edit; an outcome (rejected) to send nothing."""
        return None

    def prepare(self, plans: Sequence[FilePlan], prefix: str) -> PreparedEdit:
        return PreparedEdit(prefix)

    def answered(
        self, edit: PreparedEdit, plans: Sequence[FilePlan], outcome: EditOutcome
    ) -> EditOutcome:
        """The outcome the model is told, once the editor answered the edit."""
        return outcome


class AnnotatedEdits(Confirmation):
    annotate = True


class EditorPrompts(Confirmation):
    pass


class InlineReview(AnnotatedEdits):
    """Applied at once, pending the user's review; decisions arrive later by notification
    and are kept in ``reviews``, the server's book."""

    def __init__(self, reviews: InlineReviews) -> None:
        self.reviews = reviews

    def prepare(self, plans: Sequence[FilePlan], prefix: str) -> PreparedEdit:
        book = self.reviews
        run = CURRENT_RUN.get()
        prefix = book.prefix(run)
        # Each hunk's annotation id is how the user's decisions name it.
        tracked = {
            annotation_id(prefix, plan, str(hunk.index)): (plan.path, hunk.index, hunk.summary())
            for plan in plans
            if plan.op != "delete"
            for hunk in plan.hunks
        }
        book.track(run, tracked)
        return PreparedEdit(prefix, tuple(tracked))

    def answered(
        self, edit: PreparedEdit, plans: Sequence[FilePlan], outcome: EditOutcome
    ) -> EditOutcome:
        undecided = self.reviews.sent(edit.followed) if edit.followed else 0
        # Used up whatever happens: a later edit of the file gets a report of its own.
        note = self.reviews.pending_note((p.path, p.uri) for p in plans)
        if undecided and outcome.status == "applied" and not any(p.op == "delete" for p in plans):
            message = f"{outcome.message} {note}".strip()
            return dataclasses.replace(outcome, message=message, pending=True)
        return outcome


def protected_plans(plans: Sequence[FilePlan]) -> list[str]:
    """Why the protected files among ``plans`` are protected."""
    return protected_targets(plan.path for plan in plans)


class CannotConfirm(Confirmation):
    async def before_send(self, plans: Sequence[FilePlan], paths: list[str]) -> EditOutcome | None:
        protected = protected_plans(plans)
        what = (
            "this edit of a protected file (" + "; ".join(protected) + ")"
            if protected
            else "this edit"
        )
        return EditOutcome(
            "rejected",
            f"{what} needs confirmation and the editor cannot ask; nothing was changed",
            paths,
        )


class AskFirst(Confirmation):
    """A question before a plain edit, for clients that apply annotated edits silently."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server

    async def before_send(self, plans: Sequence[FilePlan], paths: list[str]) -> EditOutcome | None:
        return None if await self._ask(plans) else rejected(paths)

    async def _ask(self, plans: Sequence[FilePlan]) -> bool:
        added = sum(p.added for p in plans)
        removed = sum(p.removed for p in plans)
        if len(plans) == 1:
            plan = plans[0]
            verb = {"edit": "Apply edit to", "create": "Create", "delete": "Delete"}[plan.op]
            question = f"{verb} {plan.path} (+{added} −{removed})?"
        else:
            names = ", ".join(p.path for p in plans)
            question = f"Apply edits to {names} (+{added} −{removed})?"
        subagent = EDIT_AUTHOR.get()
        if subagent:
            question = f"The subagent {subagent} asks: {question}"
        for reason in protected_plans(plans):
            question += f"\n\nProtected file: {reason}."
        try:
            answer = await self.server.window_show_message_request_async(
                lsp.ShowMessageRequestParams(
                    type=lsp.MessageType.Info,
                    message=question,
                    actions=[
                        lsp.MessageActionItem(title=APPLY),
                        lsp.MessageActionItem(title=REJECT),
                    ],
                )
            )
        except JsonRpcException as exc:
            log.info("showMessageRequest failed, taking it as a rejection: %s", exc)
            return False
        return answer is not None and answer.title == APPLY


def for_protected(
    confirmation: Confirmation, server: LanguageServer, support: ClientEditSupport
) -> Confirmation:
    """The strategy for an edit to a protected file: inline review would write it before
    the user decides, so the user is asked first (or, if the client cannot be asked, the
    edit is refused); every other strategy asks before anything is written."""
    if not isinstance(confirmation, InlineReview):
        return confirmation
    return AskFirst(server) if support.show_message else CannotConfirm()


def choose_confirmation(
    server: LanguageServer,
    support: ClientEditSupport,
    reviews: InlineReviews,
    *,
    client_confirms_edits: bool,
) -> Confirmation:
    """The one strategy for this client, from what it declared (``reviews``: the server's
    book of hunks under inline review)."""
    if support.annotations and support.document_changes:
        return InlineReview(reviews) if support.inline_review else AnnotatedEdits()
    if support.show_message:
        return AskFirst(server)
    if client_confirms_edits:
        return EditorPrompts()
    return CannotConfirm()


def error_reply_outcome(exc: JsonRpcException, paths: list[str]) -> EditOutcome:
    """An error answer to ``workspace/applyEdit``: the user's "no" (eglot answers a declined
    edit this way) or, when the editor names the version, a stale edit. Never a crash."""
    message = str(getattr(exc, "message", "") or exc)
    if "version" in message.lower():
        return EditOutcome(
            "stale",
            f"the editor refused the edit because the file changed ({message}); "
            "read it again. Nothing was changed.",
            paths,
        )
    return rejected(paths, f"the editor answered: {message}")
