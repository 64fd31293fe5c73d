"""One run of an agent, composed from injected parts: the front ends' entry point.

The CLI, ACP and the language server differ only in the ``FrontEnd`` they pass in: the
FileAccess (disk or the editor's buffers), the Approver (terminal or showMessageRequest),
the Observer (printing or notifications) and what they keep between runs (the language
server's live index). What lasts across runs of a folder (MCP connections, language
servers, worktrees, notices) is its ``agent.folder.FolderEngine``'s; the rest of a run
is composed here.

Every run belongs to a session (``agent.sessions.store``): the session's earlier turns
are the loop's ``history``, the loop writes the run's entries through a
``SessionRecorder``, and human decisions are recorded by a ``RecordingApprover``.
What tools may use (the observer, the recorder, the run's state machine, the
Approver, the index, the model) is one typed ``RunContext``, built here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentls.agent.cancel import CancelToken
from agentls.agent.checkpoints import (
    CheckpointingFiles,
    CheckpointingProbe,
    CheckpointStore,
    edited_recently,
)
from agentls.agent.checkpoints.retention import prune_sessions
from agentls.agent.config.agents import MIXED, AgentRegistry
from agentls.agent.config.model_choice import chosen_model
from agentls.agent.config.models import AgentConfig, AppConfig, HookEvent
from agentls.agent.contract import RunRequest, RunResult
from agentls.agent.delegation import ChildRun, Delegation
from agentls.agent.delegation.child_agent import DELEGATE
from agentls.agent.errors import AgentError
from agentls.agent.events import (
    InstructionsRead,
    Notice,
    Observer,
    RunState,
    StatusChanged,
    null_observer,
)
from agentls.agent.exec.process import ChangesProbe, FileSnapshotProbe, ProcessRunner
from agentls.agent.indexing import local_symbols, task_map
from agentls.agent.llm.errors import LLMSetupError
from agentls.agent.llm.model_facts import ModelFacts
from agentls.agent.llm.models import Usage
from agentls.agent.llm.protocol import LLM, CheckedLLM
from agentls.agent.loop import AgentLoop
from agentls.agent.navigation import navigation_hint
from agentls.agent.policy.approval import Approver
from agentls.agent.policy.program_approval import ProgramApprovals
from agentls.agent.prompts.slash_command_runs import DEFAULT_MODEL, PreparedRun
from agentls.agent.prompts.slash_command_runs import prepare as prepare_command
from agentls.agent.run_messages import RunMessages
from agentls.agent.run_models import RunModels
from agentls.agent.run_record import RunRecord
from agentls.agent.secrets import mask_outward, mask_tree, remember_secret_variable
from agentls.agent.sessions.recorder import RecordingApprover, SessionRecorder
from agentls.agent.sessions.store import Session, SessionStore, store_for
from agentls.agent.state_machine import RunStateMachine
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.tools.registry import ToolRegistry
from agentls.agent.workspace import FileAccess
from agentls.indexer.index import RepoIndex
from agentls.indexer.symbol_source import SymbolSource

if TYPE_CHECKING:
    from agentls.agent.context import ContextManager
    from agentls.agent.navigation import CodeNavigator
    from agentls.agent.problems import ProblemSource
    from agentls.agent.prompts.skills import Catalogue

log = logging.getLogger(__name__)

__all__ = ["FrontEnd", "RunOutcome", "RunRequest", "run_agent"]

#: The built-in agent for broad searches, and what the model is told of it.
EXPLORE = "explore"
SUBAGENTS_HINT = (
    "Subagents: for a broad search across the repository (where something is defined or "
    "used, how a feature works across many files, what a large log says), hand it to the "
    "`explore` agent with `delegate` rather than reading many files yourself: you receive "
    "only its report, which keeps your context small. Give it a self-contained task."
)

PLAN_HANDOFF = (
    "{prompt}\n\n## Plan prepared by the planning agent\n{plan}\n\n"
    "Carry out this plan. Adjust it where the code shows it is wrong."
)


@dataclass(frozen=True)
class FrontEnd:
    """What a front end hands a run: how it reaches the files (the disk, the editor's
    buffers), asks the human and shows progress, and what it keeps between runs and lends
    to this one. The CLI, ACP and the language server differ only here."""

    files: FileAccess
    approver: Approver
    observer: Observer = null_observer
    cancel: CancelToken | None = None
    #: Where the session is kept; by default ``config.sessions.dir`` in the workspace the
    #: run works on (``files.root``, never the process's current directory).
    sessions: SessionStore | None = None
    #: Where commands run instead of a local child process (an editor's terminals).
    process_runner: ProcessRunner | None = None
    #: The workspace's index: searches, the project tree and the repo map.
    index: RepoIndex | None = None
    #: The index's symbols when the front end keeps them (the server: in a child
    #: process); by default they are kept in this process.
    symbols: SymbolSource | None = None
    #: The run's tools; by default the built-in ones (``build_registry``).
    registry: ToolRegistry | None = None
    #: What a command changed (a live index); by default the workspace is snapshot.
    changes_probe: ChangesProbe | None = None
    #: What happened to the run's edits meanwhile (the user's decisions in an editor that
    #: reviews edits while the run goes on), given to the model before each of its calls.
    inbox: Callable[[], Sequence[str]] | None = None
    #: Paths open in the editor: they rank higher in the run's repo map.
    open_documents: tuple[str, ...] = ()
    #: What the user must hear at the start of the run (an untrusted folder's ignored
    #: settings, a missing sandbox), as warnings through the observer.
    notices: tuple[str, ...] = ()
    #: The folder's approvals of the programs its workspace declares (hooks, MCP servers):
    #: what the user refused is not asked again while it lives. None: one for this run.
    #: The questions go to ``approver`` (``Approver.approve_program``).
    approvals: ProgramApprovals | None = None
    #: What the user sends the run while it works (None: the front end cannot).
    messages: RunMessages | None = None
    #: The folder is trusted: a workspace prompt file may then choose the model.
    trusted: bool = False
    #: Model access for another config's model (a command's ``model``); None: the run
    #: keeps the model it was given.
    llm_for: Callable[[AppConfig], LLM] | None = None
    #: Who knows the problems of the files (the editor, or language servers the front end
    #: started): an edit's result then names the problems it introduced.
    problems: ProblemSource | None = None
    #: Who answers questions about the code by its meaning (the language servers the
    #: front end started); None: the tree-sitter symbols answer by name.
    navigator: CodeNavigator | None = None


@dataclass
class RunOutcome:
    state: RunRecord
    run_id: str
    session_id: str
    agent: str
    #: The instruction files the model was given, in order.
    instructions: list[str] = field(default_factory=list)

    @property
    def usage(self) -> Usage:
        return self.state.usage

    def to_result(self) -> dict[str, Any]:
        """The ``agent/run`` result (``RunResult``), as it goes on the wire."""
        output = self.state.to_output_dict()
        result = RunResult(
            **output,
            run_id=self.run_id,
            session_id=self.session_id,
            usage=self.state.usage,
            instructions=self.instructions,
        )
        # What a front end shows or prints (`--json`, the LSP result): masked like the rest.
        masked: dict[str, Any] = mask_tree(result.to_wire())
        return masked


def resolve_agent(config: AppConfig, request: RunRequest) -> AgentConfig:
    agent = AgentRegistry(config).get("build" if request.agent == MIXED else request.agent)
    updates: dict[str, Any] = {}
    if request.confirm_mode is not None:
        updates["confirm_mode"] = request.confirm_mode
    if request.max_steps is not None:
        updates["max_steps"] = request.max_steps
    if request.tools is not None:
        # A command narrows the agent's tools; it never adds one the agent lacks.
        allowed = agent.allowed_tools
        narrowed = [t for t in request.tools if not allowed or t in allowed]
        updates["allowed_tools"] = narrowed or ["(none)"]
    return agent.model_copy(update=updates)


async def run_agent(
    request: RunRequest,
    front_end: FrontEnd,
    *,
    config: AppConfig,
    llm: LLM,
    history: list[dict[str, Any]] | None = None,
) -> RunOutcome:
    """Run ``request`` to the end with the parts ``front_end`` hands it. Never raises for a
    failure of the run itself: errors become a ``failed`` state with a message; only
    cancellation of the calling task propagates. ``history=None`` continues the session's
    conversation."""
    outcome = await _run_to_the_end(request, front_end, config=config, llm=llm, history=history)
    _close_mailbox(front_end.messages, outcome.run_id, outcome.state, front_end.observer)
    return outcome


async def _run_to_the_end(
    request: RunRequest,
    front_end: FrontEnd,
    *,
    config: AppConfig,
    llm: LLM,
    history: list[dict[str, Any]] | None,
) -> RunOutcome:
    from agentls.agent.context import ContextManager

    run_id = request.run_id or uuid.uuid4().hex[:12]
    session_id = request.session_id or uuid.uuid4().hex[:12]
    files, observer = front_end.files, front_end.observer
    remember_secret_variable(config.llm.api_key_env)
    for notice in front_end.notices:
        observer(Notice("warning", notice))
    try:
        store = front_end.sessions or store_for(files.root, config.sessions.dir)
        prepared = await prepare_command(
            request,
            config,
            root=files.root,
            trusted=front_end.trusted,
            known_tools=(front_end.registry or build_registry(config)).names(),
        )
    except AgentError as exc:  # where the session would be kept is refused; a bad command
        return RunOutcome(_failed(config, exc, observer), run_id, session_id, request.agent)
    for note in prepared.notes:
        observer(Notice("warning", note))
    if prepared.action == "clear":
        return _cleared(config, run_id, request.agent, observer)
    request = prepared.request
    try:
        session = store.open(session_id)
        agent = resolve_agent(config, request)
    except AgentError as exc:  # a session id that names no file; an unknown agent
        return RunOutcome(_failed(config, exc, observer), run_id, session_id, request.agent)
    if not session.entries:
        # A new session: the folder keeps the most recent ``sessions.keep``.
        await asyncio.to_thread(prune_sessions, store, config.sessions.keep, starting=session_id)
    if prepared.action in ("show_model", "switch_model"):
        return await _model_command(prepared, session, config, agent, run_id, observer)
    models = RunModels(
        config,
        llm,
        front_end.llm_for,
        run=request.model,
        session=session.model_choice(),
        warn=lambda message: observer(Notice("warning", message)),
    )
    # The run's config names the model of the agent that acts (in mixed mode, the
    # builder); the planner's loop gets its own model access from ``models``.
    config, llm = models.access(agent)
    try:
        facts = await _model_checked(llm)
    except AgentError as exc:  # no key, an unknown model...: said before any call
        return RunOutcome(_failed(config, exc, observer), run_id, session_id, request.agent)
    if prepared.action == "compact":
        return await _compacted(session, config, llm, request, run_id, session_id, observer)
    recorder: SessionRecorder | None = None
    problems = front_end.problems if config.diagnostics.enabled else None
    context = RunContext(
        files=_checking(files, problems, config, observer),
        config=config,
        run_id=run_id,
        dry_run=request.dry_run,
        approver=front_end.approver,
        observer=observer,
        cancel=front_end.cancel or CancelToken(),
        llm=llm,
        index=front_end.index,
        symbols=front_end.symbols or local_symbols(front_end.index),
        changes_probe=front_end.changes_probe,
        process_runner=front_end.process_runner,
        problems=problems,
        trusted=front_end.trusted,
        navigator=front_end.navigator,
    )
    run = _Run(
        request,
        context,
        llm,
        front_end.registry or build_registry(config),
        ContextManager(config.context, token_counter=llm.count_tokens),
        models,
        inbox=front_end.inbox,
        open_documents=front_end.open_documents,
        messages=front_end.messages,
        model_facts=facts,
    )
    try:
        recorder = SessionRecorder(session, run_id, agent=request.agent)
        # Every write of the run keeps the file's previous bytes, so the run can be undone.
        run.keep_checkpoints(CheckpointStore.for_session(store, session_id))
        run.record_in(recorder, recorder.history() if history is None else history)
        await run.read_instructions(recorder.earlier_instructions())
        await run.attach()
        if front_end.trusted:
            await _ask_about_hooks(front_end, Path(context.files.root))
        run.load_hooks(trusted=front_end.trusted, session_id=session_id)
        await run.protect_approved_files(trusted=front_end.trusted)
        run.allow_subagents()
        await recorder.start(request.prompt, run.instruction_labels, model=run.first_model())
        state = await run.to_the_end()
    except AgentError as exc:  # a refusal with a message: no traceback to log
        log.warning("run %s failed: %s", run_id, exc)
        state = _failed(config, exc, observer)
    except Exception as exc:  # the run fails; the front end must not see a traceback
        log.exception("run %s failed", run_id)
        state = _failed(config, exc, observer)
    finally:
        await run.close_subagents()
    if recorder is not None and not run.ended_after_planning:
        await _record_finish(recorder, state, run, observer)
    return RunOutcome(state, run_id, session_id, request.agent, run.instruction_labels)


async def _ask_about_hooks(front_end: FrontEnd, root: Path) -> None:
    """The workspace's hook files that wait for approval, asked about (only in a trusted
    folder: an untrusted one's hooks never run); an approval is stored, so the run then
    obeys them. Refused or unanswered, they stay off, and the run's notice says so."""
    from agentls.agent.hooks import hooks_waiting

    waiting = await asyncio.to_thread(hooks_waiting, root)
    if waiting:
        approvals = front_end.approvals or ProgramApprovals()
        await approvals.ask_each(waiting, front_end.approver)


