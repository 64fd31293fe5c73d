"""The agentls protocol over LSP: the params and results of every ``agent/*`` method.

The run itself (params, result, value sets) is the agent layer's contract
(``agent/contract.py``); this module adds what only the language server speaks: the
progress token of ``agent/run``, the notifications a run sends, the questions it asks
the client, and the small requests around runs and sessions. ``METHODS`` lists them
all; ``server/protocol_schema.py`` turns it into the JSON Schema and the TypeScript
types the VS Code extension uses, and docs/protocol.md describes each one.

Imported on first use (pydantic): ``initialize`` must not wait for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from typing_extensions import TypeAliasType

from agentls.agent.contract import (
    PlanStepStatus,
    RunRequest,
    RunRequestFields,
    RunResult,
    RunState,
    SessionInfo,
    Usage,
    WireModel,
    WorktreeInfo,
    invalid_fields,
)
from agentls.agent.llm.available import ModelCatalog
from agentls.agent.sessions.entries import Entry

StepPhase = TypeAliasType("StepPhase", Literal["tool_start", "tool_end"])
SubagentPhase = TypeAliasType("SubagentPhase", Literal["start", "end"])
SubagentStatus = TypeAliasType("SubagentStatus", Literal["success", "partial", "failed"])
SlashCommandSource = TypeAliasType("SlashCommandSource", Literal["built-in", "user", "workspace"])
ReviewOutcome = TypeAliasType(
    "ReviewOutcome", Literal["kept", "undone", "changedByUser", "pending"]
)
ReviewDeliveryState = TypeAliasType("ReviewDeliveryState", Literal["waiting", "told", "unknown"])
AutoSaveMode = TypeAliasType(
    "AutoSaveMode", Literal["off", "afterDelay", "onFocusChange", "onWindowChange"]
)
SessionEntry = TypeAliasType("SessionEntry", Entry)

M = TypeVar("M", bound=WireModel)


def parse_params(model: type[M], data: Any, *, what: str = "params") -> M:
    """Validate a message's params (or, ``what="result"``, a client's answer) from its
    JSON; bad ones are an InvalidParams error naming each field as the client spelled it
    (``confirmMode: Input should be ...``). The converter reads every message of ours
    through it (server/converter.py)."""
    try:
        return model.model_validate({} if data is None else data)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"invalid {what}: {invalid_fields(exc)}") from None


# -- client → server ------------------------------------------------------------------


def folder_field() -> Any:
    """The ``folder`` of a request about one workspace folder (declared in each params
    model: they share no base, so each reads whole in the generated types)."""
    return Field(
        None,
        min_length=1,
        description="The workspace folder, by its URI as the client sent it in "
        "`initialize.workspaceFolders` or `workspace/didChangeWorkspaceFolders`; absent: the "
        "first folder. A URI that is none of the folders is InvalidParams.",
    )


class FolderParams(WireModel):
    """Params of a request about one workspace folder that takes nothing else
    (``agent/agents``, ``agent/sessions``, ``agent/worktrees``...): ``{folder?}``."""

    folder: str | None = folder_field()


class WorktreeOption(WireModel):
    """Where a run that works in a worktree of its own works."""

    name: str | None = Field(
        None,
        max_length=64,
        description="The worktree (branch `agentls/<name>`): continued when it exists, "
        "else made from HEAD plus the uncommitted changes; none: a new one named after a "
        "fresh id.",
    )


class RunParams(RunRequestFields):
    """``agent/run`` params."""

    folder: str | None = Field(
        None,
        min_length=1,
        description="The workspace folder the run works in (its URI): its settings, trust, "
        "index, instructions, sessions, checkpoints and worktrees; every tool confined to it. "
        "Absent: the folder that holds `activeFile` when that is an absolute path inside one, "
        "else the first folder. A URI that is none of the folders is InvalidParams.",
    )

    work_done_token: int | str | None = Field(
        None, description="Report progress on this token instead of creating one."
    )
    worktree: WorktreeOption | None = Field(
        None,
        description="Work in a git worktree of its own, not in the user's tree: its edits "
        "are written there (no review), committed on its branch at the end, and applied "
        "to the user's tree only by `agent/applyWorktree`.",
    )

    def to_request(self, **updates: Any) -> RunRequest:
        """The run the agent layer is asked for, with ``updates`` (e.g. generated ids)."""
        fields = self.model_dump(by_alias=False, exclude={"work_done_token", "worktree", "folder"})
        return RunRequest.model_validate({**fields, **updates})


class NoParams(WireModel):
    """Params of a request that takes none: ``{}`` (the server ignores what is sent)."""


class PrepareParams(WireModel):
    """``agent/prepare`` params: ``{}``. The user is about to run the agent (a panel
    opened, a prompt is being typed): the server starts its model worker now."""


class CancelParams(WireModel):
    """``agent/cancel`` params."""

    run_id: str = Field(min_length=1)


class CancelResult(WireModel):
    cancelled: bool = Field(
        description="False when no run of that id is in flight (finished, unknown, "
        "or already cancelled)."
    )


class MessageParams(WireModel):
    """``agent/message`` params: the user writes to a run while it works."""

    run_id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    mode: Literal["queue", "steer"] = Field(
        "queue",
        description="queue: the model reads it before its next call; steer: the model call "
        "in flight is cut (its text void) and made again with the message.",
    )


class MessageResult(WireModel):
    accepted: bool = Field(description="False when the run cannot take it; `reason` says why.")
    message_id: str | None = Field(
        None, description="Named again in `agent/messageDelivered` once the model has it."
    )
    reason: str | None = None


class MessageDeliveredParams(WireModel):
    """``agent/messageDelivered``: messages sent with ``agent/message`` reached the model."""

    run_id: str
    message_ids: list[str]


class CommandParams(WireModel):
    """``agent/command``: a command the agent runs, as it runs, for a client that mirrors
    it (one that declares ``experimental.agentls.commandOutput``). ``started`` names the
    command, ``output`` pieces come in order, ``ended`` gives the exit code. Secrets are
    masked in ``command`` and ``text``."""

    run_id: str
    call_id: str = Field(description="The tool call, as in `agent/step`.")
    event: Literal["started", "output", "ended"]
    tool: str | None = Field(None, description="`started`: the tool that runs it.")
    command: str | None = Field(None, description="`started`: what runs, as approved.")
    text: str | None = Field(None, description="`output`: stdout and stderr interleaved.")
    exit_code: int | None = Field(
        None, description="`ended`: the exit code; absent when the command was stopped."
    )
    timed_out: bool | None = Field(None, description="`ended`: stopped by its time limit.")


class NoticeParams(WireModel):
    """``agent/notice``: what a run tells the user besides its work (settings of an
    untrusted folder that were ignored, no sandbox, an MCP server that did not start), for
    a client that shows it beside the run (one that declares
    ``experimental.agentls.notices``). Every client also gets it as ``window/logMessage``."""

    run_id: str
    level: Literal["error", "warning", "info"]
    message: str


class AgentInfo(WireModel):
    name: str
    description: str
    read_only: bool
    source: str = Field(
        description="Where the agent is defined: `built-in`, `config` (the settings' "
        "`agents:`), or its agent file (workspace-relative, e.g. `.claude/agents/x.md`, or "
        "`your agents/x.md` in the user config directory)."
    )


class AgentsResult(WireModel):
    """``agent/agents`` result."""

    agents: list[AgentInfo]


class SlashCommandInfo(WireModel):
    """A ``/name`` command a prompt may start with."""

    name: str = Field(description="Without the `/`.")
    description: str
    hint: str = Field(
        description="What to type after the name (its `argument-hint`, else its "
        "`${input:...}` names as `name=<placeholder>`); empty when it takes nothing."
    )
    source: SlashCommandSource
    path: str = Field(
        description="The prompt file it comes from: workspace-relative, or `your ...` for "
        "one in the user config directory; empty for a built-in."
    )


class SlashCommandsResult(WireModel):
    """``agent/commands`` result: by name."""

    commands: list[SlashCommandInfo]
    problems: list[str] = Field(
        description="Prompt files that were skipped or partly ignored, and why."
    )


class AttachCandidatesParams(WireModel):
    """``agent/attachCandidates`` params: what the user typed after `@`."""

    folder: str | None = folder_field()
    query: str = Field("", max_length=200, description="Matched fuzzily; empty lists the first.")
    limit: int = Field(50, ge=1, le=500, description="Most files, and most symbols, returned.")


class AttachCandidate(WireModel):
    """A file of the index, or a definition of the repo map, the user may attach."""

    kind: Literal["file", "symbol"]
    path: str = Field(description="Workspace-relative, with forward slashes.")
    name: str | None = Field(None, description="symbol: its name (what `{kind: symbol}` takes).")
    line: int | None = Field(None, ge=1, description="symbol: the line it is defined on.")
    symbol_kind: str | None = Field(None, description="symbol: `function`, `class`, `method`...")
    detail: str = Field("", description="symbol: its signature.")


class AttachCandidatesResult(WireModel):
    """``agent/attachCandidates`` result: best first, the files then the symbols."""

    items: list[AttachCandidate]
    notes: list[str] = Field(
        default_factory=list,
        description="Why some are missing (no index, the symbols not ready yet).",
    )


class PingResult(WireModel):
    """``agent/ping`` result."""

    pong: Literal[True] = True
    runs: int = Field(description="Runs in flight.")
    llm_ready: bool = Field(description="The model worker is up and has loaded litellm.")
    worker_running: bool = Field(
        description="A model worker process is up (it may still be loading litellm); it "
        "starts at `agent/prepare` or the first run and ends after `llm.worker_idle_seconds`."
    )
    watching: bool = Field(description="The index is built and its file watcher runs.")
    indexed_files: int | None = Field(
        description="Text files in the index; null before it is built."
    )
    litellm_loaded: bool = Field(
        description="This process imported litellm (it should not: the worker makes the calls)."
    )
    tokenizer_loaded: bool = Field(
        description="This process imported a tokenizer (it should not: the worker counts tokens)."
    )
    parser_loaded: bool = Field(
        description="This process loaded a tree-sitter grammar (it should not: the symbol "
        "process parses)."
    )


class SessionsResult(WireModel):
    """``agent/sessions`` result, newest first."""

    sessions: list[SessionInfo]


class SessionParams(WireModel):
    """``agent/session`` params."""

    folder: str | None = folder_field()
    session_id: str = Field(min_length=1, max_length=128)


class SessionResult(WireModel):
    """``agent/session`` result: every stored entry, for a client to render the history."""

    omit_none = False  # entries keep their null fields, as stored

    session_id: str
    entries: list[SessionEntry] = Field(description="Typed by `type`; snake_case, as stored.")
    torn: bool = Field(description="A partial last line (a crash mid-write) was ignored.")


# -- server → client ------------------------------------------------------------------


class StatusParams(WireModel):
    """``agent/status``: the run changed state."""

    run_id: str
    state: RunState
    detail: str | None = Field(None, description="Why the run failed, aborted or ended partial.")
    model: str | None = Field(
        None,
        description="With `preparing`: the model that answers the steps starting now (in "
        "`mixed` mode the planner's, then the builder's).",
    )


class StreamParams(WireModel):
    """``agent/stream``: the model's text as it is written; concatenated in ``seq``
    order it is exactly the model's text."""

    run_id: str
    seq: int = Field(ge=1, description="1, 2, 3... per run.")
    text: str
    restart: bool | None = Field(
        default=None,
        description="The model's stream was cut and its call starts again: "
        "this step's text so far is void.",
    )
    discard: int | None = Field(
        default=None, ge=0, description="How many characters of this step's text are void."
    )
    reason: str | None = Field(default=None, description="Why the stream restarts.")
    attempt: int | None = Field(default=None, ge=1, description="The attempt that now starts.")


