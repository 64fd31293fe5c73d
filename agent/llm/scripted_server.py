"""A local OpenAI-compatible model server that answers from a script.

Tests, the demo and the editor end-to-end tests point litellm at it instead of a real
provider: the real adapter code path runs, nothing is mocked, and every request is
recorded so a test can assert what the model was shown.

Turns are queued per model name (``openai/alice`` and ``alice`` share the queue
"alice"), with a default queue used when a model's own queue is empty. A turn is a
``Turn`` (text, tool calls, an HTTP error, delays, a dropped connection...) or, in
process only, a *responder*: a callable that gets the request body and returns a Turn.

In process::

    with ScriptedModelServer() as server:
        server.add("alice", text("hello"), tool_call("read_file", {"path": "a.py"}))
        config = LLMConfig(model="openai/alice", api_base=server.api_base)
        ...
        assert server.requests_for("alice")[0].body["messages"][-1]["content"] == "hi"

As a subprocess: ``python -m agentls.agent.llm.scripted_server --port 0 --script turns.json``
prints ``LISTENING <port>`` and serves until killed. Over HTTP, ``POST /_script
{"model": ..., "turns": [...]}`` appends turns, ``POST /_models {"models": [{"name":
..., "tools": false}]}`` adds models to list, ``GET /_requests`` returns the record
and ``POST /_reset`` empties them all.

It lists its models as both kinds of local server do: ``GET /v1/models`` (OpenAI's
shape, ids only) and Ollama's ``GET /api/tags`` with ``POST /api/show`` (whose
``capabilities`` say whether a model calls tools or takes images): the models given to
``list_models`` (or ``--models``), then one per scripted queue.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import socket
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_QUEUE = ""
_SECRET_HEADERS = ("authorization", "api-key", "x-api-key")


class ScriptedToolCall(BaseModel):
    """One tool call of a scripted turn.

    ``arguments`` given as a dict is sent as JSON; given as a string it is sent as is,
    which is how a test scripts malformed arguments. ``id=None`` gets a generated id;
    ``omit_id`` sends none at all, like some providers do.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None
    omit_id: bool = False

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


CutPoint = Literal["text", "arguments", "between_calls", "before_finish"]
CutHow = Literal["drop", "close"]