def _checking(
    files: FileAccess, problems: ProblemSource | None, config: AppConfig, observer: Observer
) -> FileAccess:
    """``files``, reporting the problems each edit introduced when someone knows them."""
    if problems is None:
        return files
    from agentls.agent.problems import ProblemCheckingFiles

    settings = config.diagnostics
    wait = settings.wait_ms / 1000
    return ProblemCheckingFiles(
        files, problems, wait=wait, limit=settings.max_problems, observer=observer
    )


def _close_mailbox(
    messages: RunMessages | None, run_id: str, state: RunRecord, observer: Observer
) -> None:
    """No message reaches an ended run; one the model never read is named to the user."""
    if messages is None:
        return
    unread = messages.close(f"run {run_id} has ended ({state.status})")
    if unread:
        texts = "; ".join(repr(m.text[:80]) for m in unread)
        observer(
            Notice(
                "warning",
                f"the run ended ({state.status}) before the model read your message(s): {texts}",
            )
        )


def _cleared(config: AppConfig, run_id: str, agent: str, observer: Observer) -> RunOutcome:
    """``/clear``: a new conversation, nothing run; the outcome names the new session."""
    session_id = uuid.uuid4().hex[:12]
    state = RunRecord(messages=[], model=None)
    state.finish("success", f"Started a new conversation (session {session_id}).")
    observer(StatusChanged(RunState.COMPLETED, ""))
    return RunOutcome(state, run_id, session_id, agent)