class StepParams(WireModel):
    """``agent/step``: a tool call starts or ends."""

    run_id: str
    step: int
    max_steps: int
    phase: StepPhase
    tool: str
    call_id: str
    args: dict[str, Any] = Field(
        description="Scalars and short one-line strings only, never file contents."
    )
    success: bool | None = Field(None, description="With `tool_end`.")
    summary: str | None = Field(None, max_length=200, description="With `tool_end`.")
    context_used: int | None = Field(
        None, description="The context meter as this step's model call started: tokens used."
    )
    context_limit: int | None = Field(
        None, description="The context budget those tokens fill (`context.max_context_tokens`)."
    )
    parent_call_id: str | None = Field(
        None,
        description="A subagent's tool call: the `delegate` call of the run it is nested "
        "under (`step`/`maxSteps` are then the subagent's own).",
    )
    agent: str | None = Field(None, description="With `parentCallId`: the subagent's name.")


class SubagentParams(WireModel):
    """``agent/subagent``: a subagent the run handed a task to (its ``delegate`` tool call
    ``callId``) starts or ends; its tool calls come as ``agent/step`` with
    ``parentCallId``."""

    run_id: str
    call_id: str = Field(description="The run's `delegate` tool call the subagent works under.")
    agent: str
    phase: SubagentPhase
    task: str | None = Field(None, description="With `start`: the task it was given.")
    model: str | None = Field(None, description="With `start`: the model that answers it.")
    background: bool | None = Field(
        None, description="With `start`: true when the run goes on without waiting for it."
    )
    status: SubagentStatus | None = Field(None, description="With `end`.")
    summary: str | None = Field(
        None, max_length=500, description="With `end`: the opening of its report."
    )
    steps: int | None = Field(None, description="With `end`: the steps it took.")
    usage: Usage | None = Field(None, description="With `end`: the tokens it used.")


