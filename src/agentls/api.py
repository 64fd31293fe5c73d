"""agentls from Python: the engine the CLI runs, in this process, without a terminal.

    from agentls.api import Agent

    async with Agent("path/to/repo", approve="allow") as agent:
        run = agent.run("add type hints to utils.py")
        async for event in run:          # the engine's events (agentls.agent.events)
            ...
        result = await run.result()      # status, output, usage, session and run ids

A run works in the folder's settings (the user config, the workspace's `.agentls.yaml`
when the folder is trusted, then ``model``/``api_base`` given here), with the folder's
tools (MCP servers included) and sandbox. Whatever the policy wants a human to confirm
goes to ``approve``: ``"deny"`` (the default: nothing is confirmed, the model is told),
``"allow"`` (everything asked is confirmed), or a function given a ``Question`` that
answers True or False (it may be async). The model's own questions (``ask_user``) go to
``answer``, or it is told nobody can answer. ``Run.cancel()`` stops a run as Ctrl-C does;
``session=`` continues a stored session.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentls.agent.errors import NoTTYError
from agentls.agent.policy.approval import ApprovalAnswer, ApprovalRequest, BaseApprover

if TYPE_CHECKING:
    from agentls.agent.config.models import AppConfig, ConfirmMode
    from agentls.agent.events import AgentEvent
    from agentls.agent.folder.folder import FolderEngine
    from agentls.agent.run import RunOutcome
    from agentls.agent.workspace import EditProposal

__all__ = ["Agent", "Question", "Run"]


@dataclass(frozen=True)
class Question:
    """What a human would be asked: a tool call to run (``kind="tool"``: ``tool``, its
    ``args``, the plain-words ``text`` and the exact ``preview``) or a change to write
    (``kind="edit"``: ``paths`` and the ``preview`` diff). ``subagent`` names the subagent
    that asks (empty for the run's own agent)."""

    kind: Literal["tool", "edit"]
    text: str
    preview: str = ""
    tool: str = ""
    args: dict[str, Any] | None = None
    paths: tuple[str, ...] = ()
    subagent: str = ""


Approve = Literal["deny", "allow"] | Callable[[Question], bool | Awaitable[bool]]
AnswerQuestion = Callable[[str], str | Awaitable[str | None] | None]


async def _call(function: Callable[..., Any], value: Any) -> Any:
    answer = function(value)
    return await answer if inspect.isawaitable(answer) else answer


class _PolicyApprover(BaseApprover):
    """Asks ``approve`` what a terminal would ask its user."""

    def __init__(self, approve: Approve, answer: AnswerQuestion | None) -> None:
        self._approve = approve
        self._answer = answer

    async def yes(self, question: Question) -> bool:
        if self._approve == "allow":
            return True
        if self._approve == "deny":
            return False
        return bool(await _call(self._approve, question))

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        question = Question(
            "tool",
            request.explanation or request.reason,
            request.preview,
            tool=request.tool,
            args=dict(request.args),
            subagent=request.subagent,
        )
        if await self.yes(question):
            return ApprovalAnswer("approve")
        return ApprovalAnswer("deny", message="refused by the program running agentls")

    async def confirm(self, proposal: EditProposal) -> bool:
        paths = tuple(change.path for change in proposal.changes)
        return await self.yes(
            Question("edit", f"change {', '.join(paths)}", proposal.diff, paths=paths)
        )

    async def ask_user(self, question: str) -> str | None:
        if self._answer is None:
            raise NoTTYError("nobody answers questions in this program")
        answer: str | None = await _call(self._answer, question)
        return answer


def masked(event: Any) -> Any:
    """``event`` as it may leave agentls: every string in it through the outward pass, as
    the other front ends send theirs (a key a command printed never reaches the program)."""
    import dataclasses

    from agentls.agent.secrets import mask_outward, mask_tree

    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        return event
    changed: dict[str, Any] = {}
    for item in dataclasses.fields(event):
        value = getattr(event, item.name)
        if isinstance(value, str):
            changed[item.name] = mask_outward(value)
        elif isinstance(value, dict | list):
            changed[item.name] = mask_tree(value)
        elif dataclasses.is_dataclass(value):
            changed[item.name] = masked(value)
    return dataclasses.replace(event, **changed)


class Run:
    """One run: iterate it for its events (the iteration ends with the run), await
    ``result()`` for how it ended, ``cancel()`` to stop it."""

    def __init__(self, agent: Agent, prompt: str, options: dict[str, Any]) -> None:
        self._events: asyncio.Queue[AgentEvent | None] = asyncio.Queue()
        engine, config = agent._folder()
        ticket = engine.runs.begin(None, options.get("session_id"), options["agent"])
        self.run_id, self.session_id = ticket.run_id, ticket.session_id
        self._ticket = ticket
        self._task = asyncio.create_task(self._run(agent, engine, config, prompt, options))

    async def _run(
        self,
        agent: Agent,
        engine: FolderEngine,
        config: AppConfig,
        prompt: str,
        options: dict[str, Any],
    ) -> RunOutcome:
        from agentls.agent.run import FrontEnd, RunRequest
        from agentls.agent.workspace import DiskFileAccess

        request = RunRequest(
            prompt=prompt,
            **{k: v for k, v in options.items() if v is not None},
        ).model_copy(update={"run_id": self.run_id, "session_id": self.session_id})
        approver = agent._approver
        front_end = FrontEnd(
            DiskFileAccess(
                config.workspace.root,
                max_file_size=config.indexer.max_file_size,
                confirmer=approver.confirm,
            ),
            approver,
            observer=lambda event: self._events.put_nowait(masked(event)),
            cancel=self._ticket.token,
            trusted=engine.settings.trusted,
            messages=self._ticket.messages,
            problems=engine.language_servers(config),
            notices=engine.notices(),
            navigator=engine.navigator(config),
        )
        try:
            return await engine.run_with_own_tools(
                request, front_end, config=config, warn=agent._warn
            )
        finally:
            engine.runs.end(self.run_id)
            self._events.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[AgentEvent]:
        while True:
            event = await self._events.get()
            if event is None:
                return
            yield event

    async def result(self) -> dict[str, Any]:
        """How the run ended, as ``agentls run --json`` prints it (``RunResult``): status,
        output, usage, model, run and session ids."""
        outcome = await self._task
        return outcome.to_result()

    def cancel(self, reason: str = "cancelled by the program") -> None:
        self._ticket.token.cancel(reason)

    def send(self, text: str) -> None:
        """A message for the model while the run works (read before its next call)."""
        self._ticket.messages.send(text)


class Agent:
    """agentls on one workspace folder. Use it as an async context manager (or call
    ``aclose``): the folder's MCP servers and language servers live until then."""

    def __init__(
        self,
        workspace: str | Path,
        *,
        model: str | None = None,
        api_base: str | None = None,
        config_file: str | Path | None = None,
        approve: Approve = "deny",
        answer: AnswerQuestion | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        from agentls.agent.folder.media import TERMINAL
        from agentls.agent.folder.settings import FolderSettings, command_line_overrides
        from agentls.compose import folder_engine

        self._engine = folder_engine(TERMINAL)
        self._engine.settings = FolderSettings(
            workspace,
            config_file=config_file,
            flags=command_line_overrides(model=model, api_base=api_base),
        )
        self._approver = _PolicyApprover(approve, answer)
        self.warnings: list[str] = []
        self._warn_to = warn

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        if self._warn_to is not None:
            self._warn_to(message)

    def _folder(self) -> tuple[FolderEngine, AppConfig]:
        """The engine and the folder's config as it is now (the trust list read again:
        trusting the folder applies at the next run). A ConfigError names a bad key."""
        report = self._engine.settings.load()
        return self._engine, report.config

    def run(
        self,
        prompt: str,
        *,
        agent: str = "build",
        session: str | None = None,
        model: str | None = None,
        confirm_mode: ConfirmMode | None = None,
        max_steps: int | None = None,
        token_budget: int | None = None,
    ) -> Run:
        """Starts a run (in a new session, or continuing ``session``)."""
        options: dict[str, Any] = {
            "agent": agent,
            "session_id": session,
            "model": model,
            "confirm_mode": confirm_mode,
            "max_steps": max_steps,
            "token_budget": token_budget,
            "stream": True,
        }
        return Run(self, prompt, options)

    async def aclose(self) -> None:
        await self._engine.aclose()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