async def _compacted(
    session: Session,
    config: AppConfig,
    llm: LLM,
    request: RunRequest,
    run_id: str,
    session_id: str,
    observer: Observer,
) -> RunOutcome:
    """``/compact``: the session's conversation summarised now, no agent loop."""
    from agentls.agent.context.session_compaction import compact_session

    state = RunRecord(messages=[], model=config.llm.model)
    try:
        recorder = SessionRecorder(session, run_id, agent=request.agent)
        state.finish("success", await compact_session(recorder, llm))
    except Exception as exc:
        log.warning("run %s: /compact failed: %s", run_id, exc)
        state = _failed(config, exc, observer)
    else:
        observer(StatusChanged(RunState.COMPLETED, ""))
    return RunOutcome(state, run_id, session_id, request.agent)


async def _model_command(
    prepared: PreparedRun,
    session: Session,
    config: AppConfig,
    agent: AgentConfig,
    run_id: str,
    observer: Observer,
) -> RunOutcome:
    """``/model``: the session's model named; ``/model <id>``: the session's next runs
    use ``id`` (the choice is stored in the session, so a restart keeps it)."""
    request = prepared.request
    try:
        if prepared.action == "switch_model":
            recorder = SessionRecorder(session, run_id, agent=request.agent)
            await recorder.model_choice(prepared.model)
    except AgentError as exc:
        return RunOutcome(_failed(config, exc, observer), run_id, session.id, request.agent)
    choice = session.model_choice()
    model = chosen_model(config, agent, run=None, session=choice)
    if choice is not None:
        why = "chosen for this session with /model"
    elif agent.model:
        acting = "build" if request.agent == MIXED else request.agent
        why = f"the {acting} agent's model"
    else:
        why = "llm.model of the settings"
    switched = prepared.action == "switch_model"
    said = "Switched: the session's model is now" if switched else "This session's model is"
    lines = [f"{said} {model} ({why})."]
    if request.model and request.model != model:
        lines.append(
            f"A run that names its own model uses it instead (this request named {request.model})."
        )
    lines.append(
        "List the models you can use with `agentls models` (or the editor's model picker); "
        f"switch with /model <id>, back to the default with /model {DEFAULT_MODEL}."
    )
    state = RunRecord(messages=[], model=model)
    state.finish("success", "\n".join(lines))
    observer(StatusChanged(RunState.COMPLETED, ""))
    return RunOutcome(state, run_id, session.id, request.agent)


