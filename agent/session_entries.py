"""The entries of a session file: one typed pydantic model per line, ``type`` the
discriminator, each with the key that makes its append idempotent."""

from __future__ import annotations

import time
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# -- entries ---------------------------------------------------------------------------


#: What makes an entry's idempotency key, with its ``type``: one per run, one per model
#: call of the run, one per tool call of the model call.
_PER_RUN = ("run_id",)
_PER_MODEL_CALL = ("run_id", "model_call_index")
_PER_TOOL_CALL = ("run_id", "model_call_index", "call_id")


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")

    run_id: str
    model_call_index: int = 0
    ts: float = Field(default_factory=time.time)
    #: The fields of the idempotency key; () for entries that are always appended.
    key_fields: ClassVar[tuple[str, ...]] = ()

    def key(self) -> tuple[str | int, ...] | None:
        """The idempotency key; None for entries that are always appended."""
        if not self.key_fields:
            return None
        # Every entry's ``type`` (its Literal discriminator) comes first.
        return tuple(getattr(self, name) for name in ("type", *self.key_fields))


class RunStart(_Entry):
    type: Literal["run_start"] = "run_start"
    prompt: str
    agent: str = "build"

    key_fields: ClassVar[tuple[str, ...]] = _PER_RUN


class UserMessage(_Entry):
    type: Literal["user_message"] = "user_message"
    content: str

    key_fields: ClassVar[tuple[str, ...]] = _PER_MODEL_CALL


class StoredToolCall(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class AssistantMessage(_Entry):
    type: Literal["assistant_message"] = "assistant_message"
    content: str | None = None
    tool_calls: list[StoredToolCall] = Field(default_factory=list)
    finish_reason: str = "stop"

    key_fields: ClassVar[tuple[str, ...]] = _PER_MODEL_CALL


class ToolCallEntry(_Entry):
    """Written just before the engine gets the call: the call may have started."""

    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    key_fields: ClassVar[tuple[str, ...]] = _PER_TOOL_CALL


class ToolResultEntry(_Entry):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    success: bool
    content: str

    key_fields: ClassVar[tuple[str, ...]] = _PER_TOOL_CALL


class ApprovalDecision(_Entry):
    type: Literal["approval_decision"] = "approval_decision"
    call_id: str
    tool: str
    #: approve | approve_run | deny | modify | abort for a tool call; for an edit the
    #: human confirmed: approve (kept), deny (rejected) or partial (some hunks kept).
    decision: str
    message: str = ""
    args: dict[str, Any] = Field(default_factory=dict)

    key_fields: ClassVar[tuple[str, ...]] = _PER_TOOL_CALL


class ContextUpdate(_Entry):
    """The context manager changed what the model sees (summarised or dropped steps)."""

    type: Literal["context_update"] = "context_update"
    kind: str
    messages_before: int
    messages_after: int


class PlanEntry(_Entry):
    type: Literal["plan"] = "plan"
    goal: str
    steps: list[dict[str, str]] = Field(default_factory=list)


class RunFinish(_Entry):
    type: Literal["run_finish"] = "run_finish"
    status: str
    state: str = ""
    output: str = ""

    key_fields: ClassVar[tuple[str, ...]] = _PER_RUN


class RestoreEntry(_Entry):
    """The user put the workspace back before ``restores`` (undoing it and the session's
    later runs); ``run_id`` is the restore's own id, so the restore can be undone too."""

    type: Literal["restore"] = "restore"
    restores: str
    status: str
    restored: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    #: ``{"path", "reason"}`` of each file that could not be put back.
    unrestorable: list[dict[str, str]] = Field(default_factory=list)

    def key(self) -> tuple[str | int, ...] | None:
        return ("restore", self.run_id)


Entry = Annotated[
    RunStart
    | UserMessage
    | AssistantMessage
    | ToolCallEntry
    | ToolResultEntry
    | ApprovalDecision
    | ContextUpdate
    | PlanEntry
    | RunFinish
    | RestoreEntry,
    Field(discriminator="type"),
]
_ENTRY: TypeAdapter[Entry] = TypeAdapter(Entry)


def parse_entry(line: str | bytes) -> Entry:
    return _ENTRY.validate_json(line)
