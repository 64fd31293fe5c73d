"""The file and edit tools through the ExecutionEngine, on real temp workspaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.agent.config.models import AgentConfig, AppConfig
from agentls.agent.llm.models import ToolCall
from agentls.agent.policy.approval import ApprovalAnswer, ApprovalRequest
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext, ToolCallResult
from agentls.agent.tools.engine import AbortedByUser, ExecutionEngine
from agentls.agent.workspace import DiskFileAccess

YOLO = AgentConfig(system_prompt="t", confirm_mode="yolo")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


def engine(
    ws: Path, *, dry_run: bool = False, allow_delete: bool = False, **kw: Any
) -> ExecutionEngine:
    config = AppConfig.model_validate(
        {"workspace": {"root": str(ws), "allow_delete": allow_delete}}
    )
    return ExecutionEngine(
        build_registry(), RunContext(DiskFileAccess(ws), config, dry_run=dry_run, **kw)
    )


async def call(
    e: ExecutionEngine, name: str, agent: AgentConfig = YOLO, **args: Any
) -> ToolCallResult:
    return await e.execute_tool_call(ToolCall(id="c1", name=name, arguments=args), agent)


async def test_read_file(ws: Path) -> None:
    result = await call(engine(ws), "read_file", path="src/app.py")
    assert result.result.success and result.result.output.startswith("def f():")


async def test_read_outside_is_a_tool_error(ws: Path) -> None:
    result = await call(engine(ws), "read_file", path="../etc/passwd")
    assert not result.result.success and "escapes the workspace" in result.result.output


async def test_write_creates_and_appends(ws: Path) -> None:
    e = engine(ws)
    assert (await call(e, "write_file", path="new/dir/a.txt", content="one\n")).result.success
    assert (
        await call(e, "write_file", path="new/dir/a.txt", content="two\n", mode="append")
    ).result.success
    assert (ws / "new" / "dir" / "a.txt").read_text() == "one\ntwo\n"


async def test_write_refuses_when_changed_since_read(ws: Path) -> None:
    e = engine(ws)
    await call(e, "read_file", path="notes.txt")
    (ws / "notes.txt").write_text("hello\nthe user typed this\n")
    result = await call(e, "write_file", path="notes.txt", content="agent text\n")
    assert not result.result.success and "changed since you read it" in result.result.output
    assert "the user typed this" in (ws / "notes.txt").read_text()


async def test_write_into_git_refused(ws: Path) -> None:
    (ws / ".git").mkdir()
    result = await call(engine(ws), "write_file", path=".git/hooks/x", content="boom")
    assert not result.result.success and ".git" in result.result.output


async def test_edit_file_unique(ws: Path) -> None:
    result = await call(
        engine(ws),
        "edit_file",
        path="src/app.py",
        old_str="def g():\n    return 1",
        new_str="def g():\n    return 2",
    )
    assert result.result.success, result.result.output
    assert (ws / "src" / "app.py").read_text().endswith("def g():\n    return 2\n")


async def test_edit_file_several_occurrences_says_where(ws: Path) -> None:
    result = await call(
        engine(ws), "edit_file", path="src/app.py", old_str="return 1", new_str="return 2"
    )
    assert not result.result.success
    assert "occurs 2 times" in result.result.output and "lines 2, 6" in result.result.output


async def test_edit_file_not_found_hints_whitespace(ws: Path) -> None:
    result = await call(
        engine(ws), "edit_file", path="src/app.py", old_str="def f():  return 1", new_str="x"
    )
    assert not result.result.success and "whitespace" in result.result.output


async def test_edit_keeps_crlf(ws: Path) -> None:
    (ws / "win.txt").write_bytes(b"a\r\nb\r\n")
    result = await call(engine(ws), "edit_file", path="win.txt", old_str="a\nb", new_str="a\nx\nb")
    assert result.result.success, result.result.output
    assert (ws / "win.txt").read_bytes() == b"a\r\nx\r\nb\r\n"


async def test_apply_patch_headerless_and_multi_file(ws: Path) -> None:
    e = engine(ws)
    hunk = "@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n"
    assert (await call(e, "apply_patch", path="src/app.py", patch=hunk)).result.success
    assert "return 10" in (ws / "src" / "app.py").read_text()
    multi = (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+hello world\n"
        "--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+fresh\n"
    )
    result = await call(e, "apply_patch", path="notes.txt", patch=multi)
    assert result.result.success, result.result.output
    assert (ws / "notes.txt").read_text() == "hello world\n"
    assert (ws / "created.txt").read_text() == "fresh\n"


async def test_apply_patch_failure_changes_nothing(ws: Path) -> None:
    bad = (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-hello\n+bye\n"
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-no such line\n+x\n"
    )
    result = await call(engine(ws), "apply_patch", path="notes.txt", patch=bad)
    assert not result.result.success and "nothing changed" in result.result.output
    assert (ws / "notes.txt").read_text() == "hello\n"


V4A = """*** Begin Patch
*** Update File: src/app.py
@@ def g():
-    return 1
+    return 2
*** Add File: src/util.py
+def h():
+    return 3
*** Update File: notes.txt
*** Move to: docs/notes.txt
-hello
+hello again
*** End Patch
"""


async def test_apply_patch_takes_v4a_without_a_path(ws: Path) -> None:
    result = await call(engine(ws, allow_delete=True), "apply_patch", patch=V4A)
    assert result.result.success, result.result.output
    assert (ws / "src" / "app.py").read_text().endswith("def g():\n    return 2\n")
    assert (ws / "src" / "app.py").read_text().startswith("def f():\n    return 1\n")
    assert (ws / "src" / "util.py").read_text() == "def h():\n    return 3\n"
    assert (ws / "docs" / "notes.txt").read_text() == "hello again\n"
    assert not (ws / "notes.txt").exists()
    assert "src/app.py (+1 -1)" in result.result.output


def _tree(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def test_apply_patch_v4a_delete_and_move_follow_allow_delete(ws: Path) -> None:
    before = _tree(ws)
    for patch in (
        V4A,
        "*** Begin Patch\n*** Delete File: notes.txt\n*** End Patch\n",
    ):
        refused = await call(engine(ws), "apply_patch", patch=patch)
        assert not refused.result.success
        assert "notes.txt" in refused.result.output and "allow_delete" in refused.result.output
    assert _tree(ws) == before


async def test_apply_patch_v4a_failure_names_file_and_line_and_changes_nothing(
    ws: Path,
) -> None:
    bad = V4A.replace("-hello\n", "-goodbye\n")
    result = await call(engine(ws, allow_delete=True), "apply_patch", patch=bad)
    output = result.result.output
    assert not result.result.success and "nothing changed" in output
    assert "Update File: notes.txt (patch line 9), chunk 1 (patch line 11)" in output
    assert "It expected these lines:\n    goodbye" in output
    assert not (ws / "src" / "util.py").exists()
    assert "return 1\n" in (ws / "src" / "app.py").read_text().split("def g")[1]


async def test_apply_patch_without_a_file_name_is_a_clear_error(ws: Path) -> None:
    result = await call(engine(ws), "apply_patch", patch="@@ -1 +1 @@\n-hello\n+bye\n")
    assert not result.result.success and "names no file" in result.result.output


@pytest.mark.parametrize(
    ("model", "setting", "lead"),
    [
        ("openai/gpt-5-mini", "auto", "V4A"),
        ("gpt-4.1", "auto", "V4A"),
        ("azure/o4-mini", "auto", "V4A"),
        ("anthropic/claude-sonnet-4", "auto", "a unified diff"),
        ("openai/gpt-4o", "auto", "a unified diff"),
        ("openai/gpt-4o", "v4a", "V4A"),
        ("openai/gpt-5", "unified", "a unified diff"),
    ],
)
def test_apply_patch_description_leads_with_the_models_format(
    model: str, setting: str, lead: str
) -> None:
    config = AppConfig.model_validate({"llm": {"model": model, "patch_format": setting}})
    schema = next(
        s for s in build_registry(config).get_schemas() if s["function"]["name"] == "apply_patch"
    )
    description = schema["function"]["description"]
    assert description.startswith(f"Edit files with a patch. Write {lead}")
    assert "Also accepted: " + ("a unified diff" if lead == "V4A" else "V4A") in description
    assert schema["function"]["parameters"]["required"] == ["patch"]


async def test_delete_needs_allow_delete(ws: Path) -> None:
    refused = await call(engine(ws), "delete_file", path="notes.txt")
    assert not refused.result.success and "allow_delete" in refused.result.output
    assert (ws / "notes.txt").exists()
    allowed = await call(engine(ws, allow_delete=True), "delete_file", path="notes.txt")
    assert allowed.result.success and not (ws / "notes.txt").exists()


async def test_list_files(ws: Path) -> None:
    e = engine(ws)
    flat = (await call(e, "list_files")).result.output.splitlines()
    assert flat == ["notes.txt", "src/"]
    deep = (await call(e, "list_files", pattern="*.py", recursive=True)).result.output
    assert deep.splitlines() == ["src/app.py"]


async def test_list_files_hides_what_search_hides(ws: Path) -> None:
    """list_files walks by the index's rules: excluded dirs, globs and .gitignore."""
    (ws / "dist").mkdir()
    (ws / "dist" / "bundle.py").write_text("x = 1\n")
    (ws / "src" / "app.min.js").write_text("x\n")
    (ws / "secret.py").write_text("k = 1\n")
    (ws / ".gitignore").write_text("secret.py\n")
    e = engine(ws)
    listed = (await call(e, "list_files", recursive=True)).result.output.splitlines()
    found = (await call(e, "find_files", pattern="*")).result.output.splitlines()
    assert listed == [".gitignore", "notes.txt", "src/", "src/app.py"]
    assert [p for p in listed if not p.endswith("/")] == sorted(found)
    inside = (await call(e, "list_files", path="dist")).result
    assert inside.success and "left out of the workspace's files" in inside.output