async def _model_checked(llm: LLM) -> ModelFacts | None:
    """What is known of the run's model, asked of the LLM before any call when it can
    tell (``CheckedLLM``): LLMSetupError when the model cannot be called at all (no key,
    an unknown id, no tool calling, its local server down). A check that fails for
    another reason does not stop the run: the call itself will say what is wrong."""
    if not isinstance(llm, CheckedLLM):
        return None
    try:
        return await llm.check()
    except LLMSetupError:
        raise
    except Exception:
        log.warning("the model could not be checked before the run", exc_info=True)
        return None


def _failed(config: AppConfig, exc: Exception, observer: Observer) -> RunRecord:
    state = RunRecord(messages=[], model=config.llm.model)
    # A model that cannot be called is the user's to fix: the message alone says how.
    output = str(exc) if isinstance(exc, LLMSetupError) else f"{type(exc).__name__}: {exc}"
    state.finish("failed", output)
    observer(Notice("error", str(exc)))
    observer(StatusChanged(RunState.FAILED, str(exc)))
    return state


@dataclass
class _Run:
    """One request's loops (one, or the planner's then the builder's in mixed mode, then
    any self-evaluation retries), all sharing the run's context."""

    request: RunRequest
    context: RunContext
    llm: LLM
    registry: ToolRegistry
    context_manager: ContextManager
    #: The model each loop answers on (in mixed mode the planner's may differ).
    models: RunModels
    inbox: Callable[[], Sequence[str]] | None = None
    open_documents: tuple[str, ...] = ()
    messages: RunMessages | None = None
    #: What litellm knows of the run's model (None: nothing, or not asked).
    model_facts: ModelFacts | None = None
    #: Image parts for the first model call (the user's attachments).
    images: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    #: Computed once per run, so every step sends the same bytes (prompt caches).
    repo_map: str = ""
    #: Where the session keeps what its runs changed (None when the run keeps no session).
    checkpoints: CheckpointStore | None = None
    last_state: RunState = RunState.IDLE
    #: Mixed mode stopped after an unsuccessful plan (its run has no finish entry).
    ended_after_planning: bool = False
    #: The project's instructions for the system prompt, read once at the start.
    instructions: str = ""
    instruction_labels: list[str] = field(default_factory=list)
    #: The subagents the model starts (None: the run offers none).
    delegation: Delegation | None = None
    #: The skills' catalogue for the system prompt, made once per run.
    skills: Catalogue | None = None

    def first_model(self) -> str:
        """The model the run starts on: in mixed mode the planner's."""
        if self.request.agent != MIXED:
            return self.context.config.llm.model
        return self.models.access(AgentRegistry(self.context.config).get("plan"))[0].llm.model

    def keep_checkpoints(self, store: CheckpointStore) -> None:
        """Before the run changes a file (a tool's write, or a command the probe sees),
        keep its previous bytes and mode in ``store``."""
        self.checkpoints = store
        ctx = self.context
        files = CheckpointingFiles(ctx.files, store, ctx.run_id)
        indexer = ctx.config.indexer
        inner = ctx.changes_probe or FileSnapshotProbe(files.root, indexer)
        probe = CheckpointingProbe(inner, files, indexer, ctx.index)
        self.context = dataclasses.replace(ctx, files=files, changes_probe=probe)

    async def read_instructions(self, earlier: Sequence[str] = ()) -> None:
        """The project's instruction files for this run (and the ``earlier`` runs of the
        session read again), and a watch on the files the run reaches, whose own
        instruction files join the conversation as it goes."""
        from agentls.agent.prompts.instructions import ReachedFiles, discover

        ctx, request = self.context, self.request
        root = Path(ctx.files.root)
        hint = _active_path(root, request.active_file)
        touched = [p for p in (_relative(root, hint),) if p]
        found, tracker = await asyncio.to_thread(
            discover,
            root,
            run_dir=hint,
            touched=touched,
            budget=ctx.config.context.instructions_bytes,
            indexer=ctx.config.indexer,
        )
        for label in earlier:
            if label not in found.labels:
                found.files += await asyncio.to_thread(tracker.include, label)
        for problem in found.problems:
            ctx.observer(Notice("warning", problem))
        self.instructions = found.render()
        self.instruction_labels = found.labels
        if found.labels:
            ctx.observer(InstructionsRead(list(found.labels)))
        self.context = dataclasses.replace(ctx, files=ReachedFiles(ctx.files, tracker))
        front_inbox = self.inbox

        def inbox() -> Sequence[str]:
            notes = list(front_inbox()) if front_inbox is not None else []
            joined = tracker.take_message()
            if joined is not None:
                new = [f.label for f in tracker.given if f.label not in self.instruction_labels]
                self.instruction_labels += new
                ctx.observer(InstructionsRead(new, joined=True))
                notes.append(joined)
            return notes

        self.inbox = inbox

    def record_in(self, recorder: SessionRecorder, history: list[dict[str, Any]]) -> None:
        """Write through ``recorder``; every human decision too."""
        self.history = history
        self.context = dataclasses.replace(
            self.context,
            session=recorder,
            approver=RecordingApprover(self.context.approver, recorder),
        )

    async def attach(self) -> None:
        """The request's attachments, read now: a bad one fails the run before any model
        call (AttachmentError names it); text joins the prompt, images go with it."""
        from agentls.agent.prompts.attachments import attach

        request, ctx = self.request, self.context
        if not request.attachments:
            return
        wants_images = any(a.kind == "image" for a in request.attachments)
        vision = await self._sees_images() if wants_images else False
        attached = await attach(
            request.attachments,
            ctx.files,
            symbols=ctx.symbols,
            problems=ctx.problems,
            problems_wait=ctx.config.diagnostics.wait_ms / 1000,
            sees_images=vision,
        )
        for notice in attached.notices:
            ctx.observer(Notice("warning", notice))
        self.images = attached.images
        self.request = request.model_copy(update={"prompt": attached.prompt_with(request.prompt)})
        ctx.observer(Notice("info", "Attached: " + ", ".join(attached.labels)))

    async def _sees_images(self) -> bool:
        """Whether the run's model takes images: the config's word, else what its check
        learned (an LLM that checks leaves litellm to its own process), else litellm."""
        from agentls.agent.prompts.attachments import sees_images

        settings = self.context.config.llm
        if settings.vision is not None:
            return settings.vision
        if isinstance(self.llm, CheckedLLM):
            facts = self.model_facts
            return bool(facts is not None and facts.images)
        return await asyncio.to_thread(sees_images, settings.model, settings.vision)

    def load_hooks(self, *, trusted: bool, session_id: str) -> None:
        """The run's hooks: the user's, and the workspace's once trusted and approved."""
        from agentls.agent.hooks import HookRunner, load_hooks

        ctx = self.context
        root = Path(ctx.files.root)
        loaded = load_hooks(ctx.config, root, trusted=trusted)
        for notice in loaded.notices:
            ctx.observer(Notice("warning", notice))
        if not loaded.sources:
            return
        agent = resolve_agent(ctx.config, self.request)
        from agentls.agent.exec.sandbox import sandbox_wrapper

        runner = HookRunner(loaded.sources, root, session_id, wrap=sandbox_wrapper(root, agent))
        self.context = dataclasses.replace(ctx, hooks=runner)

    async def protect_approved_files(self, *, trusted: bool) -> None:
        """The workspace files the approved MCP servers and hooks run or read become
        protected paths for the run: changing one would change what runs as the user."""
        from agentls.agent.program_files import protected_by_approvals

        ctx = self.context
        extra = await asyncio.to_thread(
            protected_by_approvals, ctx.config, Path(ctx.files.root), trusted=trusted
        )
        if extra:
            self.context = dataclasses.replace(ctx, protected_extra=extra)

    def allow_subagents(self) -> None:
        """Lets the model start subagents (``delegate``), whose reports of background
        work reach it through the inbox."""
        ctx = self.context
        if not ctx.config.subagents.enabled or not self.registry.has_tool(DELEGATE):
            return
        self.delegation = delegation = Delegation(
            _ChildLoops(self),
            config=ctx.config,
            known_tools=self.registry.names(),
            session=ctx.session,
        )
        self.context = dataclasses.replace(ctx, delegation=delegation)
        front_inbox = self.inbox

        def inbox() -> Sequence[str]:
            notes = list(front_inbox()) if front_inbox is not None else []
            return [*notes, *delegation.take_reports()]

        self.inbox = inbox

    async def close_subagents(self) -> None:
        if self.delegation is not None:
            await self.delegation.aclose()

    async def system_prompt(self, agent: AgentConfig) -> str:
        """``agent``'s prompt with what the run adds to it (the word on subagents, the
        project's instructions, the skills' catalogue): the same bytes on every step (prompt
        caches)."""
        parts = [agent.system_prompt]
        tools = agent.allowed_tools
        delegates = self.delegation is not None and (not tools or DELEGATE in tools)
        if delegates and AgentRegistry(self.context.config).exists(EXPLORE):
            # How the agent works, so next to its own prompt, before the project's words.
            parts.append(SUBAGENTS_HINT)
        navigation = navigation_hint(self.context.navigator, list(tools))
        if navigation:
            parts.append(navigation)
        if self.instructions:
            parts.append(self.instructions)
        catalogue = await self.skills_catalogue(agent)
        if catalogue:
            parts.append(catalogue)
        return "\n\n".join(parts)

    async def _prompt_hooks(self, prompt: str) -> str:
        """SessionStart and UserPromptSubmit: the prompt with what they add; HookBlocked
        when a UserPromptSubmit hook refuses it."""
        hooks, observer = self.context.hooks, self.context.observer
        if hooks is None:
            return prompt
        added: list[str] = []
        events: list[tuple[HookEvent, dict[str, Any]]] = [
            ("SessionStart", {"source": "startup"}),
            ("UserPromptSubmit", {"prompt": prompt}),
        ]
        for event, payload in events:
            outcome = await hooks.run(event, payload)
            for problem in outcome.problems:
                observer(Notice("warning", problem))
            if outcome.blocked:
                raise HookBlocked(f"a {event} hook refused the prompt: {outcome.reason}")
            # A hook's output is a program's output, like a tool result: masked for the model.
            added += [mask_outward(text) for text in outcome.context]
        if not added:
            return prompt
        return prompt + "\n\n[Context from the project's hooks]\n" + "\n\n".join(added)

    async def to_the_end(self) -> RunRecord:
        request, config = self.request, self.context.config
        try:
            prompt = await self._prompt_hooks(request.prompt)
        except HookBlocked as exc:
            state = RunRecord(messages=[], model=config.llm.model)
            state.finish("failed", str(exc))
            self.context.observer(StatusChanged(RunState.FAILED, str(exc)))
            return state
        if prompt != request.prompt:
            self.request = request = request.model_copy(update={"prompt": prompt})
        stream = config.llm.stream if request.stream is None else request.stream
        agent = resolve_agent(config, request)
        store = self.checkpoints
        edited = await asyncio.to_thread(edited_recently, store) if store is not None else []
        self.repo_map = await task_map(
            self.context.symbols, config, request.prompt, self.open_documents, edited
        )
        if request.agent != MIXED:
            state = await self.loop(request.prompt, agent, streaming=stream)
            state.usage = state.usage.add(self._children_usage())
        else:
            planner = AgentRegistry(config).get("plan")
            plan_state = await self.loop(request.prompt, planner, streaming=False)
            cancel = self.context.cancel
            if plan_state.status != "success" or (cancel is not None and cancel.cancelled):
                self.ended_after_planning = True
                return plan_state
            prompt = PLAN_HANDOFF.format(prompt=request.prompt, plan=plan_state.final_output)
            state = await self.loop(prompt, agent, streaming=stream)
            state.usage = state.usage.add(plan_state.usage).add(self._children_usage())
        return await _self_evaluate(request, config, self.llm, state, self.loop, agent)

    def _children_usage(self) -> Usage:
        """What the subagents spent so far, counted once in the run's total."""
        if self.delegation is None:
            return Usage()
        spent, self.delegation.usage = self.delegation.usage, Usage()
        return spent

    async def skills_catalogue(self, agent: AgentConfig) -> str:
        """The skills' catalogue for ``agent``'s system prompt ("" when it cannot call
        ``load_skill``), made once per run (its notices said then)."""
        from agentls.agent.prompts.skills import run_catalogue

        ctx, tools = self.context, agent.allowed_tools
        if not ctx.config.skills.enabled or "load_skill" not in self.registry.names():
            return ""
        if tools and "load_skill" not in tools:
            return ""
        if self.skills is None:
            root = Path(ctx.files.root)
            self.skills = await asyncio.to_thread(
                run_catalogue, root, ctx.config, trusted=ctx.trusted
            )
            for notice in self.skills.notices:
                ctx.observer(Notice("warning", notice))
        return self.skills.text

    def _tree(self) -> str | None:
        """The project tree and the run's repo map, for the system prompt."""
        index = self.context.index
        tree = index.format_tree() if index is not None else None
        return "\n\n".join(part for part in (tree, self.repo_map) if part) or None

    async def loop(self, prompt: str, agent: AgentConfig, *, streaming: bool) -> RunRecord:
        from agentls.agent.context import ContextBuilder

        ctx, config = self.context, self.context.config
        # This agent's model (in mixed mode the planner's may differ from the run's).
        answering, llm = self.models.access(agent)
        model = answering.llm.model
        machine = RunStateMachine(ctx.observer, model=model)
        index = ctx.index
        agent = agent.model_copy(update={"system_prompt": await self.system_prompt(agent)})
        delegation = self.delegation
        loop = AgentLoop(
            llm,
            # awaiting_human while a human is asked
            ExecutionEngine(self.registry, dataclasses.replace(ctx, set_state=machine.to)),
            agent,
            ContextBuilder(config.context, tree=self._tree if index is not None else None),
            observer=ctx.observer,
            cancel=ctx.cancel,
            step_timeout=self.request.step_timeout,
            context_manager=self.context_manager,
            stream=streaming,
            parallel_tools=config.context.parallel_tools,
            model_name=model,
            session=ctx.session,
            machine=machine,
            inbox=self.inbox,
            messages=self.messages,
            token_budget=self.request.token_budget,
            background=delegation.wait_background if delegation is not None else None,
        )
        try:
            return await loop.run(prompt, history=self.history, images=self.images)
        finally:
            self.last_state = loop.machine.state