class Turn(BaseModel):
    """One scripted answer of the model."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    finish_reason: str | None = Field(
        default=None, description="Default: `tool_calls` when there are tool calls, else `stop`."
    )
    usage: dict[str, int] | None = Field(
        default=None, description="Usage reported in the final chunk; default: rough counts."
    )
    status: int = Field(default=200, description="An HTTP status >= 400 makes this turn an error.")
    error_message: str = "scripted error"
    error_body: dict[str, Any] | str | None = Field(
        default=None, description="The error's body; default: OpenAI's `{error: {message, ...}}`."
    )
    headers: dict[str, str] = Field(default_factory=dict, description="Extra headers.")
    delay: float = Field(default=0.0, ge=0, description="Seconds before the response starts.")
    chunk_delay: float = Field(default=0.0, ge=0, description="Seconds between streamed chunks.")
    chunk_size: int = Field(default=6, ge=1, description="Characters of text per streamed chunk.")
    drop_after_chunks: int | None = Field(
        default=None, ge=0, description="Close the socket after this many streamed chunks."
    )
    interleave: bool = Field(
        default=False, description="Interleave the argument pieces of several tool calls."
    )
    cut_at: CutPoint | None = Field(
        default=None,
        description="End the stream early, without a finish reason: halfway through the "
        "text, inside the first tool call's arguments, between the first and second tool "
        "calls, or just before the finish reason.",
    )
    cut_how: CutHow = Field(
        default="drop",
        description="`drop` closes the socket mid-body (a dropped connection); `close` ends "
        "the body cleanly with no finish reason and no `[DONE]` (a proxy that timed out).",
    )

    def resolved_finish_reason(self) -> str:
        if self.finish_reason:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


Responder = Callable[[dict[str, Any]], Turn]
Scripted = Turn | Responder


# ---------------------------------------------------------------- builders


def text(content: str, **options: Any) -> Turn:
    """A turn that streams ``content``."""
    return Turn(text=content, **options)


def call(
    name: str, args: Mapping[str, Any] | str | None = None, id: str | None = None
) -> ScriptedToolCall:
    """One tool call, for ``tool_calls(...)``; ``args`` as a string is sent verbatim."""
    arguments: dict[str, Any] | str = dict(args or {}) if not isinstance(args, str) else args
    return ScriptedToolCall(name=name, arguments=arguments, id=id)


def tool_call(
    name: str, args: Mapping[str, Any] | str | None = None, id: str | None = None, **options: Any
) -> Turn:
    """A turn with one tool call."""
    return Turn(tool_calls=[call(name, args, id)], **options)


def tool_calls(*calls: ScriptedToolCall | Turn, text: str | None = None, **options: Any) -> Turn:
    """A turn with several tool calls (each a ``call(...)`` or a ``tool_call(...)`` turn)."""
    flat: list[ScriptedToolCall] = []
    for item in calls:
        flat.extend(item.tool_calls if isinstance(item, Turn) else [item])
    return Turn(text=text, tool_calls=flat, **options)


def error(status: int, message: str = "scripted error", **options: Any) -> Turn:
    """A turn answered with an HTTP error (429, 500, 401...)."""
    return Turn(status=status, error_message=message, **options)


def rate_limited(retry_after: float | None = None, message: str = "rate limited") -> Turn:
    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
    return error(429, message, headers=headers)


def length(content: str, **options: Any) -> Turn:
    """A turn cut off by the token limit."""
    return Turn(text=content, finish_reason="length", **options)


def dropped(content: str, after_chunks: int, **options: Any) -> Turn:
    """A turn whose connection is closed after ``after_chunks`` streamed chunks."""
    return Turn(text=content, drop_after_chunks=after_chunks, **options)


def cut(turn: Turn, at: CutPoint, how: CutHow = "drop") -> Turn:
    """``turn`` with its stream ended early at ``at`` (see ``Turn.cut_at``)."""
    return turn.model_copy(update={"cut_at": at, "cut_how": how})


def load_turns(data: Any) -> dict[str, list[Turn]]:
    """Turns by queue from a script: a list (default queue), ``{"model", "turns"}``,
    or ``{"models": {name: [turns]}}``."""
    if isinstance(data, list):
        return {DEFAULT_QUEUE: [Turn.model_validate(t) for t in data]}
    if not isinstance(data, dict):
        raise ValueError("a script is a list of turns or an object")
    if "models" in data:
        return {
            queue_name(name): [Turn.model_validate(t) for t in turns]
            for name, turns in data["models"].items()
        }
    return {queue_name(data.get("model")): [Turn.model_validate(t) for t in data.get("turns", [])]}


class ListedModel(BaseModel):
    """A model the server lists, as a real server describes it: ``GET /v1/models`` (an
    OpenAI-compatible server: its id only), ``GET /api/tags`` and ``POST /api/show``
    (Ollama: ``capabilities`` holds ``tools`` and ``vision`` when the model has them, and
    ``model_info`` its context length). A model "without tools" is one whose
    ``/api/show`` capabilities lack ``tools``, which is how Ollama 0.6 and later say it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    tools: bool = True
    vision: bool = False
    context_length: int | None = None

    def tag(self) -> dict[str, Any]:
        """Its entry in ``/api/tags``."""
        name = self.name if ":" in self.name else f"{self.name}:latest"
        return {
            "name": name,
            "model": name,
            "modified_at": "2026-01-01T00:00:00Z",
            "size": 4_661_224_676,
            "digest": hashlib.sha256(name.encode()).hexdigest(),
            "details": {"format": "gguf", "family": "llama", "parameter_size": "8.0B"},
        }

    def shown(self) -> dict[str, Any]:
        """Its ``/api/show`` answer (the parts agentls reads)."""
        capabilities = ["completion", *(["tools"] if self.tools else [])]
        capabilities += ["vision"] if self.vision else []
        info: dict[str, Any] = {"general.architecture": "llama"}
        if self.context_length is not None:
            info["llama.context_length"] = self.context_length
        return {"capabilities": capabilities, "model_info": info, "details": self.tag()["details"]}


def load_listed(data: Any) -> list[ListedModel]:
    """Listed models from ``{"models": [{"name": ..., "tools": ...}, ...]}`` or a list."""
    entries = data.get("models") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ValueError("expected {'models': [{'name': ..., 'tools': ...}, ...]}")
    return [ListedModel.model_validate(entry) for entry in entries]


def queue_name(model: str | None) -> str:
    """The queue of a model name: the part after the last provider prefix."""
    if not model:
        return DEFAULT_QUEUE
    return model.rsplit("/", 1)[-1]


def key_fingerprint(secret: str) -> str:
    """What the record keeps of a key: the first 16 hex digits of its sha256."""
    return hashlib.sha256(secret.encode()).hexdigest()[:16]