class Compaction(WireModel):
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int


class ContextParams(WireModel):
    """``agent/context``: how full the model's context is, as each step's model call
    starts; with ``compacted`` when the older steps were just compacted."""

    run_id: str
    step: int
    used: int = Field(description="Tokens of the conversation the model is sent.")
    limit: int = Field(description="The budget compaction keeps to (`context.max_context_tokens`).")
    compacted: Compaction | None = None


class PlanStep(WireModel):
    text: str
    status: PlanStepStatus


class PlanParams(WireModel):
    """``agent/plan``: the agent's plan, whole, each time it changes."""

    run_id: str
    goal: str
    steps: list[PlanStep]


class InstructionsParams(WireModel):
    """``agent/instructions``: the instruction files the model was given (AGENTS.md...)."""

    run_id: str
    files: list[str] = Field(description="Workspace-relative paths, in the order read.")
    joined: bool | None = Field(
        None,
        description="True: these joined during the run, as it reached their folders "
        "(the others were given at its start).",
    )


class AskUserParams(WireModel):
    """``agent/askUser`` (a request to the client) params."""

    run_id: str
    question: str
    default: str | None = Field(
        None, description="Text to start from, e.g. the command being edited."
    )


class AskUserResult(WireModel):
    """``agent/askUser`` result."""

    answer: str | None = Field(None, description="Null: the user declined to answer.")