class _ChildLoops:
    """Composes a subagent's loop from its run's parts: the same files (and so the same
    review and checkpoints), hooks, index and cancellation; its own model, conversation,
    context manager and state; no session of its own (the parent's records the report)
    and no subagents of its own."""

    def __init__(self, run: _Run) -> None:
        self._run = run

    def model_for(self, agent: AgentConfig) -> str:
        run = self._run
        return run.models.child_model(agent, run.context.config.llm.model)

    async def run(self, child: ChildRun) -> RunRecord:
        if child.agent.isolation != "worktree":
            return await self._loop(child, self._run.context)
        from agentls.agent.delegation.worktree_child import ChildWorktree
        from agentls.agent.indexing import build_index

        ctx = self._run.context
        apart = await ChildWorktree.open(Path(ctx.files.root))
        config = apart.config_for(ctx.config)
        index = await build_index(config)
        in_worktree = dataclasses.replace(
            ctx,
            files=apart.files(),
            config=config,
            index=index,
            symbols=local_symbols(index),
            # What the user's tree knows (its live index, the editor's problems and
            # terminals) is not the worktree's.
            changes_probe=None,
            process_runner=None,
            problems=None,
            navigator=None,
            protected_extra={},
        )
        child = dataclasses.replace(child, approver=apart.approver(child.approver))
        record = await self._loop(child, in_worktree)
        where = await apart.finish(child.name, child.task)
        record.final_output = f"{record.final_output or ''}\n\n{where}".strip()
        return record

    async def _loop(self, child: ChildRun, ctx: RunContext) -> RunRecord:
        from agentls.agent.context import ContextBuilder, ContextManager

        run = self._run
        model = self.model_for(child.agent)
        config, llm = run.models.access_model(model)
        config = config.model_copy(update={"workspace": ctx.config.workspace})
        machine = RunStateMachine(child.observer, model=model)
        child_ctx = dataclasses.replace(
            ctx,
            config=config,
            llm=llm,
            observer=child.observer,
            approver=child.approver,
            session=None,
            set_state=machine.to,
            delegation=None,
        )
        prompt = await run.system_prompt(child.agent)
        agent = child.agent.model_copy(update={"system_prompt": prompt})
        tree = run._tree if ctx.index is run.context.index else _tree_of(ctx.index)
        loop = AgentLoop(
            llm,
            ExecutionEngine(run.registry, child_ctx),
            agent,
            ContextBuilder(config.context, tree=tree if ctx.index is not None else None),
            observer=child.observer,
            cancel=ctx.cancel,
            step_timeout=run.request.step_timeout,
            context_manager=ContextManager(config.context, token_counter=llm.count_tokens),
            # Nobody reads a child's text as it is written: only its report reaches the
            # parent.
            stream=False,
            parallel_tools=config.context.parallel_tools,
            model_name=model,
            machine=machine,
            token_budget=config.subagents.token_budget,
        )
        return await loop.run(child.task)


