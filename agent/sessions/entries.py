"""The entries of a session file: one typed pydantic model per line, ``type`` the
discriminator, each with the key that makes its append idempotent."""

from __future__ import annotations

import functools
import time
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# -- entries ---------------------------------------------------------------------------


class _Entry(BaseModel):
    """What every entry has: the run that wrote it, the model call of the run it belongs
    to and when it was written."""

    # Each kind's validator is built when it is first used: a run writes four kinds or
    # so, and building all fourteen at import is time before the first model request.
    model_config = ConfigDict(extra="ignore", defer_build=True)

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


class _OncePerRun(_Entry):
    """Written once per run: its key is its ``type`` and the run."""

    key_fields: ClassVar[tuple[str, ...]] = ("run_id",)


class _OncePerModelCall(_Entry):
    """Written once per model call of the run."""

    key_fields: ClassVar[tuple[str, ...]] = ("run_id", "model_call_index")


class _OncePerToolCall(_Entry):
    """Written once per tool call of the model call, which ``call_id`` names."""

    call_id: str
    key_fields: ClassVar[tuple[str, ...]] = ("run_id", "model_call_index", "call_id")


class RunStartEntry(_OncePerRun):
    """A run began: the prompt it was given and the agent that ran it."""

    type: Literal["run_start"] = "run_start"
    prompt: str
    agent: str = "build"
    #: The instruction files the run gave the model (a later run of the session reads
    #: them again).
    instructions: list[str] = Field(default_factory=list)
    #: The model the run starts on (in mixed mode the planner's: each answer names its own).
    model: str | None = None


class UserMessage(_OncePerModelCall):
    type: Literal["user_message"] = "user_message"
    content: str


class NoteEntry(_OncePerModelCall):
    """News from the front end that the model was given just before a run's prompt (what
    the user decided about earlier edits since the model last heard): told as a user
    message, kept apart from the user's own words."""

    type: Literal["note"] = "note"
    content: str


class StoredToolCall(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class AssistantMessage(_OncePerModelCall):
    type: Literal["assistant_message"] = "assistant_message"
    content: str | None = None
    tool_calls: list[StoredToolCall] = Field(default_factory=list)
    finish_reason: str = "stop"
    #: The model that answered (None in sessions written before models were recorded).
    model: str | None = None


class _ToolCallPart(_OncePerToolCall):
    """The call and its result, each of which names the tool."""

    name: str


class ToolCallEntry(_ToolCallPart):
    """Written just before the engine gets the call: the call may have started."""

    type: Literal["tool_call"] = "tool_call"
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolResultEntry(_ToolCallPart):
    """A tool call ended: whether it succeeded and what the model was told."""

    type: Literal["tool_result"] = "tool_result"
    success: bool
    content: str


class ApprovalDecision(_OncePerToolCall):
    """What a human decided about a tool call or the edits it made."""

    type: Literal["approval_decision"] = "approval_decision"
    tool: str
    #: approve | approve_run | approve_always (``args.rule``: the allow rule saved) |
    #: deny | modify | abort for a tool call; for an edit the human confirmed: approve
    #: (kept), deny (rejected) or partial (some hunks kept).
    decision: str
    message: str = ""
    args: dict[str, Any] = Field(default_factory=dict)


class ContextUpdate(_Entry):
    """The context manager changed what the model sees (summarised or dropped steps)."""

    type: Literal["context_update"] = "context_update"
    kind: str
    messages_before: int
    messages_after: int


class PlanEntry(_Entry):
    """The plan as the agent last sent it (``update_plan``): the goal and every step."""

    type: Literal["plan"] = "plan"
    goal: str
    steps: list[dict[str, str]] = Field(default_factory=list)


class RunFinishEntry(_OncePerRun):
    """How the run ended: its status, its last state and its output (at most 4,000
    characters)."""

    type: Literal["run_finish"] = "run_finish"
    status: str
    state: str = ""
    output: str = ""
    #: Every instruction file the model had by the end, those that joined as the run
    #: reached their folders too.
    instructions: list[str] = Field(default_factory=list)


class CompactionEntry(_OncePerRun):
    """The user compacted the conversation (``/compact``): a later run's history starts
    from this summary instead of the ``replaced`` messages before it."""

    type: Literal["compaction"] = "compaction"
    summary: str
    replaced: int


class ModelChoiceEntry(_OncePerRun):
    """The user chose the session's model (``/model <id>``): the next runs use it unless a
    run names its own. ``model`` None: back to the agent's or the config's."""

    type: Literal["model_choice"] = "model_choice"
    model: str | None = None


class RestoreEntry(_OncePerRun):
    """The user put the workspace back before ``restores`` (undoing it and the session's
    later runs); ``run_id`` is the restore's own id, so the restore can be undone too."""

    type: Literal["restore"] = "restore"
    restores: str
    status: str
    restored: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)
    #: ``{"path", "reason"}`` of each file that could not be put back.
    unrestorable: list[dict[str, str]] = Field(default_factory=list)


class SubagentEntry(_OncePerToolCall):
    """A subagent the run started (``call_id``: the parent's ``delegate`` call) ended: who it
    was, what it was asked, how it ended, what it spent and its report (at most 4,000
    characters). The report the parent read is the call's tool result; this keeps the rest."""

    type: Literal["subagent"] = "subagent"
    agent: str
    task: str
    status: str
    steps: int = 0
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    report: str = ""


Entry = Annotated[
    RunStartEntry
    | UserMessage
    | NoteEntry
    | AssistantMessage
    | ToolCallEntry
    | ToolResultEntry
    | ApprovalDecision
    | ContextUpdate
    | PlanEntry
    | RunFinishEntry
    | CompactionEntry
    | ModelChoiceEntry
    | RestoreEntry
    | SubagentEntry,
    Field(discriminator="type"),
]


@functools.cache
def _entry_adapter() -> TypeAdapter[Entry]:
    """The validator of any entry, built when a session file is first read."""
    return TypeAdapter(Entry)


def parse_entry(line: str | bytes) -> Entry:
    return _entry_adapter().validate_json(line)
