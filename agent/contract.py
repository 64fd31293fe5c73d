"""The run contract: what a front end asks of a run, and what it gets back.

Every front end (the CLI, the language server, the editors behind it) speaks these
models, so their field names, defaults and allowed values are written once, here.
On the wire names are camelCase (``runId``, ``confirmMode``); Python code uses the
snake_case names, and both are accepted when validating. A few result fields were
snake_case on the wire from the start (``tools_used``, ``duration_seconds``, the
token counts): they keep those names so existing clients go on working.

The value sets (confirm modes and self-evaluation levels from the config, run
statuses, run states) are named once and reused by the config, the CLI, the server
and these models.

The server's own messages (notifications, ``agent/cancel``...) are in
``server/protocol.py``; ``server/protocol_schema.py`` publishes all of them as JSON
Schema and TypeScript.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator
from typing_extensions import TypeAliasType

from agentls.agent.config.models import ConfirmMode, SelfEvalMode
from agentls.agent.events import RunState
from agentls.agent.llm.models import Usage
from agentls.agent.wire_model import WireModel

__all__ = [
    "ConfirmMode",
    "PlanStepStatus",
    "RunRequest",
    "RunResult",
    "RunState",
    "RunStatus",
    "SelfEvalMode",
    "SessionInfo",
    "ToolUse",
    "Usage",
    "WireModel",
    "invalid_fields",
]

RunStatus = TypeAliasType("RunStatus", Literal["success", "partial", "failed"])
PlanStepStatus = TypeAliasType("PlanStepStatus", Literal["pending", "in_progress", "done"])


def invalid_fields(error: ValidationError) -> str:
    """``confirmMode: Input should be ...; maxStep: Extra inputs are not permitted``: each
    bad field named as the caller spelled it."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(params)'}: {e['msg']}" for e in error.errors()
    )


class Attachment(WireModel):
    """Something the user attaches to the prompt."""

    kind: Literal["file", "symbol", "problems", "changes", "image"]
    path: str | None = Field(
        None,
        description="file: workspace-relative or absolute; problems: the one file whose "
        "problems are wanted (checked now if need be), absent for every file's known "
        "problems; image: a name to show.",
    )
    start_line: int | None = Field(None, ge=1, description="file: the first line (1-based).")
    end_line: int | None = Field(None, ge=1, description="file: the last line.")
    name: str | None = Field(None, description="symbol: its name.")
    data: str | None = Field(None, description="image: the bytes, base64.")
    mime_type: str | None = Field(None, description="image: `image/png`, `image/jpeg`...")

    @model_validator(mode="after")
    def _complete(self) -> Attachment:
        needs = {"file": ("path",), "symbol": ("name",), "image": ("data", "mime_type")}
        missing = [f for f in needs.get(self.kind, ()) if not getattr(self, f)]
        if missing:
            raise ValueError(f"a {self.kind} attachment needs {' and '.join(missing)}")
        return self


class RunRequestFields(WireModel):
    """The fields of a run request that every front end may send: ``RunRequest`` adds
    the CLI's knobs, ``RunParams`` (``agent/run``) LSP's progress token."""

    prompt: str = Field(min_length=1, description="The task.")
    agent: str = Field(
        "build",
        description="An agent from `agent/agents` (`build`, `plan`, `review`, `mixed`, custom).",
    )
    run_id: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        description="Id used in every notification of this run; generated when absent.",
    )
    session_id: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        description="The conversation to continue; a new one when absent. "
        "One run in flight per session.",
    )
    model: str | None = Field(
        None,
        min_length=1,
        description="The model for this run (an id of `agent/models`, as `llm.model` "
        "takes it); the session's `/model` choice, else the agent's or the config's, "
        "when absent.",
    )
    confirm_mode: ConfirmMode | None = Field(
        None, description="Approval policy for this run; the agent's when absent."
    )
    max_steps: int | None = Field(
        None, ge=1, description="Loop iterations allowed; the agent's when absent."
    )
    self_eval: SelfEvalMode | None = Field(
        None, description="Self-evaluation of the result; the config's when absent."
    )
    dry_run: bool = Field(False, description="Sensitive tools describe instead of acting.")
    active_file: str | None = Field(
        None,
        description="The file (or folder) the user is working in, absolute or "
        "workspace-relative: the AGENTS.md files from the root down to its folder apply.",
    )
    attachments: list[Attachment] = Field(
        default_factory=list, description="Files, symbols, the changes, images for the prompt."
    )
    token_budget: int | None = Field(
        None,
        ge=1,
        description="Stop the run (partial) once its model calls used this many tokens.",
    )


