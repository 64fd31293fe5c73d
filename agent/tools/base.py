"""What every tool is and returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from agentls.agent.config import AgentConfig, AppConfig
    from agentls.agent.workspace import FileAccess


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


@dataclass
class ToolContext:
    """What a tool may use for one call. Built by the engine, never by the tool.

    ``confirm_edits`` is set when the approval policy wants the human to confirm
    this call and the tool changes files: the FileAccess then asks (a terminal
    prompt, an annotated WorkspaceEdit, a showMessageRequest) as part of the write.
    """

    files: FileAccess
    config: AppConfig
    dry_run: bool = False
    confirm_edits: bool = False
    index: Any = None  # indexer.RepoIndex-like object offering search, or None
    agent: AgentConfig | None = None  # the running agent's settings (sandbox, timeouts)
    call_id: str = ""
    run_id: str = ""
    extras: dict[str, Any] = field(default_factory=dict)


class Tool(ABC):
    """A tool the model can call. Subclasses set the class attributes and ``run``.

    ``args_model`` is a pydantic model with ``extra="forbid"``: its JSON schema is
    exactly what the model sees, and its validation errors are what it is told.
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

    @abstractmethod
    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        """Do the work. Must not raise for expected failures: return ToolResult.fail."""

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema of this tool."""
        params = self.args_model.model_json_schema()
        params.pop("title", None)
        for prop in params.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }

    def auto_approval(self, args: dict[str, Any], agent: Any) -> str:
        """A reason this sensitive call may run without asking (an allow-list match), or ''."""
        return ""

    async def describe_for_approval(self, args: Any, engine: Any) -> tuple[str, str]:
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