async def test_dry_run_changes_nothing(ws: Path) -> None:
    result = await call(engine(ws, dry_run=True), "write_file", path="notes.txt", content="x\n")
    assert result.result.success and result.was_dry_run and "[dry run]" in result.result.output
    assert (ws / "notes.txt").read_text() == "hello\n"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "path: Field required"),
        ({"path": 3}, "path: Input should be a valid string"),
        ({"path": "a", "bogus": 1}, "bogus: unexpected argument"),
    ],
)
async def test_bad_arguments_are_tool_errors(
    ws: Path, arguments: dict[str, Any], expected: str
) -> None:
    result = await engine(ws).execute_tool_call(
        ToolCall(id="x", name="read_file", arguments=arguments), YOLO
    )
    assert not result.result.success
    assert expected in result.result.output and "Expected arguments: path" in result.result.output


async def test_non_json_arguments_and_unknown_tool(ws: Path) -> None:
    e = engine(ws)
    bad_json = ToolCall(
        id="x", name="read_file", raw_arguments='{"path": ', parse_error="Expecting value"
    )
    result = await e.execute_tool_call(bad_json, YOLO)
    assert not result.result.success and "not valid JSON" in result.result.output
    unknown = await e.execute_tool_call(ToolCall(id="y", name="rm_rf", arguments={}), YOLO)
    assert not unknown.result.success and "unknown tool 'rm_rf'" in unknown.result.output


