"""One agent run over LSP that reads, edits (accepted), patches (rejected), creates and
deletes files: every change is a WorkspaceEdit the user answers, and the model is told
the truth about each."""

from __future__ import annotations

from pathlib import Path

from agentls_e2e import APP_PY, LspFactory, llm_options, plain
from lsprotocol import types

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call


def _tool_results(scripted: ScriptedModelServer) -> list[str]:
    last = scripted.requests_for("alice")[-1].messages
    return [str(m["content"]) for m in last if m.get("role") == "tool"]


async def test_read_edit_patch_create_delete(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add(
        "alice",
        tool_call("read_file", {"path": "src/app.py"}),
        tool_call(
            "edit_file",
            {"path": "src/app.py", "old_str": "hello {name}", "new_str": "hi {name}"},
        ),
        tool_call(
            "apply_patch",
            {"path": "README.md", "patch": "@@ -1 +1,2 @@\n # demo\n+More text.\n"},
        ),
        tool_call("write_file", {"path": "docs/new.md", "content": "# new\n"}),
        tool_call("delete_file", {"path": "README.md"}),
        text("All done."),
    )
    options = {**llm_options(scripted), "workspace": {"allow_delete": True}}
    client = await lsp(init_options=options)  # VS Code-like: confirms annotated edits
    client.edit_answers = [True, False, True, True]  # accept, reject the patch, accept, accept
    result = plain(await client.run(prompt="work", runId="e2e", confirmMode="confirm-sensitive"))

    assert result["status"] == "success", result
    assert [t["success"] for t in result["tools_used"]] == [True, True, False, True, True]
    # The disk holds exactly what the user accepted.
    assert (workspace / "src" / "app.py").read_text() == APP_PY.replace("hello", "hi")
    assert (workspace / "docs" / "new.md").read_text() == "# new\n"
    assert not (workspace / "README.md").exists()
    # Every edit asked: each hunk carries an annotation that needs confirmation.
    assert len(client.edits) == 4
    for params in client.edits:
        annotations = params.edit.change_annotations or {}
        assert annotations and all(a.needs_confirmation for a in annotations.values())
    kinds = [type(c).__name__ for c in client.edits[3].edit.document_changes or []]
    assert kinds == ["DeleteFile"]
    assert any(isinstance(c, types.CreateFile) for c in client.edits[2].edit.document_changes or [])
    # The model was told the truth about each change.
    results = _tool_results(scripted)
    assert "hello" in results[0]
    assert results[1].startswith("Edited src/app.py")
    assert "rejected" in results[2] and "unchanged" in results[2]
    assert results[3].startswith("Created docs/new.md")
    assert results[4].startswith("Deleted README.md")


V4A_PATCH = """*** Begin Patch
*** Update File: src/app.py
@@ def greet(name):
-    return f"hello {name}"
+    return f"hi {name}"
*** Add File: src/extra.py
+EXTRA = 1
*** Update File: README.md
*** Move to: docs/README.md
-# demo
+# demo, moved
*** End Patch
"""


async def test_a_v4a_patch_is_one_workspace_edit_with_resource_operations(
    lsp: LspFactory, scripted: ScriptedModelServer, workspace: Path
) -> None:
    scripted.add("alice", tool_call("apply_patch", {"patch": V4A_PATCH}), text("Not applied."))
    scripted.add("alice", tool_call("apply_patch", {"patch": V4A_PATCH}), text("Patched."))
    options = {**llm_options(scripted), "workspace": {"allow_delete": True}}
    client = await lsp(init_options=options)
    client.edit_answers = [False, True]  # the first run's edit is rejected, the second's kept

    rejected = plain(await client.run(prompt="patch", runId="v1", confirmMode="confirm-all"))
    assert rejected["tools_used"][0]["success"] is False
    assert (workspace / "README.md").read_text() == "# demo\n"
    assert not (workspace / "src" / "extra.py").exists()

    result = plain(await client.run(prompt="patch", runId="v2", confirmMode="confirm-all"))
    assert result["tools_used"][0]["success"] is True, result
    assert (workspace / "src" / "app.py").read_text() == APP_PY.replace("hello", "hi")
    assert (workspace / "src" / "extra.py").read_text() == "EXTRA = 1\n"
    assert (workspace / "docs" / "README.md").read_text() == "# demo, moved\n"
    assert not (workspace / "README.md").exists()
    # One patch, one WorkspaceEdit: the files it creates, the edit, the file it deletes.
    assert len(client.edits) == 2
    changes = client.edits[1].edit.document_changes or []
    kinds = sorted(type(c).__name__ for c in changes)
    assert kinds.count("CreateFile") == 2 and kinds.count("DeleteFile") == 1
    deleted = [c.uri for c in changes if isinstance(c, types.DeleteFile)]
    assert deleted and deleted[0].endswith("/README.md") and "/docs/" not in deleted[0]
    results = _tool_results(scripted)
    assert results[-1].startswith("Patched ")