class DiagnosticsParams(WireModel):
    """``agent/diagnostics`` (a request to the client) params: the editor's problems of
    these documents, as it shows them now."""

    uris: list[str] = Field(
        description="The documents asked about; empty: every document the editor has problems for."
    )


class DiagnosticPosition(WireModel):
    line: int = Field(ge=0, description="0-based.")
    character: int = Field(ge=0, description="0-based, in UTF-16 code units (LSP's default).")


class DiagnosticRange(WireModel):
    start: DiagnosticPosition
    end: DiagnosticPosition


class EditorDiagnostic(WireModel):
    """One problem, in the shape of LSP's ``Diagnostic`` (its other fields, such as
    ``tags`` or ``relatedInformation``, may be sent and are ignored)."""

    model_config = ConfigDict(extra="ignore")

    range: DiagnosticRange
    severity: int | None = Field(
        None, ge=1, le=4, description="1 error, 2 warning, 3 information, 4 hint; absent: error."
    )
    code: int | str | None = None
    source: str | None = Field(None, description="Who reports it, e.g. `Pylance`, `ts`.")
    message: str


class DocumentDiagnostics(WireModel):
    uri: str
    diagnostics: list[EditorDiagnostic]
    updates: int | None = Field(
        None,
        ge=0,
        description="Optional: how many times the editor's problems of this document were "
        "set so far; lets the server see a language server publish the same problems again "
        "for the new text.",
    )


class DiagnosticsResult(WireModel):
    """``agent/diagnostics`` result: one entry per document asked about (a document with
    no problems may be left out)."""

    items: list[DocumentDiagnostics]


NavigateAction = TypeAliasType(
    "NavigateAction",
    Literal[
        "definition",
        "references",
        "hover",
        "documentSymbols",
        "workspaceSymbols",
        "implementations",
        "incomingCalls",
        "outgoingCalls",
        "rename",
    ],
)


class NavigateParams(WireModel):
    """``agent/navigate`` (a request to the client) params: a question about the code that
    the editor answers from its own providers (VS Code's ``vscode.execute*Provider``)."""

    action: NavigateAction
    uri: str = Field(
        description="The document asked about; workspaceSymbols: a document of the language."
    )
    position: DiagnosticPosition | None = Field(
        None, description="Where the symbol is (not sent for workspaceSymbols)."
    )
    query: str | None = Field(None, description="workspaceSymbols: the name looked for.")
    new_name: str | None = Field(None, description="rename: the symbol's new name.")


class NavLocation(WireModel):
    """A place in a document, as LSP's ``Location``."""

    uri: str
    range: DiagnosticRange


