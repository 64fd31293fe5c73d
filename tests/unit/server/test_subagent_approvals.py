"""Over LSP, a question or an edit of a subagent names it: the approval's message, the
edit's annotation label, and the question of a client that is asked before an edit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from pygls.lsp.server import LanguageServer

from agentls.agent.policy.approval import ApprovalRequest, EditRequest
from agentls.agent.workspace import EditOutcome, FileAccess, FileChange
from agentls.server.approver import LspApprover, approval_message
from agentls.server.edits import EditOptions, build_workspace_edit, edit_author, plan_file


def request(subagent: str = "") -> ApprovalRequest:
    return ApprovalRequest(
        run_id="r1",
        call_id="d1/c1",
        tool="execute_command",
        args={"command": "pytest -q"},
        reason="execute_command is sensitive",
        preview="pytest -q",
        subagent=subagent,
    )


def test_a_subagents_question_names_it() -> None:
    message = approval_message(request("explore"))
    # It starts as every approval does: clients tell approvals by it.
    assert message.startswith("agentls wants to run execute_command (subagent explore).")
    assert "pytest -q" in message


def test_the_runs_own_question_is_asked_as_before() -> None:
    assert approval_message(request()).startswith("agentls wants to run execute_command.")


class Files:
    """A file access that records who the edit's label would name as it is applied."""

    def __init__(self) -> None:
        self.authors: list[str] = []
        self.labels: list[str] = []

    async def apply(self, changes: Sequence[FileChange], *, confirm: bool) -> EditOutcome:
        self.authors.append(edit_author())
        plan = plan_file("a.py", "file:///w/a.py", "a\n", "b\n", 1)
        edit = build_workspace_edit([plan], EditOptions(annotate=True))
        assert edit.change_annotations is not None
        self.labels += [note.label for note in edit.change_annotations.values()]
        return EditOutcome("applied", "ok", ["a.py"])


async def test_a_subagents_edit_is_labelled_with_its_name_and_only_it() -> None:
    approver = LspApprover(cast(LanguageServer, object()), "r1")
    files = Files()
    change = FileChange("a.py", new_text="b\n", base_text="a\n")
    for subagent in ("explore", ""):
        edit = EditRequest(
            run_id="r1", call_id="c", tool="edit_file", changes=[change], subagent=subagent
        )
        outcome = await approver.confirm_edit(edit, cast(FileAccess, files))
        assert outcome.status == "applied"
    assert files.authors == ["subagent explore", "agent"]
    assert files.labels == ["subagent explore: edit a.py", "agent: edit a.py"]
    # Set only while the edit is sent: nothing after it is named after the subagent.
    assert edit_author() == "agent"