class Scripted:
    def __init__(self, *answers: ApprovalAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


async def test_confirm_all_asks_for_read_and_deny_is_reported(ws: Path) -> None:
    approver = Scripted(ApprovalAnswer("deny", message="not now"))
    agent = AgentConfig(system_prompt="t", confirm_mode="confirm-all")
    result = await call(engine(ws, approver=approver), "read_file", agent, path="notes.txt")
    assert approver.asked and approver.asked[0].tool == "read_file"
    assert (
        not result.result.success
        and "denied" in result.result.output
        and "not now" in result.result.output
    )
    assert not result.was_confirmed


async def test_modify_runs_the_users_arguments_and_says_so(ws: Path) -> None:
    approver = Scripted(ApprovalAnswer("modify", args={"path": "src/app.py"}))
    agent = AgentConfig(system_prompt="t", confirm_mode="confirm-all")
    result = await call(engine(ws, approver=approver), "read_file", agent, path="notes.txt")
    assert result.result.success and "modified" in result.result.output
    assert "def f()" in result.result.output and result.args == {"path": "src/app.py"}


async def test_approve_for_run_asks_once(ws: Path) -> None:
    approver = Scripted(ApprovalAnswer("approve_run"))
    agent = AgentConfig(system_prompt="t", confirm_mode="confirm-all")
    e = engine(ws, approver=approver)
    await call(e, "read_file", agent, path="notes.txt")
    await call(e, "read_file", agent, path="notes.txt")
    assert len(approver.asked) == 1


async def test_abort_raises_run_aborted(ws: Path) -> None:
    agent = AgentConfig(system_prompt="t", confirm_mode="confirm-all")
    with pytest.raises(AbortedByUser):
        await call(
            engine(ws, approver=Scripted(ApprovalAnswer("abort"))), "read_file", agent, path="x"
        )


async def test_edit_confirmation_travels_with_the_write(ws: Path) -> None:
    asked: list[str] = []

    async def confirmer(proposal: Any) -> bool:
        asked.append(proposal.diff)
        return False

    config = AppConfig.model_validate({"workspace": {"root": str(ws)}})
    e = ExecutionEngine(
        build_registry(), RunContext(DiskFileAccess(ws, confirmer=confirmer), config)
    )
    agent = AgentConfig(system_prompt="t")  # confirm-sensitive
    result = await call(e, "write_file", agent, path="notes.txt", content="replaced\n")
    assert asked and "+replaced" in asked[0]
    assert not result.result.success and "rejected" in result.result.output
    assert (ws / "notes.txt").read_text() == "hello\n"


async def test_allowed_tools_forbids_others(ws: Path) -> None:
    agent = AgentConfig(system_prompt="t", confirm_mode="yolo", allowed_tools=["read_file"])
    result = await call(engine(ws), "write_file", agent, path="a", content="b")
    assert not result.result.success and "not allowed" in result.result.output
