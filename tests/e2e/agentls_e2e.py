"""Shared fixtures and helpers for the end-to-end tests: the real server over stdio, driven by a
pytest-lsp client, against the scripted model server running in this process.

- ``scripted`` (from tests/conftest.py, shared with the unit tests): a
  ``ScriptedModelServer`` (queue turns per model name; every request the model got is
  recorded).
- ``workspace``: a fresh temp workspace (``src/app.py``, ``README.md``, a git repo).
- ``lsp``: a factory ``await lsp(caps=VSCODE, init_options=..., model="alice")`` that
  starts ``python -P -m agentls --stdio``, initializes it and returns an ``AgentClient``;
  every client started is shut down at teardown. ``folders=[a, b]`` opens a multi-root
  workspace (the first folder is the client's ``root``).
- ``VSCODE`` / ``NEOVIM``: client capabilities like those editors declare (VS Code:
  change annotations, workDoneProgress, ``experimental.agentls.askUser``; Neovim 0.7:
  none of those, but showMessage requests).

``AgentClient`` records every ``agent/*`` notification in ``events`` and answers
``window/showMessageRequest`` with ``client.approvals`` (a queue of titles, or a
callable), ``agent/askUser`` with ``client.answers`` and ``workspace/applyEdit`` by
applying the edit to its own copy of the open documents and to disk.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import model_worker_zygote
import pytest
from cattrs import Converter
from lsprotocol import types
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from agentls.agent.llm.scripted_server import ScriptedModelServer
from agentls.server.edits import apply_text_edits

REPO_ROOT = Path(__file__).resolve().parents[2]

VSCODE = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=types.WorkspaceEditClientCapabilities(
            document_changes=True,
            resource_operations=[
                types.ResourceOperationKind.Create,
                types.ResourceOperationKind.Delete,
                types.ResourceOperationKind.Rename,
            ],
            change_annotation_support=types.ChangeAnnotationsSupportOptions(groups_on_label=True),
        ),
        did_change_configuration=types.DidChangeConfigurationClientCapabilities(
            dynamic_registration=False
        ),
    ),
    window=types.WindowClientCapabilities(
        work_done_progress=True,
        show_message=types.ShowMessageRequestClientCapabilities(
            message_action_item=types.ClientShowMessageActionItemOptions(
                additional_properties_support=True
            )
        ),
    ),
    experimental={"agentls": {"askUser": True}},
)

NEOVIM = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=True,
        workspace_edit=types.WorkspaceEditClientCapabilities(
            document_changes=True,
            resource_operations=[
                types.ResourceOperationKind.Create,
                types.ResourceOperationKind.Delete,
                types.ResourceOperationKind.Rename,
            ],
        ),
    ),
    window=types.WindowClientCapabilities(
        work_done_progress=False,
        show_message=types.ShowMessageRequestClientCapabilities(
            message_action_item=types.ClientShowMessageActionItemOptions(
                additional_properties_support=False
            )
        ),
    ),
)

CLIENTS = {"vscode": VSCODE, "neovim": NEOVIM}

APP_PY = 'def greet(name):\n    return f"hello {name}"\n'


def git(cwd: Path, *args: str) -> str:
    """``git args`` in ``cwd`` as a test's user (commits need a name); its output."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


#: The socket of this test process's model worker zygote (model_worker_zygote.py), once
#: the ``worker_zygote`` fixture started it; None: servers start their worker themselves.
_zygote_socket: str | None = None


def server_env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": os.pathsep.join(
            [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        ),
    }
    if _zygote_socket is not None:
        env["AGENTLS_MODEL_WORKER_COMMAND"] = model_worker_zygote.command(_zygote_socket)
    env.update(extra)
    return env


@pytest.fixture
def worker_started_by_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests of the model worker's own start and life: no zygote."""
    monkeypatch.setattr(sys.modules[__name__], "_zygote_socket", None)


