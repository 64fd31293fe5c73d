"""What every tool is and returns."""

from __future__ import annotations

import copy
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, get_args

from pydantic import BaseModel

from agentls.agent.events import null_observer
from agentls.agent.policy.approval import EditRequest
from agentls.agent.policy.masked_edits import check_no_mask_written
from agentls.indexer.symbol_source import no_symbols

if TYPE_CHECKING:
    from agentls.agent.cancel import CancelToken
    from agentls.agent.config.models import AgentConfig, AppConfig
    from agentls.agent.events import Observer, RunState
    from agentls.agent.exec.process import ChangesProbe, ProcessRunner
    from agentls.agent.hooks import HookRunner
    from agentls.agent.llm.protocol import LLM
    from agentls.agent.navigation import CodeNavigator
    from agentls.agent.policy.approval import Approver
    from agentls.agent.problems import ProblemSource
    from agentls.agent.sessions.recorder import SessionRecorder
    from agentls.agent.workspace import EditOutcome, FileAccess, FileChange
    from agentls.indexer.index import RepoIndex
    from agentls.indexer.symbol_source import SymbolSource


def _nobody() -> Approver:
    from agentls.agent.policy.approval import DenyingApprover

    return DenyingApprover("no one can be asked to approve this (no interactive front end)")


def _ignore_state(state: RunState) -> None:
    """A run without a state machine (a test) has nobody to report states to."""


class ToolResult(BaseModel):
    """The only thing a tool ever returns; tools never raise."""

    success: bool
    output: str
    error: str | None = None

    @classmethod
    def ok(cls, output: str) -> ToolResult:
        return cls(success=True, output=output)

    @classmethod
    def fail(cls, message: str, error: str | None = None) -> ToolResult:
        return cls(success=False, output=message, error=error or message)


@dataclass(frozen=True)
class ToolCallResult:
    """The immutable outcome of one tool call."""

    tool_name: str
    args: dict[str, Any]
    result: ToolResult
    was_confirmed: bool = True
    was_dry_run: bool = False
    timestamp: float = field(default_factory=time.time)
    call_id: str = ""


class Delegator(Protocol):
    """Who runs the run's subagents (``delegate``)."""

    async def delegate(
        self, name: str, task: str, *, wait: bool, call: ToolContext
    ) -> ToolResult: ...


@dataclass(frozen=True)
class RunContext:
    """Everything one run shares with its tools, typed, built once per run (``run_agent``
    or a test), never changed afterwards and never built by a tool.

    A tool uses what its code names: ``files`` and ``config`` always; ``index`` for
    searches; ``symbols`` for definitions and references; ``approver`` to ask the human
    (``ask_user``) and to confirm edits; ``observer`` and ``session`` to report a plan;
    ``set_state`` while a human is asked; ``cancel`` to stop early; ``llm`` to explain a
    command; ``changes_probe`` to learn what a command changed; ``process_runner`` for
    where it runs; ``problems`` for the current diagnostics.
    """

    files: FileAccess
    config: AppConfig
    run_id: str = ""
    dry_run: bool = False
    approver: Approver = field(default_factory=lambda: _nobody())
    observer: Observer = null_observer
    cancel: CancelToken | None = None
    llm: LLM | None = None
    index: RepoIndex | None = None
    #: The symbols of ``index`` (``find_symbol``, the repo map), wherever they are kept.
    symbols: SymbolSource = no_symbols
    session: SessionRecorder | None = None
    set_state: Callable[[RunState], None] = _ignore_state
    changes_probe: ChangesProbe | None = None
    #: Where commands run instead of a local (sandboxed) child process, when the front end
    #: offers it and the user asked for it; code fed on stdin always runs locally.
    process_runner: ProcessRunner | None = None
    #: Who knows the problems of the workspace's files (``get_problems``); None: nobody.
    problems: ProblemSource | None = None
    #: Who answers questions about the code by its meaning (``navigate_code``,
    #: ``rename_symbol``); None: nobody, the tree-sitter symbols answer by name.
    navigator: CodeNavigator | None = None
    #: The run's hooks (PreToolUse, PostToolUse...), None when there are none.
    hooks: HookRunner | None = None
    #: Workspace files protected beyond the fixed names, with why: what the MCP servers
    #: and hooks the user approved run or read (``agent.protected.approved_files``).
    protected_extra: Mapping[str, str] = field(default_factory=dict)
    #: Who runs the subagents the model starts (``delegate``); None: no subagents (a
    #: subagent's own context, so that it starts none).
    delegation: Delegator | None = None
    #: The folder is trusted: its own skills are offered (``load_skill``).
    trusted: bool = False