# ---------------------------------------------------------------- record


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it, with secrets reduced to fingerprints."""

    method: str
    path: str
    headers: dict[str, str]
    auth_present: bool
    auth_sha256: str | None
    body: Any
    time: float = field(default_factory=time.time)

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict):
            return list(self.body.get("messages") or [])
        return []

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------- wire format


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or []


def _argument_pieces(arguments: str) -> list[str]:
    # Real providers split arguments unevenly over a few deltas; 2–4 pieces by length.
    if len(arguments) < 2:
        return [arguments]
    count = 2 if len(arguments) < 12 else 3 if len(arguments) < 40 else 4
    step = -(-len(arguments) // count)
    return _split(arguments, step)


def _rough_tokens(value: Any) -> int:
    return max(1, len(json.dumps(value)) // 4) if value else 0


class _Wire:
    """Builds OpenAI chat-completion payloads for one turn."""

    def __init__(self, turn: Turn, body: dict[str, Any]) -> None:
        self.turn = turn
        self.model = str(body.get("model") or "scripted")
        self.id = f"chatcmpl-{uuid.uuid4().hex[:20]}"
        self.created = int(time.time())
        self.ids = [
            None if c.omit_id else (c.id or f"call_{uuid.uuid4().hex[:16]}")
            for c in turn.tool_calls
        ]
        self.usage = turn.usage or self._rough_usage(body)

    def _rough_usage(self, body: dict[str, Any]) -> dict[str, int]:
        prompt = _rough_tokens(body.get("messages"))
        completion = _rough_tokens(self.turn.text) + sum(
            _rough_tokens(c.arguments_text()) for c in self.turn.tool_calls
        )
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
            **extra,
        }

    def _delta(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return self._chunk([{"index": 0, "delta": delta, "finish_reason": finish}])

    def stream_chunks(self, include_usage: bool) -> Iterator[dict[str, Any]]:
        """The turn's chunks; with ``cut_at``, ``_CutHere`` is raised where they stop."""
        for where, chunk in self._all_chunks(include_usage):
            # A cut point the turn does not have (no text, one call) cuts before the end.
            if self.turn.cut_at is not None and where in (self.turn.cut_at, "before_finish"):
                raise _CutHere
            yield chunk

    def _all_chunks(self, include_usage: bool) -> Iterator[tuple[str, dict[str, Any]]]:
        # Each chunk comes with the name of the cut point that falls just before it.
        turn = self.turn
        yield "", self._delta({"role": "assistant", "content": ""})
        pieces = _split(turn.text or "", turn.chunk_size)
        half = max(1, len(pieces) // 2)
        for number, piece in enumerate(pieces):
            yield ("text" if number == half else ""), self._delta({"content": piece})
        yield from self._tool_call_chunks()
        yield "before_finish", self._delta({}, turn.resolved_finish_reason())
        if include_usage:
            yield "", self._chunk([], usage=self.usage)

    def _tool_call_chunks(self) -> Iterator[tuple[str, dict[str, Any]]]:
        def head(index: int, scripted: ScriptedToolCall) -> dict[str, Any]:
            entry: dict[str, Any] = {
                "index": index,
                "type": "function",
                "function": {"name": scripted.name, "arguments": ""},
            }
            if self.ids[index] is not None:
                entry["id"] = self.ids[index]
            return entry

        def piece(index: int, text: str) -> dict[str, Any]:
            return {"index": index, "function": {"arguments": text}}

        def where(index: int, part: int) -> str:
            # "arguments": after the first piece of the first call's arguments.
            return "arguments" if index == 0 and part == 1 else ""

        calls = self.turn.tool_calls
        pieces = [_argument_pieces(c.arguments_text()) for c in calls]
        if self.turn.interleave:
            for index, scripted in enumerate(calls):
                yield "", self._delta({"tool_calls": [head(index, scripted)]})
            for round_ in range(max((len(p) for p in pieces), default=0)):
                for index, parts in enumerate(pieces):
                    if round_ < len(parts):
                        chunk = self._delta({"tool_calls": [piece(index, parts[round_])]})
                        yield where(index, round_), chunk
            return
        for index, scripted in enumerate(calls):
            yield (
                ("between_calls" if index == 1 else ""),
                self._delta({"tool_calls": [head(index, scripted)]}),
            )
            for number, part in enumerate(pieces[index]):
                yield where(index, number), self._delta({"tool_calls": [piece(index, part)]})

    def completion(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.turn.text}
        if self.turn.tool_calls:
            message["tool_calls"] = [
                {
                    **({"id": self.ids[i]} if self.ids[i] is not None else {}),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_text()},
                }
                for i, c in enumerate(self.turn.tool_calls)
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": self.turn.resolved_finish_reason(),
                }
            ],
            "usage": self.usage,
        }