@pytest.fixture(scope="session", autouse=True)
def worker_zygote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Model workers forked from one process that imported litellm, for every server
    this test process starts (see model_worker_zygote.py)."""
    global _zygote_socket
    path = str(tmp_path_factory.mktemp("zygote") / "workers.sock")
    zygote = subprocess.Popen(
        [sys.executable, "-P", model_worker_zygote.__file__, "serve", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=server_env(),
    )
    assert zygote.stdout is not None
    ready = zygote.stdout.readline()  # after litellm's import: seconds
    if ready.strip() == b"READY":
        _zygote_socket = path
    try:
        yield
    finally:
        _zygote_socket = None
        zygote.kill()
        zygote.wait()
        zygote.stdout.close()


def server_command() -> list[str]:
    return [sys.executable, "-P", "-m", "agentls", "--stdio"]


Responder = Callable[[types.ShowMessageRequestParams], str | None]


class AgentClient(LanguageClient):
    """A pytest-lsp client that records agentls notifications and answers its requests."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.event_times: list[float] = []
        self.approvals: list[str | None] | Responder = []
        self.approval_requests: list[types.ShowMessageRequestParams] = []
        self.approval_asked = asyncio.Event()
        self.answers: list[str | None] = []
        self.questions: list[dict[str, Any]] = []
        self.edits: list[Any] = []
        #: How to answer each workspace/applyEdit in turn (True: apply; False: the user
        #: rejects it); when empty every edit is applied.
        self.edit_answers: list[bool] = []
        self.root: Path | None = None
        #: The server's answer to ``initialize``.
        self.init_result: types.InitializeResult | None = None
        self.docs: dict[str, tuple[int, str]] = {}
        #: ``agent/approveProgram`` of an MCP server: the answer per server name (default:
        #: not allowed).
        self.mcp_answers: dict[str, bool] = {}
        self.mcp_requests: list[dict[str, Any]] = []
        #: ``agent/approveProgram`` of a file's hooks: the answers in turn (default: not
        #: allowed).
        self.hooks_answers: list[bool] = []
        self.hooks_requests: list[dict[str, Any]] = []

    # -- notifications ----------------------------------------------------------------
    def of(self, method: str, run_id: str | None = None) -> list[dict[str, Any]]:
        return [
            p
            for m, p in self.events
            if m == method and (run_id is None or p.get("runId") == run_id)
        ]

    def streamed(self, run_id: str) -> str:
        return "".join(p["text"] for p in self.of("agent/stream", run_id))

    def states(self, run_id: str) -> list[str]:
        return [p["state"] for p in self.of("agent/status", run_id)]

    async def wait_for(
        self, predicate: Callable[[], bool], limit: float = 60.0, what: str = "condition"
    ) -> None:
        deadline = time.monotonic() + limit
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; events: {self.events[-10:]}")
            await asyncio.sleep(0.01)

    async def ping_until(
        self, ready: Callable[[dict[str, Any]], bool], what: str, limit: float = 60.0
    ) -> dict[str, Any]:
        """Poll ``agent/ping`` until ``ready(pong)``; the pong (as a dict) that was ready."""
        deadline = time.monotonic() + limit
        while True:
            pong: dict[str, Any] = plain(await self.request("agent/ping", {}))
            if ready(pong):
                return pong
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; last ping: {pong}")
            await asyncio.sleep(0.05)

    # -- documents ------------------------------------------------------------------------
    def open(self, rel: str, text: str, version: int = 1) -> str:
        assert self.root is not None
        uri = from_fs_path(str(self.root / rel)) or ""
        self.docs[uri] = (version, text)
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=version, text=text
                )
            )
        )
        return uri

    def change(self, uri: str, text: str) -> None:
        version = self.docs[uri][0] + 1
        self.docs[uri] = (version, text)
        self.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    # -- runs ---------------------------------------------------------------------------
    def run(self, **params: Any) -> asyncio.Future[Any]:
        """Send ``agent/run`` now; returns the future of its result (a namedtuple)."""
        return asyncio.ensure_future(self.protocol.send_request_async("agent/run", params))

    async def request(self, method: str, params: Any) -> Any:
        return await self.protocol.send_request_async(method, params)