class NavSymbol(WireModel):
    name: str
    kind: int = Field(ge=1, description="LSP's SymbolKind (5 class, 6 method, 12 function...).")
    uri: str
    range: DiagnosticRange = Field(description="The symbol's name (LSP's selectionRange).")
    container: list[str] = Field(
        default_factory=list,
        description="The enclosing symbols' names, outermost first (`Store` for `Store.save`).",
    )
    detail: str | None = None


class NavCall(WireModel):
    """A caller (incomingCalls) or a callee (outgoingCalls), and where the calls are."""

    symbol: NavSymbol
    sites: list[NavLocation] = Field(
        default_factory=list,
        description="The calls: in the caller (incomingCalls), in the asked function "
        "(outgoingCalls).",
    )


class NavTextEdit(WireModel):
    range: DiagnosticRange
    new_text: str


class NavWorkspaceEdit(WireModel):
    """A rename's edits per document, as LSP's ``WorkspaceEdit.changes`` (not applied by
    the editor: the server applies them as one reviewed change)."""

    changes: dict[str, list[NavTextEdit]]


class NavigateResult(WireModel):
    """``agent/navigate`` result. ``answered: false``: the editor has no answer for that
    document and question (no provider; VS Code cannot tell that from an empty answer, so
    it sends this for both): the language servers agentls starts are asked instead."""

    answered: bool
    by: str | None = Field(None, description="Who answered, e.g. `VS Code`, `Neovim (pyright)`.")
    locations: list[NavLocation] = Field(default_factory=list)
    hover: str | None = Field(None, description="hover: the text shown, markdown.")
    symbols: list[NavSymbol] = Field(default_factory=list)
    calls: list[NavCall] = Field(default_factory=list)
    edit: NavWorkspaceEdit | None = Field(None, description="rename: the edits, not applied.")


class WorkspaceTrustParams(WireModel):
    """``agent/workspaceTrust`` (a notification to the server): the editor's own trust
    model changed its verdict on the folder (VS Code: the user granted Workspace Trust)."""

    trusted: bool


class HunkDecision(WireModel):
    """What the user decided about one hunk under inline review (`pending`: a decision
    taken back, e.g. an undo undone with Ctrl+Z: the hunk waits for the user again)."""

    id: str = Field(min_length=1, description="The hunk's change annotation id.")
    outcome: ReviewOutcome
    text: str | None = Field(None, description="For `changedByUser`: the region's text now.")
    line: int | None = Field(
        None, ge=0, description="The region's 0-based first line in the document now."
    )


class ReviewDecisionParams(WireModel):
    """``agent/reviewDecision`` (a notification to the server): the user kept, undid or
    changed hunks of an agent edit under inline review."""

    uri: str = Field(min_length=1)
    version: int = Field(description="The document's version after the decisions.")
    run_id: str | None = Field(None, description="The run that made the edit.")
    hunks: list[HunkDecision] = Field(default_factory=list)
    saved: bool = Field(False, description="The file was saved after its last hunk was decided.")
    changed_on_save: bool = Field(
        False, description="Saving changed the text (format on save, trimmed whitespace...)."
    )
    deleted: bool = Field(
        False,
        description="The agent created the file and the user undid all of it: the file was "
        "deleted.",
    )


class ReviewAutoSaveParams(WireModel):
    """``agent/reviewAutoSave`` (a notification to the server, sent before the client
    answers an edit it reviews inline): how the editor's auto-save treats a file of that
    edit, so that the tool result tells the model what is on disk."""

    uri: str = Field(min_length=1)
    version: int = Field(description="The document's version once the edit is applied.")
    mode: AutoSaveMode = Field(description="The editor's auto-save for this file.")
    saved: bool = Field(
        False, description="The editor has already saved the file with the edit in it."
    )


class ReviewDeliveryParams(WireModel):
    """``agent/reviewDelivery`` (a notification to the client): what became of review
    decisions it sent."""

    hunks: list[str] = Field(description="The hunks' ids.")
    state: ReviewDeliveryState = Field(
        description="`waiting`: for the next model call of `sessionId` (its run in flight "
        "`runId`, else its next run, or the next run of any other session); `told`: the "
        "model of run `runId` has heard the hunks' current state (`note`: the text it was "
        "given; absent when it had heard it before); `unknown`: this server does not know "
        "the hunks (made by another server process), so no model will hear of them."
    )
    run_id: str | None = None
    session_id: str | None = None
    note: str | None = Field(None, description="`told`: exactly what the model was given.")
    other_session: bool = Field(
        False,
        description="`told`: the run that heard is of another session than the edit's; the "
        "edit's own session still hears it when continued.",
    )


