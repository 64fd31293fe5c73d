"""Who decides whether a tool call may run, and the one place a human is asked.

One function, ``decide``, makes the policy decision for every tool call (as codex
does): ``skip`` (run it), ``needs_approval`` (ask a human first) or ``forbidden``.
The loop asks it too before it runs a batch of calls in parallel. The precedence:

1. a tool the agent may not use is forbidden;
2. a shell command (``Tool.shell_command``) a deny rule matches is forbidden, in every
   mode; one an ask rule matches, or that cannot be checked against the deny and ask
   rules, is asked about in every mode (``agent.policy.command_rules``);
3. a change to a protected file (``Tool.target_paths``, ``agent.protected.edits``) is
   asked about in every mode;
4. ``yolo`` runs the rest; then what the human allowed for this run; ``confirm-all``
   asks about the rest;
5. under ``confirm-sensitive`` a sensitive call asks unless an allow rule covers its
   command (and commands run sandboxed: without a sandbox no rule skips the question)
   or the tool vouches for it (``Tool.auto_approval``: a trusted MCP server).

A decision made under 2 or 3 *insists*: "allow for this run" (and a front end's own
"always allow") does not skip it.

An ``Approver`` is every question a run puts to the human, whatever the UI:

- ``ask``: may this tool call run (a terminal y/n, an LSP ``window/showMessageRequest``);
- ``confirm_edit``: may this change be made. By default the question travels with
  the edit (``FileAccess.apply(confirm=True)``), in whatever form the front end's
  FileAccess chose once for its client: annotated edits, a question before a plain
  edit, the editor's own prompt. A front end with another way (an editor that applies
  at once as pending and reports per-hunk decisions later) overrides this method;
  no tool changes;
- ``ask_user``: a free question from the model (``NoTTYError`` when nobody can answer);
- ``edit_reviewed``: the late answer to an edit that was applied as pending (an editor
  that reviews edits while the run goes on reports the user's keep/undo per hunk later,
  possibly after the run ended);
- ``approve_program``: may a program the workspace declares run (an MCP server, a file's
  hooks; ``agent.policy.program_approval``): True allows it (stored), False refuses it, None is no
  answer (it stays off, and is asked about again next time).

The run wraps its Approver in ``session_recorder.RecordingApprover``, so every decision,
edits included, becomes an ``approval_decision`` entry of the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentls.agent.errors import NoTTYError
from agentls.agent.policy.command_rules import NO_RULES, CommandRules, RuleMatch, evaluate_command
from agentls.agent.protected.edits import protected_targets
from agentls.agent.protected.paths import NO_EXTRA, Extra

if TYPE_CHECKING:
    from agentls.agent.config.models import AgentConfig
    from agentls.agent.policy.program_approval import ProgramToApprove
    from agentls.agent.workspace import EditOutcome, FileAccess, FileChange

DecisionKind = Literal["skip", "needs_approval", "forbidden"]


class JudgedTool(Protocol):
    """What ``decide`` reads of a tool (a ``tools.base.Tool`` is one): the policy sits
    below the tools, so it names the shape it needs rather than their base class."""

    @property
    def name(self) -> str: ...

    @property
    def sensitive(self) -> bool: ...

    def shell_command(self, args: dict[str, Any]) -> str | None: ...

    def target_paths(self, args: dict[str, Any]) -> list[str]: ...

    def auto_approval(self, args: dict[str, Any], agent: AgentConfig) -> str: ...


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    reason: str = ""
    #: The command rule that decided (or that would have, but for why ``reason`` says).
    rule: RuleMatch | None = None
    #: Asked whatever the mode and whatever was allowed for the run: an ask rule, a
    #: command the rules cannot check, a protected file.
    insist: bool = False
    #: Only the lack of an allow rule asks: saving one ("always allow") would skip
    #: this question next time.
    rule_would_skip: bool = False


#: Why allow rules do not skip questions when commands cannot be confined.
NO_SANDBOX = (
    "no sandbox is available (bubblewrap is not installed, or cannot start here), so the "
    "command would run unconfined and allow rules do not skip the question"
)


def decide(
    tool: JudgedTool,
    args: dict[str, Any],
    agent: AgentConfig,
    *,
    allowed_for_run: frozenset[str] = frozenset(),
    rules: CommandRules = NO_RULES,
    sandbox_available: bool = True,
    root: Path | None = None,
    extra_protected: Extra = NO_EXTRA,
) -> Decision:
    """The policy for one call (precedence in the module docstring). ``rules`` are the
    run's command rules (the agent's ``allowed_commands`` are added here);
    ``sandbox_available`` whether bubblewrap can confine commands; ``root`` the
    workspace, to see where a path the model wrote resolves; ``extra_protected`` the
    files the run protects beyond the fixed names (what approved programs run)."""
    if agent.allowed_tools and tool.name not in agent.allowed_tools:
        return Decision("forbidden", f"the agent is not allowed to use {tool.name}")
    command = tool.shell_command(args)
    evaluation = None
    if command is not None:
        evaluation = evaluate_command(command, rules.with_allow(agent.allowed_commands))
        if evaluation.verdict == "forbidden":
            return Decision("forbidden", evaluation.reason, evaluation.match)
        if evaluation.verdict == "prompt":
            return Decision("needs_approval", evaluation.reason, evaluation.match, insist=True)
    protected = protected_targets(tool.target_paths(args), root, extra_protected)
    if protected:
        return Decision(
            "needs_approval", "it changes a protected file: " + "; ".join(protected), insist=True
        )
    if agent.confirm_mode == "yolo":
        return Decision("skip")
    if tool.name in allowed_for_run:
        return Decision("skip", "allowed for this run")
    if agent.confirm_mode == "confirm-all":
        return Decision("needs_approval", "confirm-all asks before every tool")
    if not tool.sensitive:
        return Decision("skip")
    unconfined = agent.sandbox != "off" and not sandbox_available
    if evaluation is not None and evaluation.verdict == "allow":
        if unconfined:
            return Decision(
                "needs_approval", f"{evaluation.reason}, but {NO_SANDBOX}", evaluation.match
            )
        return Decision("skip", evaluation.reason, evaluation.match)
    auto = tool.auto_approval(args, agent)
    if auto:
        return Decision("skip", auto)
    reason = evaluation.reason if evaluation is not None and evaluation.reason else ""
    return Decision(
        "needs_approval",
        reason or f"{tool.name} is sensitive",
        evaluation.match if evaluation is not None else None,
        rule_would_skip=command is not None and not unconfined,
    )


#: ``approve_always``: run it, and save the request's ``suggested_rule`` as an allow
#: rule of the user's config (it applies at once, for the rest of the run too).
AnswerKind = Literal["approve", "approve_run", "approve_always", "deny", "modify", "abort"]


@dataclass(frozen=True)
class ApprovalRequest:
    """What a human is asked about."""

    run_id: str
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    #: Plain-words explanation, e.g. what a shell command will do.
    explanation: str = ""
    #: The exact thing that will run or change (a command, code, a diff).
    preview: str = ""
    #: The argument a human may edit before it runs (``command``, ``code``), if any.
    editable_arg: str | None = None
    #: The allow rule an "always allow" answer would save (``pytest*``), if one fits.
    suggested_rule: str | None = None
    #: Asked whatever was allowed before (an ask rule, a protected file): a front end
    #: must not answer it from an "always" it remembers.
    insist: bool = False
    #: The subagent whose call this is (shown with the question); empty: the run's agent.
    subagent: str = ""


@dataclass(frozen=True)
class ApprovalAnswer:
    kind: AnswerKind
    #: For ``modify``: the arguments to run instead.
    args: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    #: For ``approve_always``: the rule to save (the request's ``suggested_rule``).
    rule: str = ""


@dataclass(frozen=True)
class EditRequest:
    """A change a tool call wants made that the policy says a human must confirm."""

    run_id: str
    call_id: str
    tool: str
    changes: Sequence[FileChange]
    #: Why it is asked about (a protected file), when the policy says.
    reason: str = ""
    #: Asked whatever was allowed before: a front end must not answer it from an
    #: "always" it remembers.
    insist: bool = False
    #: The subagent whose edit this is (shown with the change); empty: the run's agent.
    subagent: str = ""


@dataclass(frozen=True)
class EditReview:
    """The user's decision on part of an edit that was applied as pending."""

    run_id: str
    #: Which decision this is (a hunk at a document version): recorded once.
    call_id: str
    tool: str
    decision: str  # approve (kept), deny (undone), modify (changed by the user)
    message: str
    args: dict[str, Any] = field(default_factory=dict)


class Approver(Protocol):
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer: ...

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome: ...

    async def ask_user(self, question: str) -> str | None: ...

    async def edit_reviewed(self, review: EditReview) -> None: ...

    async def approve_program(self, program: ProgramToApprove) -> bool | None: ...


class BaseApprover:
    """Defaults every front end starts from: edits confirmed by the FileAccess, and
    nobody to answer a free question."""

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer("deny", message="no one can be asked")

    async def confirm_edit(self, request: EditRequest, files: FileAccess) -> EditOutcome:
        return await files.apply(request.changes, confirm=True)

    async def ask_user(self, question: str) -> str | None:
        raise NoTTYError("nobody can be asked here")

    async def edit_reviewed(self, review: EditReview) -> None:
        """Nothing to do by default: the recording wrapper writes it to the session."""

    async def approve_program(self, program: ProgramToApprove) -> bool | None:
        """Nobody to ask: the program stays off until approved elsewhere (``agentls mcp
        approve``, ``agentls hooks approve``), and the run's notice names the command."""
        return None


class DenyingApprover(BaseApprover):
    """For front ends that cannot ask anybody: every request is refused, with why."""

    def __init__(self, why: str) -> None:
        self.why = why

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer("deny", message=self.why)
