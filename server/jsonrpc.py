"""``AgentProtocol``: pygls's LanguageServerProtocol, plus the types of agentls's own methods.

pygls reads the params of a method it knows from lsprotocol's table and hands its handler a
typed object; the params of any other method would arrive as nested namedtuples. Here our
methods get types too: ``get_message_type`` maps each method the client sends
(``agent/run``, ``agent/cancel``...) to a message class naming the method's pydantic model
(``METHODS`` in server/protocol.py), and ``get_result_type`` does the same for the answers
to our questions (``agent/askUser``...). The converter (server/converter.py) builds those
models from the JSON objects with pydantic's own validation, so a handler receives
``RunParams`` and the approver gets ``AskUserResult``.

Bad params never reach a handler: a request is answered with InvalidParams naming each
field as the client spelled it (``confirmMode: Input should be ...``), a notification is
logged and dropped, and an answer that does not fit its model fails the request that
waits for it, so that nothing waits for an answer that never comes.

The models are not imported at start-up: pydantic and the config models cost more than
pygls itself, and ``initialize`` must not wait for them. The server loads them in a thread
right after ``initialize`` (``load_types``). Until they are in use a message that needs
them is held, and every message after it waits behind it so that the client's order is
kept (a ``$/cancelRequest`` never overtakes its request). The requests that take no params
(``agent/ping``, ``agent/agents``, ``agent/commands``, ``agent/sessions``) need no model:
they are read at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol

if TYPE_CHECKING:
    from concurrent.futures import Future

    from agentls.server.protocol import Method

log = logging.getLogger(__name__)

#: The prefix of our methods.
PREFIX = "agent/"
#: Our methods whose params have no field (``NoParams``...): read without the models (the
#: params are ignored), so that they are handled before those are loaded. A unit test keeps
#: this set equal to the methods of ``METHODS`` the client sends whose params have no field.
NO_PARAMS = frozenset(
    {
        "agent/ping",
        "agent/prepare",
    }
)


@attrs.define
class AgentRequest:
    """A request of one of our methods. Each method has a subclass whose ``params_type``
    is its params' model; None: the params are ignored and the handler gets None."""

    id: int | str
    method: str
    jsonrpc: str
    params: Any = None
    params_type: ClassVar[type | None] = None


@attrs.define
class AgentNotification:
    """A notification of one of our methods; a subclass per method, as for requests."""

    method: str
    jsonrpc: str
    params: Any = None
    params_type: ClassVar[type | None] = None


@attrs.define
class AgentResponse:
    """The client's answer to one of our requests; a subclass per method names its model."""

    id: int | str
    jsonrpc: str
    result: Any = None
    result_type: ClassVar[type | None] = None


@attrs.define
class Refused:
    """A request that cannot be read: it is answered with ``error`` and never handled."""

    id: int | str
    error: JsonRpcException


class NoParamsRequest(AgentRequest):
    """A request of ``NO_PARAMS``: its handler gets None."""


class NoParamsNotification(AgentNotification):
    """A notification of ``NO_PARAMS``: its handler gets None."""


#: What ``structure_message`` gives for a message that is held, or dropped (a notification
#: with bad params): nothing to handle now.
NOTHING = object()


def message_class(base: type, name: str, **class_vars: type | None) -> type:
    """A subclass of ``base`` (an attrs class) that only sets class variables."""
    return type(name, (base,), dict(class_vars))


def no_params_types() -> dict[str, type]:
    """What ``get_message_type`` answers for ``NO_PARAMS`` before the models are loaded."""
    return dict.fromkeys(NO_PARAMS, NoParamsRequest)


@dataclass(frozen=True)
class MessageTypes:
    """The message class of each of our methods the server reads (client → server), and
    the response class of each of our requests to the client."""

    incoming: dict[str, type]
    responses: dict[str, type]

    @classmethod
    def of(cls, methods: Iterable[Method]) -> MessageTypes:
        incoming: dict[str, type] = {}
        responses: dict[str, type] = {}
        for m in methods:
            if m.direction == "clientToServer":
                base, kind = (
                    (AgentRequest, "Request")
                    if m.kind == "request"
                    else (AgentNotification, "Notification")
                )
                model = None if m.name in NO_PARAMS else m.params
                incoming[m.name] = message_class(
                    base, f"{m.params.__name__}{kind}", params_type=model
                )
            elif m.kind == "request" and m.result is not None:
                responses[m.name] = message_class(
                    AgentResponse, f"{m.result.__name__}Response", result_type=m.result
                )
        return cls(incoming, responses)


def load_message_types() -> MessageTypes:
    """Import the models and make the classes (blocking: call it in a thread)."""
    from agentls.server.protocol import METHODS

    return MessageTypes.of(METHODS)