class ProgramApprovalParams(WireModel):
    """``agent/approveProgram`` (a request to the client): may this program, which the
    workspace declares, run? An MCP server before it starts, a workspace file's hooks at
    the start of a run in a trusted folder: each that the user has not approved in this
    exact form. Sent only to clients that declare ``experimental.agentls.approveProgram``
    (others are asked with ``window/showMessageRequest``). An approval is stored for this
    exact definition, as ``agentls mcp approve`` / ``agentls hooks approve`` store it; a
    refusal holds while the server runs; a changed definition asks again. Every text is
    shown as is: the server has already made hidden characters visible (``\\u202e``)."""

    kind: Literal["mcp_server", "hooks"] = Field(
        description="`mcp_server`: an MCP server; `hooks`: the hooks of one file."
    )
    name: str = Field(description="The server's name; for hooks, the file that declares them.")
    source: str = Field(description="The file that declares it: `.mcp.json`, ...")
    headline: str = Field(
        description='The question in one line: `Allow the MCP server "github" to start?`.'
    )
    lines: list[str] = Field(
        description="What it runs, line by line: each value or command as written, which of "
        "the user's environment variables a value reads (`(reads your $GITHUB_TOKEN)`), and "
        "each workspace file it runs or reads with a fingerprint."
    )
    files: list[str] = Field(
        default_factory=list,
        description="The workspace files it runs or reads, each with a fingerprint of its "
        "contents (`srv.py (sha256 9f2c41d07be3)`), which the approval covers.",
    )
    warning: str = Field(description="What allowing it means, to show with the question.")
    changed: bool = Field(description="The user approved another definition of it before.")


class ProgramApprovalResult(WireModel):
    """``agent/approveProgram`` result."""

    approved: bool


# -- the editor's models ------------------------------------------------------------------


class ModelRequestParams(WireModel):
    """``agent/modelRequest`` (a request to the client): answer these messages with one
    of the editor's models (VS Code's ``vscode.lm``). Sent only to clients that declare
    ``experimental.agentls.editorModels``. The answer streams: the client sends each part
    as an ``agent/modelPart`` notification with this ``token``, then answers the request
    (after its last part). ``$/cancelRequest`` on it: the run stopped, cancel the call.
    An error answer (no consent, the model is gone) fails the run with its message."""

    token: str = Field(description="Names this call in its `agent/modelPart`s.")
    vendor: str = Field(description="The model's vendor (`copilot`).")
    model: str = Field(description="The model's id at that vendor (`gpt-4o`).")
    messages: list[dict[str, Any]] = Field(
        description="The conversation, OpenAI-style: `{role: system|user|assistant|tool, "
        "content, tool_calls?, tool_call_id?}`."
    )
    tools: list[dict[str, Any]] = Field(
        description="The tools the model may call, OpenAI-style: `{type: function, "
        "function: {name, description, parameters}}`."
    )


class ModelToolCall(WireModel):
    """A tool call the model made, whole."""

    id: str = Field(description="The call's id, echoed by the tool's result message.")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ModelPartParams(WireModel):
    """``agent/modelPart`` (a notification from the client): one part of the answer to
    the ``agent/modelRequest`` of ``token``: a piece of text or one tool call."""

    token: str
    text: str | None = None
    tool_call: ModelToolCall | None = None


class ModelRequestResult(WireModel):
    """``agent/modelRequest`` result: the call finished (every part was sent before)."""

    finish_reason: str | None = Field(
        None, description="`stop`, `tool_calls`; absent: the server infers it."
    )
    usage: dict[str, Any] | None = Field(
        None, description="`{prompt_tokens, completion_tokens, total_tokens}` when known."
    )


class CountTokensParams(WireModel):
    """``agent/countTokens`` (a request to the client): how many tokens each of ``messages``
    costs for the editor's model (its own counter). Only with
    ``experimental.agentls.editorModels``. The server asks only about messages it has not
    counted yet."""

    vendor: str
    model: str
    messages: list[dict[str, Any]]


class CountTokensResult(WireModel):
    counts: list[int] = Field(description="One count per message, in order.")


class EditorModel(WireModel):
    """One of the editor's models, as the editor describes it."""

    vendor: str
    id: str
    name: str
    family: str = ""
    max_input_tokens: int | None = None