def _tree_of(index: RepoIndex | None) -> Callable[[], str | None]:
    return lambda: index.format_tree() if index is not None else None


class HookBlocked(AgentError):
    """A hook refused the user's prompt; the run does not start."""


def _active_path(root: Path, active: str | None) -> Path | None:
    """The file or folder a run is about, as a path (absolute, or relative to ``root``)."""
    if not active:
        return None
    path = Path(active)
    return path if path.is_absolute() else root / path


def _relative(root: Path, path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


async def _record_finish(
    recorder: SessionRecorder, state: RunRecord, run: _Run, observer: Observer
) -> None:
    """The run's last entry. If even that cannot be written, the run is failed."""
    try:
        await recorder.finish(
            state.status, run.last_state.value, state.final_output or "", run.instruction_labels
        )
    except Exception as exc:
        log.warning("run %s: %s", recorder.run_id, exc)
        if state.status != "failed":
            state.finish("failed", f"Run stopped: {exc}")
            observer(Notice("error", str(exc)))


async def _self_evaluate(
    request: RunRequest,
    config: AppConfig,
    llm: LLM,
    state: RunRecord,
    one_run: Any,
    agent: AgentConfig,
) -> RunRecord:
    mode = request.self_eval or config.evaluation.mode
    if mode == "off" or state.status != "success":
        return state
    from agentls.agent.evaluator import SelfEvaluator, apply_self_eval

    evaluator = SelfEvaluator(
        llm,
        max_retries=config.evaluation.max_retries,
        confidence_threshold=config.evaluation.confidence_threshold,
    )

    async def rerun(prompt: str) -> RunRecord:
        # Corrections run without streaming: nobody watches them as they are written.
        result: RunRecord = await one_run(prompt, agent, streaming=False)
        return result

    evaluated: RunRecord = await apply_self_eval(mode, evaluator, request.prompt, state, rerun)
    return evaluated