class AgentProtocol(LanguageServerProtocol):
    """The server's protocol: LSP's methods as pygls reads them, ours with their models."""

    def __init__(self, server: Any, converter: Any) -> None:
        # Set before pygls's __init__, which reads every attribute (``types_loaded`` too)
        # looking for its built-in features.
        self._incoming: dict[str, type] = no_params_types()
        self._responses: dict[str, type] = {}
        #: Done once the models are in use (or could not be loaded) and the messages held
        #: for them have been handled; None until loading starts.
        self._loading: asyncio.Future[None] | None = None
        self._types_failed: BaseException | None = None
        #: The messages (JSON objects) waiting for the models, in the client's order;
        #: None when none waits.
        self._held: list[dict[str, Any]] | None = None
        super().__init__(server, converter)

    # -- handled notifications -----------------------------------------------------------
    def _check_handler_result(self, future: Future[Any]) -> None:
        """A notification is handled. pygls keeps the future of every notification whose
        handler is a generator (its own ``didOpen``, ``didChange``, ``didClose``...), a
        coroutine or a thread, in its table of requests in flight under an id it makes up,
        and only a request's answer removes an entry: a day of typing (a ``didChange`` a
        keystroke) would keep one future each. Removed here, by identity."""
        for msg_id, pending in list(self._request_futures.items()):
            if pending is future:
                self._request_futures.pop(msg_id, None)
                break
        super()._check_handler_result(future)

    # -- the types ----------------------------------------------------------------------
    # (pygls declares both through functools.lru_cache, which mypy takes for another type)
    def get_message_type(self, method: str) -> type | None:  # type: ignore[override]
        lsp_type: type | None = super().get_message_type(method)
        return lsp_type if lsp_type is not None else self._incoming.get(method)

    def get_result_type(self, method: str) -> type | None:  # type: ignore[override]
        lsp_type: type | None = super().get_result_type(method)
        return lsp_type if lsp_type is not None else self._responses.get(method)

    def load_types(self) -> asyncio.Future[None]:
        """Start loading the models in a thread, once; the future is done when they are
        in use and the messages held for them have been handled."""
        if self._loading is None:
            loop = asyncio.get_running_loop()
            self._loading = loop.create_future()
            task = loop.create_task(asyncio.to_thread(load_message_types))
            task.add_done_callback(self._loaded)
        return self._loading

    @property
    def types_loaded(self) -> bool:
        return self._loading is not None and self._loading.done() and not self._loading.cancelled()

    def _loaded(self, task: asyncio.Task[MessageTypes]) -> None:
        assert self._loading is not None
        if task.cancelled():  # the loop is closing: the server stops, nothing to handle
            self._loading.cancel()
            return
        if (error := task.exception()) is not None:
            log.error("agentls could not load its protocol's types", exc_info=error)
            self._types_failed = error
        else:
            loaded = task.result()
            self._incoming.update(loaded.incoming)
            self._responses.update(loaded.responses)
        if not self._loading.done():
            self._loading.set_result(None)
        held, self._held = self._held or [], None
        for data in held:
            try:
                self.handle_message(self.structure_message(data))
            except Exception:  # as pygls's reader does with a message it cannot handle
                log.exception("could not handle a held %s", data.get("method", "message"))

    # -- reading messages -----------------------------------------------------------------
    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data:  # an object inside a message: pygls's own rule
            return data
        method = data.get("method")
        ours = isinstance(method, str) and method.startswith(PREFIX)
        if self._held is not None or (ours and method not in NO_PARAMS and not self.types_loaded):
            if self._held is None:
                self._held = []
            self._held.append(data)
            self.load_types()
            return NOTHING
        message_type = self._our_type(data) if ours or "method" not in data else None
        if message_type is None:
            if ours and self._types_failed is not None and method not in NO_PARAMS:
                return self._refuse(data, JsonRpcInternalError(f"{method}: types not loaded"))
            return super().structure_message(data)
        try:
            return self._converter.structure(data, message_type)
        except JsonRpcException as exc:  # the converter's hooks name the bad fields
            return self._refuse(data, exc)
        except Exception as exc:
            log.exception("could not read %s", method or "an answer")
            return self._refuse(data, JsonRpcInternalError(f"{type(exc).__name__}: {exc}"))

    def _our_type(self, data: dict[str, Any]) -> type | None:
        """The class of a request or notification of ours, or of an answer to our request."""
        if "method" in data:
            if data["method"] in NO_PARAMS:
                return NoParamsRequest if "id" in data else NoParamsNotification
            return self._incoming.get(data["method"])
        if "id" not in data or "error" in data:
            return None
        # pygls remembers the result type of each request it sent: take it if it is ours.
        kind = self._result_types.get(data["id"])
        if isinstance(kind, type) and issubclass(kind, AgentResponse):
            del self._result_types[data["id"]]
            return kind
        return None

    def _refuse(self, data: dict[str, Any], error: JsonRpcException) -> Any:
        """A message of ours whose params (or result) do not fit their model."""
        if "method" not in data:  # an answer to our request: whoever waits gets the error
            return types.ResponseErrorMessage(
                id=data["id"], error=types.ResponseError(code=error.code, message=error.message)
            )
        if "id" in data:
            return Refused(data["id"], error)
        log.warning("%s: %s; ignored", data["method"], error.message)
        return NOTHING

    def handle_message(self, message: Any) -> None:
        if message is NOTHING:
            return
        if isinstance(message, Refused):
            self._send_response(message.id, error=message.error.to_response_error())
            return
        super().handle_message(message)
