"""Our methods' params arrive as their models: the converter builds them with pydantic's
validation, bad ones are refused before any handler runs, and a message that needs the
models waits for them without losing its place."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from agentls.server import jsonrpc
from agentls.server.converter import agentls_converter
from agentls.server.jsonrpc import (
    NO_PARAMS,
    AgentProtocol,
    AgentRequest,
    load_message_types,
)
from agentls.server.protocol import (
    METHODS,
    AskUserResult,
    CancelParams,
    ProgramApprovalResult,
    RunParams,
    WorkspaceTrustParams,
)

TYPES = load_message_types()


def _request(method: str, params: Any, msg_id: int | str = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


def test_a_request_of_ours_arrives_as_its_model() -> None:
    converter = agentls_converter()
    message = converter.structure(
        _request("agent/run", {"prompt": "hi", "runId": "r1", "confirmMode": "yolo"}),
        TYPES.incoming["agent/run"],
    )
    assert isinstance(message, AgentRequest)
    assert isinstance(message.params, RunParams)
    assert (message.params.prompt, message.params.run_id) == ("hi", "r1")
    assert message.params.confirm_mode == "yolo"
    note = converter.structure(
        {"jsonrpc": "2.0", "method": "agent/workspaceTrust", "params": {"trusted": True}},
        TYPES.incoming["agent/workspaceTrust"],
    )
    assert note.params == WorkspaceTrustParams(trusted=True)


def test_missing_params_are_read_as_an_empty_object() -> None:
    converter = agentls_converter()
    data = {"jsonrpc": "2.0", "id": 2, "method": "agent/cancel"}
    with pytest.raises(JsonRpcInvalidParams, match=r"runId: Field required"):
        converter.structure(data, TYPES.incoming["agent/cancel"])


@pytest.mark.parametrize(
    ("method", "params", "named"),
    [
        ("agent/run", {"prompt": "p", "confirmMode": "sometimes"}, "confirmMode: Input should be"),
        ("agent/run", {"prompt": "p", "maxStep": 3}, "maxStep: Extra inputs are not permitted"),
        ("agent/cancel", {"runId": ""}, "runId: String should have at least 1 character"),
        ("agent/session", {"session": "s"}, "sessionId: Field required"),
    ],
)
def test_bad_params_are_invalid_params_naming_the_field(
    method: str, params: dict[str, Any], named: str
) -> None:
    with pytest.raises(JsonRpcInvalidParams) as caught:
        agentls_converter().structure(_request(method, params), TYPES.incoming[method])
    assert caught.value.message.startswith("invalid params: ")
    assert named in caught.value.message


def test_the_answers_to_our_questions_arrive_as_their_models() -> None:
    converter = agentls_converter()
    ask = TYPES.responses["agent/askUser"]
    answer = converter.structure({"jsonrpc": "2.0", "id": "a", "result": {"answer": "blue"}}, ask)
    assert answer.result == AskUserResult(answer="blue")
    declined = converter.structure({"jsonrpc": "2.0", "id": "a", "result": None}, ask)
    assert declined.result == AskUserResult(answer=None)
    program = TYPES.responses["agent/approveProgram"]
    answer = {"jsonrpc": "2.0", "id": "m", "result": {"approved": True}}
    approved = converter.structure(answer, program)
    assert approved.result == ProgramApprovalResult(approved=True)
    with pytest.raises(JsonRpcInvalidParams, match=r"^invalid result: approved: Field required"):
        converter.structure({"jsonrpc": "2.0", "id": "m", "result": {}}, program)


def test_the_methods_read_without_models_are_those_whose_params_have_no_field() -> None:
    """A method sent early (a ping, the panel's first requests) must not wait for the models
    to load: every method whose params have no field is in ``NO_PARAMS``."""
    no_params = {
        m.name for m in METHODS if m.direction == "clientToServer" and not m.params.model_fields
    }
    assert no_params == NO_PARAMS
    for name in NO_PARAMS:
        assert TYPES.incoming[name].params_type is None
    every = {m.name for m in METHODS if m.direction == "clientToServer"}
    assert set(TYPES.incoming) == every


class Recorder:
    """A server with the agentls protocol, recording what its handlers get and what it
    writes to the client."""

    def __init__(self) -> None:
        self.server = LanguageServer(
            "test", "0", protocol_cls=AgentProtocol, converter_factory=agentls_converter
        )
        self.handled: list[tuple[str, Any]] = []
        self.written: list[dict[str, Any]] = []
        self.server.protocol.set_writer(self, include_headers=False)
        for method in ("agent/cancel", "agent/ping", "agent/workspaceTrust"):
            self._record(method)

    def _record(self, method: str) -> None:
        @self.server.feature(method)
        def handler(ls: LanguageServer, params: Any) -> dict[str, bool] | None:
            self.handled.append((method, params))
            return None if method == "agent/workspaceTrust" else {"ok": True}

    @property
    def protocol(self) -> AgentProtocol:
        protocol = self.server.protocol
        assert isinstance(protocol, AgentProtocol)
        return protocol

    def write(self, data: bytes) -> None:
        self.written.append(json.loads(data))

    def receive(self, data: dict[str, Any]) -> None:
        """As pygls's reader does with one message."""
        protocol = self.protocol
        protocol.handle_message(
            json.loads(json.dumps(data), object_hook=protocol.structure_message)
        )


async def test_a_message_that_needs_the_models_waits_and_those_after_it_keep_their_order() -> None:
    server = Recorder()
    assert not server.protocol.types_loaded
    server.receive(_request("agent/ping", {}, 1))  # needs no model: handled at once
    assert server.handled == [("agent/ping", None)]
    server.receive({"jsonrpc": "2.0", "method": "agent/ping"})  # so is its notification
    assert server.handled == [("agent/ping", None)] * 2
    server.handled.clear()
    server.receive(_request("agent/cancel", {"runId": "r1"}, 2))
    server.receive(_request("agent/ping", {}, 3))  # waits behind the cancel
    server.receive({"jsonrpc": "2.0", "method": "agent/workspaceTrust", "params": {"trusted": 1}})
    assert server.handled == []
    await server.protocol.load_types()
    assert server.handled == [
        ("agent/cancel", CancelParams(run_id="r1")),
        ("agent/ping", None),
        ("agent/workspaceTrust", WorkspaceTrustParams(trusted=True)),
    ]
    assert [m["id"] for m in server.written] == [1, 2, 3]


async def test_bad_params_are_answered_with_invalid_params_and_never_handled() -> None:
    server = Recorder()
    await server.protocol.load_types()
    server.receive(_request("agent/cancel", {"runId": "r", "now": True}, 7))
    server.receive({"jsonrpc": "2.0", "method": "agent/workspaceTrust", "params": {}})
    assert server.handled == []
    [answer] = server.written
    assert answer["id"] == 7 and answer["error"]["code"] == -32602
    assert answer["error"]["message"] == "invalid params: now: Extra inputs are not permitted"
    # and the server goes on
    server.receive(_request("agent/cancel", {"runId": "r"}, 8))
    assert server.handled == [("agent/cancel", CancelParams(run_id="r"))]


async def test_an_answer_that_does_not_fit_fails_the_request_that_waits_for_it() -> None:
    server = Recorder()
    await server.protocol.load_types()
    waiting = server.protocol.send_request_async("agent/approveProgram", {}, msg_id="q1")
    server.receive({"jsonrpc": "2.0", "id": "q1", "result": {"approved": "perhaps"}})
    with pytest.raises(JsonRpcInvalidParams, match="approved: Input should be a valid boolean"):
        await waiting
    asked = server.protocol.send_request_async("agent/askUser", {}, msg_id="q2")
    server.receive({"jsonrpc": "2.0", "id": "q2", "result": {"answer": "blue"}})
    assert await asked == AskUserResult(answer="blue")


def test_a_server_that_stops_while_the_models_load_stops_quietly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def slow_load() -> Any:
        time.sleep(0.3)  # the models take their time to import
        return load_message_types()

    monkeypatch.setattr(jsonrpc, "load_message_types", slow_load)
    problems: list[dict[str, Any]] = []

    async def stop_while_loading() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _, ctx: problems.append(ctx))
        server = Recorder()
        server.receive(_request("agent/cancel", {"runId": "r1"}, 1))  # held: loading starts

        async def wait_for_the_models() -> None:  # as the configuration's loading does
            await server.protocol.load_types()

        waiting = asyncio.ensure_future(wait_for_the_models())
        await asyncio.sleep(0.05)
        assert not waiting.done()
        # ... and the server is told to exit: asyncio.run cancels what is still running

    asyncio.run(stop_while_loading())
    assert problems == []
