"""``agentls demo``: a small terminal LSP client that shows the product end to end.

It spawns the language server over stdio exactly as an editor does, on a fresh copy
of the sample workspace, sends ``agent/run``, renders streamed text and step
progress, shows each proposed WorkspaceEdit as a coloured diff and asks accept or
reject (accepting by itself when there is no terminal to ask), applies accepted
edits to the files as an editor would, and prints the final status.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path, to_fs_path

from agentls.agent.workspace import unified_diff
from agentls.cli.terminal import LinePrinter, colorize_diff

# The imports of another front end (allowed in the import contracts): the demo talks to
# the server only over stdio, as an editor does, but applies its edits with the server's
# own LSP position arithmetic rather than a second copy of it (and reads the protocol's
# table of notifications, in _ignore_the_rest).
from agentls.server.edits import apply_text_edits


def _fields(value: Any) -> dict[str, Any]:
    """pygls hands custom notification params over as namedtuples."""
    if value is None:
        return {}
    if hasattr(value, "_asdict"):
        return dict(value._asdict())
    return dict(value) if isinstance(value, dict) else {}


class DemoClient:
    def __init__(self, workspace: Path, interactive: bool) -> None:
        self.workspace = workspace
        self.interactive = interactive
        self.client = LanguageClient("agentls-demo", "0.1")
        self.color = sys.stderr.isatty() and os.environ.get("NO_COLOR") is None
        self._printer = LinePrinter(sys.stderr)
        self.say = self._printer.line
        self._register()

    async def ask(self, question: str) -> bool:
        if not self.interactive:
            self.say(f"{question} [auto-accepted: no terminal]")
            return True
        sys.stderr.write(f"{question} [Y/n] ")
        sys.stderr.flush()
        answer = (await asyncio.to_thread(sys.stdin.readline)).strip().lower()
        return answer in ("", "y", "yes")

    def _register(self) -> None:
        def on_stream(params: Any) -> None:
            self._printer.stream(params.text)

        def on_step(params: Any) -> None:
            args = " ".join(f"{k}={v}" for k, v in _fields(params.args).items())
            if params.phase == "tool_start":
                self.say(f"▶ step {params.step}/{params.maxSteps} {params.tool} {args}".rstrip())
            else:
                mark = "✓" if getattr(params, "success", False) else "✗"
                self.say(f"  {mark} {params.tool}: {getattr(params, 'summary', '') or ''}")

        def on_plan(params: Any) -> None:
            marks = {"done": "[x]", "in_progress": "[~]"}
            steps = "\n".join(f"  {marks.get(s.status, '[ ]')} {s.text}" for s in params.steps)
            self.say(f"Plan: {params.goal}\n{steps}")

        def on_status(params: Any) -> None:
            if params.state in ("failed", "aborted"):
                self.say(f"[{params.state}] {getattr(params, 'detail', '') or ''}")

        def on_progress_create(params: lsp.WorkDoneProgressCreateParams) -> None:
            return None

        def on_progress(params: lsp.ProgressParams) -> None:
            return None

        def on_message(params: lsp.ShowMessageParams) -> None:
            self.say(f"[server] {params.message}")

        def on_log(params: lsp.LogMessageParams) -> None:
            return None

        async def on_request(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
            actions = params.actions or []
            if not actions:
                self.say(params.message)
                return None
            first = actions[0].title
            ok = await self.ask(f"{params.message} ({first}?)")
            if ok:
                return actions[0]
            deny = next((a for a in actions if a.title.lower() in ("deny", "reject")), None)
            return deny

        async def on_apply(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
            return await self.apply_edit(params.edit)

        self._on("agent/stream", on_stream)
        self._on("agent/step", on_step)
        self._on("agent/plan", on_plan)
        self._on("agent/status", on_status)
        self._on(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE, on_progress_create)
        self._on(lsp.PROGRESS, on_progress)
        self._on(lsp.WINDOW_SHOW_MESSAGE, on_message)
        self._on(lsp.WINDOW_LOG_MESSAGE, on_log)
        self._on(lsp.WINDOW_SHOW_MESSAGE_REQUEST, on_request)
        self._on(lsp.WORKSPACE_APPLY_EDIT, on_apply)
        self._ignore_the_rest()

    def _ignore_the_rest(self) -> None:
        """The server's other notifications (the context meter, instructions read,
        subagents...) are not shown here: received knowingly, not as unknown methods."""
        from agentls.server.protocol import METHODS

        shown = {"agent/stream", "agent/step", "agent/plan", "agent/status"}
        for method in METHODS:
            told = method.direction == "serverToClient" and method.kind == "notification"
            if told and method.name not in shown:
                self._on(method.name, lambda params: None)
        self._on(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, lambda params: None)

    def _on(self, method: str, handler: Callable[..., Any]) -> None:
        # pygls' feature decorator is untyped; registering through it keeps handlers typed.
        cast(Any, self.client).feature(method)(handler)

    def _plan(self, edit: lsp.WorkspaceEdit) -> tuple[dict[Path, str | None], str]:
        """The text every file would have after ``edit``, and the diff to show."""
        planned: dict[Path, str | None] = {}
        for change in edit.document_changes or []:
            if isinstance(change, lsp.CreateFile):
                planned.setdefault(Path(to_fs_path(change.uri) or ""), "")
            elif isinstance(change, lsp.DeleteFile):
                planned[Path(to_fs_path(change.uri) or "")] = None
            elif isinstance(change, lsp.TextDocumentEdit):
                path = Path(to_fs_path(change.text_document.uri) or "")
                current = planned.get(path)
                if current is None:
                    current = path.read_text(encoding="utf-8") if path.exists() else ""
                edits = [
                    e for e in change.edits if isinstance(e, lsp.TextEdit | lsp.AnnotatedTextEdit)
                ]
                planned[path] = apply_text_edits(current, edits)
        diff = ""
        for path, new in planned.items():
            old = path.read_text(encoding="utf-8") if path.exists() else None
            diff += unified_diff(path.relative_to(self.workspace).as_posix(), old, new)
        return planned, diff

    @staticmethod
    def _write(planned: dict[Path, str | None]) -> None:
        for path, new in planned.items():
            if new is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(new, encoding="utf-8")

    async def apply_edit(self, edit: lsp.WorkspaceEdit) -> lsp.ApplyWorkspaceEditResult:
        """Show the whole edit as a diff, ask once, then apply it to the files."""
        planned, diff = await asyncio.to_thread(self._plan, edit)
        self.say(colorize_diff(diff, self.color).rstrip("\n"))
        if not await self.ask("Accept this edit?"):
            self.say("  rejected")
            return lsp.ApplyWorkspaceEditResult(
                applied=False, failure_reason="rejected by the user"
            )
        await asyncio.to_thread(self._write, planned)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    async def run(self, overrides: dict[str, Any], prompt: str) -> int:
        client = self.client
        env_cwd = str(self.workspace)
        await client.start_io(sys.executable, "-P", "-m", "agentls", "--stdio", cwd=env_cwd)
        uri = from_fs_path(str(self.workspace)) or ""
        capabilities = lsp.ClientCapabilities(
            workspace=lsp.WorkspaceClientCapabilities(
                apply_edit=True,
                workspace_edit=lsp.WorkspaceEditClientCapabilities(
                    document_changes=True,
                    resource_operations=[
                        lsp.ResourceOperationKind.Create,
                        lsp.ResourceOperationKind.Delete,
                    ],
                    # The demo confirms every edit itself, with the diff in front of the user.
                    change_annotation_support=lsp.ChangeAnnotationsSupportOptions(
                        groups_on_label=False
                    ),
                ),
            ),
            window=lsp.WindowClientCapabilities(
                work_done_progress=True,
                show_message=lsp.ShowMessageRequestClientCapabilities(),
            ),
        )
        try:
            await client.initialize_async(
                lsp.InitializeParams(
                    capabilities=capabilities,
                    root_uri=uri,
                    workspace_folders=[lsp.WorkspaceFolder(uri=uri, name="demo")],
                    initialization_options=overrides,
                )
            )
            client.initialized(lsp.InitializedParams())
            result = await client.protocol.send_request_async(
                "agent/run", {"prompt": prompt, "confirmMode": "confirm-sensitive"}
            )
            status = result.status
            self.say(f"\nStatus: {status} after {result.steps} step(s)")
            await client.shutdown_async(None)
            client.exit(None)
        finally:
            await cast(Any, client).stop()
        return 0 if status == "success" else 1


async def run_lsp_demo(workspace: Path, overrides: dict[str, Any], prompt: str) -> int:
    interactive = sys.stdin.isatty()
    return await DemoClient(workspace, interactive).run(overrides, prompt)