class RunRequest(RunRequestFields):
    """A run as the agent layer takes it: the wire fields plus the CLI's knobs."""

    stream: bool | None = Field(None, description="Stream the model's text; config when None.")
    step_timeout: float = Field(0, ge=0, description="Seconds per step; 0: no limit.")
    tools: list[str] | None = Field(
        None, description="Narrow the agent's tools to these (a command's `tools`); never widens."
    )


class ToolUse(WireModel):
    """One tool call of a run, as the result lists it."""

    name: str
    args: dict[str, Any] = Field(description="The arguments, long strings shortened.")
    success: bool


class WorktreeInfo(WireModel):
    """A worktree session: a copy of the repository on its own branch where runs work
    without touching the user's tree."""

    name: str
    branch: str
    path: str
    base: str = Field(description="The commit it started from (HEAD plus the user's changes).")
    created: float = Field(description="Seconds since the epoch.")
    state: Literal["ready", "uncommitted changes", "missing", "running"] = Field(
        description="`running`: a run of this server works in it now; `uncommitted "
        "changes`: a run left changes not committed on its branch; `missing`: its folder "
        "is gone."
    )
    files: int = Field(description="Files its branch changed since the base.")
    added: int
    removed: int


class RunResult(WireModel):
    """The result of ``agent/run`` (and of ``agentls run --json``)."""

    omit_none = False  # ``model`` is null when no model answered

    status: RunStatus = Field(
        description="`partial`: cancelled, step limit, or aborted in an approval; "
        "`failed`: model or internal error (`output` says why)."
    )
    output: str = Field(description="The agent's final answer, or why the run ended.")
    steps: int = Field(description="Loop iterations done.")
    tools_used: list[ToolUse] = Field(alias="tools_used")
    duration_seconds: float = Field(alias="duration_seconds")
    model: str | None
    run_id: str
    session_id: str
    usage: Usage = Field(description="Tokens of every model call of the run.")
    instructions: list[str] = Field(
        default_factory=list,
        description="The instruction files the model was given (AGENTS.md...), in order.",
    )
    worktree: WorktreeInfo | None = Field(
        None,
        description="The worktree the run worked in (its changes committed on its branch), "
        "when it was asked to work in one.",
    )

    folder: str | None = Field(
        None,
        description="The URI of the workspace folder the run worked in (language server only).",
    )

    def to_wire(self) -> dict[str, Any]:
        wire = super().to_wire()
        for optional in ("worktree", "folder"):  # only a worktree run has one; LSP's a folder
            if wire.get(optional) is None:
                wire.pop(optional, None)
        return wire

    @classmethod
    def failed(cls, message: str, *, run_id: str, session_id: str) -> RunResult:
        """A run that could not run at all."""
        return cls(
            status="failed",
            output=message,
            steps=0,
            tools_used=[],
            duration_seconds=0.0,
            model=None,
            run_id=run_id,
            session_id=session_id,
            usage=Usage(),
        )


class SessionInfo(WireModel):
    """One stored conversation, as ``agent/sessions`` and ``agentls sessions --json`` list it."""

    session_id: str
    title: str = Field(description="The first prompt, on one line, shortened.")
    updated: float = Field(description="Last write, seconds since the epoch.")
    status: str = Field(
        description="The last run's status (`success`, `partial`, `failed`), `interrupted` "
        "when it never finished (the server died), `empty` when the session has no run."
    )
    runs: int
    entries: int