# ---------------------------------------------------------------- server


class _CutHere(Exception):
    """Raised by ``stream_chunks`` where a turn's stream is to end early."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ScriptedModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout test) or a drop we caused is not a server error.
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError | OSError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 so streams use chunked encoding: then closing the socket mid-stream is a
    # visible protocol error for the client, as with a real provider, not a clean end.
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output and the subprocess's stdout clean

    # -- plumbing

    def _read_body(self) -> Any:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] = {}) -> None:
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _record(self, body: Any) -> None:
        headers: dict[str, str] = {}
        auth_present = False
        auth_sha: str | None = None
        for name, value in self.headers.items():
            lower = name.lower()
            if lower in _SECRET_HEADERS:
                auth_present = True
                token = value.split(" ", 1)[1] if value.lower().startswith("bearer ") else value
                auth_sha = key_fingerprint(token.strip())
                continue
            headers[lower] = value
        self.server.owner._record(
            RecordedRequest(
                method=self.command,
                path=self.path,
                headers=headers,
                auth_present=auth_present,
                auth_sha256=auth_sha,
                body=body,
            )
        )

    # -- routes

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        owner = self.server.owner
        if path in ("/health", "/v1/health"):
            self._send_json(200, {"status": "ok"})
        elif path in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": owner.openai_models()})
        elif path == "/api/tags":
            self._send_json(200, {"models": [m.tag() for m in owner.listed()]})
        elif path == "/_requests":
            self._send_json(200, [r.to_json() for r in owner.requests])
        else:
            self._send_json(404, {"error": {"message": f"no route GET {path}"}})

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._read_body()
        owner = self.server.owner
        if path in ("/v1/chat/completions", "/chat/completions"):
            self._record(body)
            self._chat(body if isinstance(body, dict) else {})
        elif path == "/_script":
            try:
                if not isinstance(body, dict):
                    raise ValueError("expected {'model': ..., 'turns': [...]}")
                for name, turns in load_turns(body).items():
                    owner.add(name, *turns)
            except ValueError as exc:  # pydantic's ValidationError is a ValueError
                self._send_json(400, {"error": {"message": str(exc)}})
                return
            self._send_json(200, {"ok": True})
        elif path == "/_reset":
            owner.reset()
            self._send_json(200, {"ok": True})
        elif path == "/api/show":
            listed = owner.listed_model(str(body.get("model") if isinstance(body, dict) else ""))
            if listed is None:
                self._send_json(404, {"error": "model not found"})
            else:
                self._send_json(200, listed.shown())
        elif path == "/_models":
            try:
                owner.list_models(*load_listed(body))
            except ValueError as exc:
                self._send_json(400, {"error": {"message": str(exc)}})
                return
            self._send_json(200, {"ok": True})
        else:
            self._send_json(404, {"error": {"message": f"no route POST {path}"}})

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.server.owner
        model = str(body.get("model") or "")
        turn = owner._next_turn(model, body)
        if turn is None:
            self._send_json(
                500,
                {
                    "error": {
                        "message": f"scripted model: no turn left for model {model}",
                        "type": "scripted_server_error",
                    }
                },
            )
            return
        if turn.delay and owner._stopping.wait(turn.delay):
            return
        if turn.status >= 400:
            self._send_error_turn(turn)
            return
        wire = _Wire(turn, body)
        if not body.get("stream"):
            if turn.drop_after_chunks is not None or turn.cut_at is not None:
                self._drop()
                return
            self._send_json(200, wire.completion(), turn.headers)
            return
        options = body.get("stream_options") or {}
        self._stream(turn, model, wire.stream_chunks(bool(options.get("include_usage"))))

    def _send_error_turn(self, turn: Turn) -> None:
        payload: dict[str, Any] | str
        if turn.error_body is not None:
            payload = turn.error_body
        else:
            payload = {
                "error": {
                    "message": turn.error_message,
                    "type": "scripted_error",
                    "code": str(turn.status),
                }
            }
        self._send_json(turn.status, payload, turn.headers)

    def _stream(self, turn: Turn, model: str, chunks: Iterator[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        if turn.cut_at is not None:
            # The connection ends with the cut stream: no client may reuse it.
            self.send_header("connection", "close")
        for name, value in turn.headers.items():
            self.send_header(name, value)
        self.end_headers()
        owner = self.server.owner
        try:
            try:
                for sent, chunk in enumerate(chunks):
                    if turn.drop_after_chunks is not None and sent >= turn.drop_after_chunks:
                        self._drop()
                        return
                    if sent and turn.chunk_delay and owner._stopping.wait(turn.chunk_delay):
                        self._drop()
                        return
                    self._write_event(json.dumps(chunk))
            except _CutHere:
                if turn.cut_how == "drop":
                    self._drop()
                    return
                # A clean end of the body with no finish reason and no [DONE].
                self.close_connection = True
            else:
                self._write_event("[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # The client closed the stream before its end: a cancelled call.
            owner._abandon(model)
            self.close_connection = True

    def _write_event(self, data: str) -> None:
        payload = f"data: {data}\n\n".encode()
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class ScriptedModelServer:
    """The scripted model server, run in a daemon thread of this process.

    Start and stop it with ``with``, or ``start()`` / ``stop()``; it works the same from
    sync and async tests since it never touches their event loop.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queues: dict[str, deque[Scripted]] = {}
        self._requests: list[RecordedRequest] = []
        self._abandoned: list[str] = []
        self._listed: list[ListedModel] = []
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> ScriptedModelServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer((self._host, self._port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="scripted-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping on a scripted delay
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the scripted model server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}"

    @property
    def api_base(self) -> str:
        """What to give litellm as ``api_base`` (with ``model="openai/<name>"``)."""
        return f"{self.base_url}/v1"

    # -- script

    def add(self, model: str | None, *turns: Scripted) -> ScriptedModelServer:
        """Append turns to ``model``'s queue (``None``: the default queue)."""
        with self._lock:
            self._queues.setdefault(queue_name(model), deque()).extend(turns)
        return self

    def add_default(self, *turns: Scripted) -> ScriptedModelServer:
        return self.add(None, *turns)

    def remaining(self, model: str | None = None) -> int:
        with self._lock:
            return len(self._queues.get(queue_name(model), ()))

    def queue_names(self) -> list[str]:
        with self._lock:
            return list(self._queues)

    def list_models(self, *models: ListedModel) -> ScriptedModelServer:
        """Models ``/v1/models`` and ``/api/tags`` list besides the scripted queues."""
        with self._lock:
            self._listed.extend(models)
        return self

    def listed(self) -> list[ListedModel]:
        """The listed models, then a tool-calling one per queue not listed already."""
        with self._lock:
            listed = list(self._listed)
            queues = list(self._queues)
        names = {m.name.removesuffix(":latest") for m in listed}
        extra = sorted({q or "scripted" for q in queues} - names)
        return listed + [ListedModel(name=name) for name in extra]

    def listed_model(self, name: str) -> ListedModel | None:
        wanted = name.removesuffix(":latest")
        return next((m for m in self.listed() if m.name.removesuffix(":latest") == wanted), None)

    def openai_models(self) -> list[dict[str, Any]]:
        """``/v1/models``'s data: what an OpenAI-compatible server says (ids only)."""
        return [
            {"id": m.name, "object": "model", "created": 0, "owned_by": "scripted"}
            for m in self.listed()
        ]

    def reset(self) -> None:
        with self._lock:
            self._queues.clear()
            self._requests.clear()
            self._abandoned.clear()
            self._listed.clear()

    def _next_turn(self, model: str, body: dict[str, Any]) -> Turn | None:
        with self._lock:
            queue = self._queues.get(queue_name(model))
            if not queue:
                queue = self._queues.get(DEFAULT_QUEUE)
            if not queue:
                return None
            scripted = queue.popleft()
        return scripted if isinstance(scripted, Turn) else scripted(body)

    # -- record

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every chat-completion request so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def requests_for(self, model: str | None) -> list[RecordedRequest]:
        name = queue_name(model)
        return [r for r in self.requests if queue_name(r.model) == name]

    def _abandon(self, model: str) -> None:
        with self._lock:
            self._abandoned.append(queue_name(model))

    def abandoned(self, model: str | None) -> int:
        """How many streams of ``model``'s queue the client closed before their end."""
        name = queue_name(model)
        with self._lock:
            return sum(1 for m in self._abandoned if m == name)


# ---------------------------------------------------------------- subprocess


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agentls.agent.llm.scripted_server",
        description="Serve scripted OpenAI-compatible chat completions on 127.0.0.1.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--script", type=Path, help="JSON file of turns to queue at start")
    parser.add_argument(
        "--models", type=Path, help='JSON file of models to list: {"models": [{"name": ...}]}'
    )
    args = parser.parse_args(argv)

    server = ScriptedModelServer(args.host, args.port)
    if args.models is not None:
        server.list_models(*load_listed(json.loads(args.models.read_text("utf-8"))))
    if args.script is not None:
        for name, turns in load_turns(json.loads(args.script.read_text("utf-8"))).items():
            server.add(name, *turns)
    server.start()
    print(f"LISTENING {server.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