def _plain(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def plain(value: Any) -> Any:
    """A result as dicts and lists (pygls gives namedtuples for untyped results)."""
    return _plain(value)


@functools.lru_cache(maxsize=1024)
def _record_class(type_name: str, fields: tuple[str, ...]) -> Any:
    return collections.namedtuple(type_name, fields, rename=True)  # type: ignore[misc]


def _records(d: Any) -> Any:
    """pygls's ``_dict_to_object`` (nested namedtuples from a dict) with each class made
    once per set of field names: ``collections.namedtuple`` compiles source code (about a
    millisecond), which the client would otherwise pay for every object of every message
    (bench/server_responsiveness.py times its pings)."""
    if not isinstance(d, dict):
        return d
    type_name = d.pop("type_name", "Object")

    def hook(p: dict[str, Any]) -> Any:
        return _record_class(type_name, tuple(p))(*p.values())

    return json.loads(json.dumps(d), object_hook=hook)


def _params_records(obj: dict[str, Any], cls: type) -> Any:
    if "params" in obj:
        obj["params"] = _records(obj["params"])
    return cls(**obj)


def _result_records(obj: dict[str, Any], cls: type) -> Any:
    if "result" in obj:
        obj["result"] = _records(obj["result"])
    return cls(**obj)


def run_cli(cwd: Path, *args: str, timeout: float = 150) -> subprocess.CompletedProcess[str]:
    """``agentls ARGS`` as a user runs it in ``cwd``: its own process, no terminal on stdin,
    this process's environment (the test's user config and trust list)."""
    return subprocess.run(
        [sys.executable, "-m", "agentls", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        timeout=timeout,
    )


def run_in_terminal(
    cwd: Path, *args: str, answers: list[tuple[str, str]], env: dict[str, str] | None = None
) -> tuple[str, int]:
    """``agentls ARGS`` with a terminal on stdin, as a user types: for each (marker,
    answer), waits until stderr shows the marker, then types the answer. What stderr
    showed up to the last marker, and the exit status. ``env`` is added to this
    process's environment."""
    controller, terminal = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "agentls.cli", *args],
        cwd=cwd,
        stdin=terminal,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(env or {})},
    )
    os.close(terminal)
    seen = ""
    try:
        assert child.stderr is not None
        for marker, answer in answers:
            seen += read_until(child.stderr.fileno(), marker)
            os.write(controller, answer.encode() + b"\n")
        child.wait(timeout=180)
    finally:
        os.close(controller)
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stderr is not None:
            child.stderr.close()
    return seen, child.returncode


def read_until(fd: int, marker: str, timeout: float = 120) -> str:
    """What a child writes to ``fd`` (a pipe), read until ``marker`` appears."""
    seen = b""
    deadline = time.monotonic() + timeout
    while marker.encode() not in seen:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"{marker!r} never came: {seen[-2000:]!r}")
        chunk = os.read(fd, 65_536)
        if not chunk:
            raise AssertionError(f"closed before {marker!r}: {seen[-2000:]!r}")
        seen += chunk
    return seen.decode("utf-8", "replace")


def write_prompt_hook(root: Path, word: str) -> None:
    """A workspace hook (``.agentls/hooks.json``) whose script ``.agentls/hook.sh`` adds
    ``word`` to each prompt (what a UserPromptSubmit hook prints is context)."""
    (root / ".agentls").mkdir(exist_ok=True)
    (root / ".agentls" / "hook.sh").write_text(f"echo {word}\n")
    command = 'bash "$CLAUDE_PROJECT_DIR"/.agentls/hook.sh'
    table = {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}
    (root / ".agentls" / "hooks.json").write_text(json.dumps({"hooks": table}))