class EditorModelsResult(WireModel):
    """``agent/editorModels`` result (a request to the client, no params; only with
    ``experimental.agentls.editorModels``): the models the editor offers now. They are
    used as `editor/<vendor>/<id>`."""

    models: list[EditorModel]


# -- checkpoints ------------------------------------------------------------------------


class CheckpointsParams(WireModel):
    """``agent/checkpoints`` params."""

    folder: str | None = folder_field()
    session_id: str | None = Field(
        None, min_length=1, max_length=128, description="Only this session's runs."
    )


class CheckpointFile(WireModel):
    path: str
    change: Literal["created", "modified", "deleted"]


class UndoPreview(WireModel):
    """What ``agent/restore`` of a run would do now (files as workspace-relative paths)."""

    restores: list[str] = Field(description="Files the undo would write back.")
    partly_undone: list[str] = Field(
        description="Of those, files where the user already undid part of the runs' "
        "changes: only the rest goes back."
    )
    changed_since: list[str] = Field(
        description="Files changed since the runs in other ways: the undo leaves them as they are."
    )


class CheckpointRun(WireModel):
    """A run (or a restore) and the files it changed."""

    run_id: str
    session_id: str
    kind: Literal["run", "restore"]
    at: float = Field(description="Seconds since the epoch of its first change.")
    restores: str | None = Field(None, description="For a restore: the run it went back before.")
    files: list[CheckpointFile]
    undo: UndoPreview | None = Field(
        None, description="With `sessionId`: what undoing this run would do now."
    )


class CheckpointsResult(WireModel):
    """``agent/checkpoints`` result: runs with checkpoints, newest first."""

    runs: list[CheckpointRun]


class RestoreParams(WireModel):
    """``agent/restore`` params."""

    folder: str | None = folder_field()
    run_id: str = Field(min_length=1, max_length=128)
    force: bool = Field(False, description="Overwrite files changed since the runs too.")


class Unrestorable(WireModel):
    path: str
    reason: str


class RestoreResult(WireModel):
    """``agent/restore`` result."""

    omit_none = False

    run_id: str
    restore_run_id: str | None = Field(
        None, description="The restore's own run id (restoring it undoes the restore)."
    )
    status: Literal["applied", "rejected", "nothing", "failed", "stale", "partial"]
    message: str = ""
    restored: list[str]
    conflicts: list[str] = Field(description="Files changed since the runs, left as they are.")
    unrestorable: list[Unrestorable]


class WorktreesResult(WireModel):
    """``agent/worktrees`` result: the worktree sessions of the workspace's repository,
    oldest first."""

    worktrees: list[WorktreeInfo]


class WorktreeParams(WireModel):
    """``agent/applyWorktree`` params."""

    folder: str | None = folder_field()
    name: str = Field(min_length=1, max_length=64)


class WorktreeConflict(WireModel):
    path: str
    reason: str


class ApplyWorktreeResult(WireModel):
    """``agent/applyWorktree`` result: what became of the worktree's changes in the
    user's tree (written as one agent edit: reviewed or confirmed like any other)."""

    status: Literal["applied", "rejected", "partial", "stale", "failed", "conflict", "nothing"]
    message: str = ""
    files: list[str] = Field(description="The files the change set touches.")
    merged: list[str] = Field(
        default_factory=list,
        description="Files the user had changed too, merged with the worktree's changes "
        "(they touched different lines).",
    )
    conflicts: list[WorktreeConflict] = Field(
        default_factory=list,
        description="With `conflict`: files the user changed where the worktree did too; "
        "nothing was written.",
    )
    pending: bool = Field(
        False, description="Applied as changes the user still keeps or undoes inline."
    )


class DiscardWorktreeParams(WireModel):
    """``agent/discardWorktree`` params."""

    folder: str | None = folder_field()
    name: str = Field(min_length=1, max_length=64)
    keep_branch: bool = Field(False, description="Keep its branch `agentls/<name>`.")
    force: bool = Field(
        False,
        description="Discard it even while it holds changes nobody committed (they are lost).",
    )


class DiscardWorktreeResult(WireModel):
    discarded: bool


# -- the method table ------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One method of the protocol; ``key`` names it in the TypeScript ``Methods``."""

    name: str
    key: str
    kind: Literal["request", "notification"]
    direction: Literal["clientToServer", "serverToClient"]
    params: type[WireModel]
    result: type[WireModel] | None = None


