"""The server's converter: pygls' namedtuple params, with their classes made once."""

from __future__ import annotations

from lsprotocol import types
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, default_converter

from agentls.server.converter import agentls_converter, prime


def _request(params: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 1, "method": "agent/run", "params": params}


def test_params_equal_pygls_own_and_classes_are_reused() -> None:
    ours, theirs = agentls_converter(), default_converter()  # type: ignore[no-untyped-call]
    params = {"prompt": "hi", "runId": "r1", "options": {"a": 1, "class": [1, {"x": None}]}}
    a = ours.structure(_request(dict(params)), JsonRPCRequestMessage)
    b = theirs.structure(_request(dict(params)), JsonRPCRequestMessage)
    assert a.params == b.params
    assert a.params.prompt == "hi" and a.params.options.a == 1
    assert a.params.options._fields == b.params.options._fields  # rename=True kept ("class")
    again = ours.structure(_request(dict(params)), JsonRPCRequestMessage)
    assert type(again.params) is type(a.params)
    assert type(again.params.options) is type(a.params.options)
    note = ours.structure(
        {"jsonrpc": "2.0", "method": "agent/x", "params": {"runId": "r"}}, JsonRPCNotification
    )
    assert note.params.runId == "r"


def test_prime_builds_the_run_messages_hooks() -> None:
    converter = agentls_converter()
    # cattrs memoises the hook of each type it has dispatched on (a private attribute:
    # the only way to see that prime did the work ahead rather than on first use).
    built = converter._unstructure_func.dispatch.cache_info
    before = built().currsize
    prime(converter)
    assert built().currsize > before + 5
    edit = types.ApplyWorkspaceEditParams(
        edit=types.WorkspaceEdit(
            document_changes=[types.CreateFile(uri="file:///w/a.py")],
        ),
        label="agent: create a.py",
    )
    out = converter.unstructure(edit)
    assert out["label"] == "agent: create a.py"
    assert converter.unstructure(converter.structure(out, types.ApplyWorkspaceEditParams)) == out