def client_converter() -> Converter:
    """The test client's converter: agentls's messages as pygls's namedtuples (attribute
    access: ``result.status``), their classes made once."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(JsonRPCRequestMessage, _params_records)
    converter.register_structure_hook(JsonRPCNotification, _params_records)
    converter.register_structure_hook(JsonRPCResponseMessage, _result_records)
    return converter


def make_client() -> AgentClient:
    client = AgentClient(converter_factory=client_converter)
    register_lsp_features(client)

    def record(method: str) -> None:
        @client.feature(method)
        def handler(ls: AgentClient, params: Any) -> None:
            ls.events.append((method, plain(params)))
            ls.event_times.append(time.monotonic())

    for method in (
        "agent/stream",
        "agent/step",
        "agent/subagent",
        "agent/status",
        "agent/plan",
        "agent/instructions",
        "agent/messageDelivered",
        "agent/context",
        "agent/command",
        "agent/notice",
    ):
        record(method)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def show_message_request(
        ls: AgentClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        ls.approval_requests.append(params)
        ls.approval_asked.set()
        if callable(ls.approvals):
            title = ls.approvals(params)
        elif ls.approvals:
            title = ls.approvals.pop(0)
        else:
            await asyncio.sleep(3600)  # never answered: the test cancels meanwhile
            title = None
        return None if title is None else types.MessageActionItem(title=title)

    @client.feature("agent/approveProgram")
    def approve_program(ls: AgentClient, params: Any) -> dict[str, Any]:
        request = plain(params)
        if request["kind"] == "hooks":
            ls.hooks_requests.append(request)
            return {"approved": ls.hooks_answers.pop(0) if ls.hooks_answers else False}
        ls.mcp_requests.append(request)
        return {"approved": ls.mcp_answers.get(request["name"], False)}

    @client.feature("agent/askUser")
    def ask_user(ls: AgentClient, params: Any) -> dict[str, Any]:
        ls.questions.append(plain(params))
        return {"answer": ls.answers.pop(0) if ls.answers else None}

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(
        ls: AgentClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        ls.edits.append(params)
        if ls.edit_answers and not ls.edit_answers.pop(0):
            return types.ApplyWorkspaceEditResult(applied=False)
        for change in params.edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                uri = change.text_document.uri
                path = Path(to_fs_path(uri) or "")
                if uri in ls.docs:
                    _version, text = ls.docs[uri]
                    ls.change(uri, apply_text_edits(text, list(change.edits)))
                else:
                    text = path.read_text() if path.exists() else ""
                    path.write_text(apply_text_edits(text, list(change.edits)))
            elif isinstance(change, types.CreateFile):
                path = Path(to_fs_path(change.uri) or "")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()
            elif isinstance(change, types.DeleteFile):
                Path(to_fs_path(change.uri) or "").unlink(missing_ok=True)
        return types.ApplyWorkspaceEditResult(applied=True)

    return client


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP_PY)
    (root / "README.md").write_text("# demo\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


def llm_options(scripted: ScriptedModelServer, model: str = "alice") -> dict[str, Any]:
    return {"llm": {"model": f"openai/{model}", "api_base": scripted.api_base, "retries": 0}}


LspFactory = Callable[..., Awaitable[AgentClient]]


@pytest.fixture
async def lsp(scripted: ScriptedModelServer, workspace: Path) -> AsyncIterator[LspFactory]:
    started: list[AgentClient] = []

    async def start(
        *,
        caps: types.ClientCapabilities = VSCODE,
        init_options: dict[str, Any] | None = None,
        model: str = "alice",
        env: dict[str, str] | None = None,
        root: Path | None = None,
        client_name: str = "pytest",
        folders: list[Path] | None = None,
    ) -> AgentClient:
        config = ClientServerConfig(
            server_command=server_command(),
            server_env=server_env(**(env or {})),
            client_factory=make_client,
        )
        client = await config.start()
        assert isinstance(client, AgentClient)
        started.append(client)
        client.root = root or (folders[0] if folders else workspace)
        options = llm_options(scripted, model) if init_options is None else init_options
        client.init_result = await client.initialize_session(
            types.InitializeParams(
                capabilities=caps,
                root_uri=from_fs_path(str(client.root)),
                workspace_folders=[
                    types.WorkspaceFolder(uri=from_fs_path(str(path)) or "", name=path.name)
                    for path in folders
                ]
                if folders
                else [types.WorkspaceFolder(uri=from_fs_path(str(client.root)) or "", name="ws")],
                initialization_options=options,
                client_info=types.ClientInfo(name=client_name),
            )
        )
        return client

    yield start
    for client in started:
        try:
            await asyncio.wait_for(client.shutdown_session(), 10)
        finally:
            await client.stop()


@pytest.fixture(params=sorted(CLIENTS))
def caps(request: pytest.FixtureRequest) -> types.ClientCapabilities:
    """Parametrise a test over the VS Code-like and the Neovim-like client."""
    return CLIENTS[request.param]


__all__ = [
    "APP_PY",
    "CLIENTS",
    "NEOVIM",
    "VSCODE",
    "AgentClient",
    "LspFactory",
    "client_capabilities",
    "git",
    "kill",
    "llm_options",
    "make_client",
    "plain",
    "server_command",
    "server_env",
    "start_killable",
]


# -- servers a test kills itself ----------------------------------------------------------


async def start_killable(root: Path, scripted: ScriptedModelServer, model: str) -> AgentClient:
    """A server this test kills itself (the ``lsp`` fixture would try to shut it down)."""
    config = ClientServerConfig(
        server_command=server_command(), server_env=server_env(), client_factory=make_client
    )
    client = await config.start()
    assert isinstance(client, AgentClient)
    client.root = root
    await client.initialize_session(
        types.InitializeParams(
            capabilities=NEOVIM,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="ws")],
            initialization_options=llm_options(scripted, model),
        )
    )
    return client


async def kill(client: AgentClient) -> None:
    server = client._server
    assert server is not None
    os.kill(server.pid, signal.SIGKILL)
    await asyncio.wait_for(server.wait(), 10)
    assert server.returncode == -signal.SIGKILL
    with contextlib.suppress(Exception):
        await asyncio.wait_for(client.stop(), 5)