METHODS: tuple[Method, ...] = (
    Method("agent/run", "run", "request", "clientToServer", RunParams, RunResult),
    Method("agent/cancel", "cancel", "request", "clientToServer", CancelParams, CancelResult),
    Method("agent/message", "message", "request", "clientToServer", MessageParams, MessageResult),
    Method(
        "agent/messageDelivered",
        "messageDelivered",
        "notification",
        "serverToClient",
        MessageDeliveredParams,
    ),
    Method("agent/command", "command", "notification", "serverToClient", CommandParams),
    Method("agent/notice", "notice", "notification", "serverToClient", NoticeParams),
    Method("agent/agents", "agents", "request", "clientToServer", FolderParams, AgentsResult),
    Method(
        "agent/commands", "commands", "request", "clientToServer", FolderParams, SlashCommandsResult
    ),
    Method("agent/models", "models", "request", "clientToServer", FolderParams, ModelCatalog),
    Method(
        "agent/attachCandidates",
        "attachCandidates",
        "request",
        "clientToServer",
        AttachCandidatesParams,
        AttachCandidatesResult,
    ),
    Method("agent/ping", "ping", "request", "clientToServer", NoParams, PingResult),
    Method("agent/sessions", "sessions", "request", "clientToServer", FolderParams, SessionsResult),
    Method("agent/session", "session", "request", "clientToServer", SessionParams, SessionResult),
    Method(
        "agent/checkpoints",
        "checkpoints",
        "request",
        "clientToServer",
        CheckpointsParams,
        CheckpointsResult,
    ),
    Method("agent/restore", "restore", "request", "clientToServer", RestoreParams, RestoreResult),
    Method(
        "agent/worktrees", "worktrees", "request", "clientToServer", FolderParams, WorktreesResult
    ),
    Method(
        "agent/applyWorktree",
        "applyWorktree",
        "request",
        "clientToServer",
        WorktreeParams,
        ApplyWorktreeResult,
    ),
    Method(
        "agent/discardWorktree",
        "discardWorktree",
        "request",
        "clientToServer",
        DiscardWorktreeParams,
        DiscardWorktreeResult,
    ),
    Method("agent/status", "status", "notification", "serverToClient", StatusParams),
    Method("agent/stream", "stream", "notification", "serverToClient", StreamParams),
    Method("agent/step", "step", "notification", "serverToClient", StepParams),
    Method("agent/subagent", "subagent", "notification", "serverToClient", SubagentParams),
    Method("agent/plan", "plan", "notification", "serverToClient", PlanParams),
    Method("agent/context", "context", "notification", "serverToClient", ContextParams),
    Method(
        "agent/instructions", "instructions", "notification", "serverToClient", InstructionsParams
    ),
    Method("agent/askUser", "askUser", "request", "serverToClient", AskUserParams, AskUserResult),
    Method(
        "agent/diagnostics",
        "diagnostics",
        "request",
        "serverToClient",
        DiagnosticsParams,
        DiagnosticsResult,
    ),
    Method(
        "agent/navigate", "navigate", "request", "serverToClient", NavigateParams, NavigateResult
    ),
    Method("agent/prepare", "prepare", "notification", "clientToServer", PrepareParams),
    Method(
        "agent/workspaceTrust",
        "workspaceTrust",
        "notification",
        "clientToServer",
        WorkspaceTrustParams,
    ),
    Method(
        "agent/reviewDecision",
        "reviewDecision",
        "notification",
        "clientToServer",
        ReviewDecisionParams,
    ),
    Method(
        "agent/approveProgram",
        "approveProgram",
        "request",
        "serverToClient",
        ProgramApprovalParams,
        ProgramApprovalResult,
    ),
    Method(
        "agent/reviewAutoSave",
        "reviewAutoSave",
        "notification",
        "clientToServer",
        ReviewAutoSaveParams,
    ),
    Method(
        "agent/reviewDelivery",
        "reviewDelivery",
        "notification",
        "serverToClient",
        ReviewDeliveryParams,
    ),
    Method(
        "agent/modelRequest",
        "modelRequest",
        "request",
        "serverToClient",
        ModelRequestParams,
        ModelRequestResult,
    ),
    Method("agent/modelPart", "modelPart", "notification", "clientToServer", ModelPartParams),
    Method(
        "agent/countTokens",
        "countTokens",
        "request",
        "serverToClient",
        CountTokensParams,
        CountTokensResult,
    ),
    Method(
        "agent/editorModels",
        "editorModels",
        "request",
        "serverToClient",
        NoParams,
        EditorModelsResult,
    ),
)