@dataclass(frozen=True)
class ToolContext:
    """One call's view of the run: the run's context (``ctx.run.files``, ``.config``,
    ``.index``...) plus what the engine decided for this call. ``confirm_edits`` is set
    when the approval policy wants the human to confirm this call and the tool changes
    files: ``apply`` then asks through the run's Approver as part of the write.
    """

    run: RunContext
    agent: AgentConfig | None = None  # the running agent's settings (sandbox, timeouts)
    call_id: str = ""
    tool: str = ""
    confirm_edits: bool = False
    #: Why the edits are confirmed, when the policy insists (a protected file).
    confirm_reason: str = ""
    confirm_insists: bool = False

    async def apply(self, changes: Sequence[FileChange]) -> EditOutcome:
        """Apply ``changes``; when this call needs confirmation, the run's Approver asks.
        Raises ``MaskedSecretEdit`` (the model is told) for a change that would write the
        mask over a secret it was shown masked, before anybody is asked."""
        check_no_mask_written(changes)
        run = self.run
        if not self.confirm_edits:
            return await run.files.apply(changes, confirm=False)
        request = EditRequest(
            run.run_id,
            self.call_id,
            self.tool,
            changes,
            reason=self.confirm_reason,
            insist=self.confirm_insists,
        )
        return await run.approver.confirm_edit(request, run.files)


ArgsT = TypeVar("ArgsT", bound=BaseModel)


#: Each arguments model's JSON schema, made once: pydantic builds it anew on every call
#: (milliseconds per tool), and every model call of every run sends all of them.
_PARAMETER_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)


def parameters_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s JSON schema without pydantic's titles (shared: copy before changing)."""
    found = _PARAMETER_SCHEMAS.get(model)
    if found is None:
        found = model.model_json_schema()
        found.pop("title", None)
        for prop in found.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
        _PARAMETER_SCHEMAS[model] = found
    return found


class Tool(ABC, Generic[ArgsT]):
    """A tool the model can call. Subclasses set the class attributes and ``run``.

    A tool names itself in its class statement and its docstring is its description:
    ``class ReadFileTool(Tool[ReadFileArgs], name="read_file"):`` followed by the text the
    model reads, so the code's documentation of a tool and the model's are one text (one
    paragraph: its line breaks and indentation fold to single spaces). A tool whose
    description is computed sets ``description`` itself.

    One convention for arguments: a tool is ``Tool[ItsArgs]``, which makes
    ``args_model`` ``ItsArgs`` (unless the tool sets it), a pydantic model with
    ``extra="forbid"`` whose JSON schema is exactly what the model sees and whose
    validation errors are what it is told. ``run`` and ``describe_for_approval``
    receive the validated ``ItsArgs``; ``auto_approval``, ``shell_command``,
    ``target_paths``, ``suggested_rule`` and ``summarize_args`` see the call's raw JSON
    object, because the policy and the progress report must work even for a call whose
    arguments do not validate.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    args_model: ClassVar[type[BaseModel]]
    sensitive: ClassVar[bool] = False
    #: Changes files through FileAccess, which can carry the confirmation itself.
    edits_files: ClassVar[bool] = False
    #: Stopped at once when the run is cancelled (a long command), rather than
    #: allowed to finish like a file edit, which is atomic and quick.
    interruptible: ClassVar[bool] = False
    #: The argument a human may rewrite when approving (a command, code), if any.
    editable_arg: ClassVar[str | None] = None

    def __init_subclass__(cls, name: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if name is not None:
            cls.name = name
            if "description" not in cls.__dict__:
                if not cls.__doc__:
                    raise TypeError(f"tool {name!r} needs a docstring: what the model reads")
                cls.description = " ".join(cls.__doc__.split())
        if "args_model" in cls.__dict__:
            return
        for base in getattr(cls, "__orig_bases__", ()):
            for arg in get_args(base):
                if isinstance(arg, type) and issubclass(arg, BaseModel):
                    cls.args_model = arg
                    return

    @abstractmethod
    async def run(self, args: ArgsT, ctx: ToolContext) -> ToolResult:
        """Do the work. Must not raise for expected failures: return ToolResult.fail."""

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema of this tool (a copy the caller may change)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(parameters_schema(self.args_model)),
            },
        }

    def auto_approval(self, args: dict[str, Any], agent: AgentConfig) -> str:
        """A reason this sensitive call may run without asking (a trusted MCP server), or ''.
        Shell commands are not judged here: the command rules are ``decide``'s."""
        return ""

    def shell_command(self, args: dict[str, Any]) -> str | None:
        """The shell command line this call runs, which the command rules judge; None
        for a tool that runs none (the default)."""
        return None

    def target_paths(self, args: dict[str, Any]) -> list[str]:
        """The paths this call would change, as written in its arguments (protected
        files are asked about in every mode); none by default."""
        return []

    def suggested_rule(self, args: dict[str, Any]) -> str | None:
        """The allow rule an "always allow" answer would save for this call, if any."""
        return None

    async def describe_for_approval(self, args: ArgsT, run: RunContext) -> tuple[str, str]:
        """(plain-words explanation, exact preview) shown when a human is asked."""
        return f"The agent wants to run {self.name}.", ""

    def summarize_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """Arguments safe and short enough to show in progress: paths and short values."""
        short: dict[str, Any] = {}
        for key, value in args.items():
            is_short_text = isinstance(value, str) and len(value) <= 80 and "\n" not in value
            if isinstance(value, bool | int | float) or value is None or is_short_text:
                short[key] = value
        return short


class FileEditingTool(Tool[ArgsT]):
    """A tool that changes files through FileAccess (``ctx.apply``): sensitive, and when
    the policy wants the human to confirm, the write itself carries the question."""

    sensitive: ClassVar[bool] = True
    edits_files: ClassVar[bool] = True


#: A tool whatever its arguments: what the registry, the engine and the policy hold.
AnyTool = Tool[Any]
