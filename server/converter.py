"""The JSON-RPC converter: pygls's own, taught to build our methods' pydantic models.

1. cattrs builds what pygls reads. Our methods' messages (server/jsonrpc.py) are built by
   hooks registered here, and their params (or results) by one hook for every
   ``WireModel``: pydantic validates the JSON object as the model declares it
   (camelCase names, unknown keys refused), and a failure becomes InvalidParams naming
   each field as the client spelled it (``parse_params``). The models are pydantic
   classes, not attrs classes, so cattrs could not build them by itself; and validating
   once, from the JSON object, leaves out the namedtuples pygls would otherwise make and
   the dicts they were turned back into.
2. cattrs generates the (un)structuring function of each LSP type on first use,
   10-50 ms for the larger ones, which landed in the middle of the first run.
   ``prime`` generates them ahead, off the event loop.
"""

from __future__ import annotations

import sys
from typing import Any

from cattrs import Converter
from lsprotocol import types
from pygls.protocol import default_converter

from agentls.server.jsonrpc import AgentNotification, AgentRequest, AgentResponse

_CONTRACT = "agentls.agent.contract"


def _is_wire_model(kind: Any) -> bool:
    """Whether ``kind`` is one of our pydantic models. Asked of every type cattrs meets
    first, LSP's included: it must not import pydantic, and need not: no model exists
    before the module that defines their base is imported. (That module may be half
    imported by the thread that loads the models: then it has no models yet either.)"""
    base = getattr(sys.modules.get(_CONTRACT), "WireModel", None)
    return base is not None and isinstance(kind, type) and issubclass(kind, base)


def _wire_model(data: Any, model: type) -> Any:
    from agentls.server.protocol import parse_params

    return parse_params(model, data)


def agentls_converter() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]

    def params(data: Any, kind: type | None) -> Any:
        return None if kind is None else converter.structure(data, kind)

    def request(obj: dict[str, Any], cls: type[AgentRequest]) -> AgentRequest:
        return cls(
            obj["id"], obj["method"], obj["jsonrpc"], params(obj.get("params"), cls.params_type)
        )

    def notification(obj: dict[str, Any], cls: type[AgentNotification]) -> AgentNotification:
        return cls(obj["method"], obj["jsonrpc"], params(obj.get("params"), cls.params_type))

    def response(obj: dict[str, Any], cls: type[AgentResponse]) -> AgentResponse:
        from agentls.server.protocol import parse_params

        kind = cls.result_type
        result = obj.get("result")
        return cls(
            obj["id"],
            obj["jsonrpc"],
            result if kind is None else parse_params(kind, result, what="result"),
        )

    converter.register_structure_hook_func(_is_wire_model, _wire_model)
    converter.register_structure_hook_func(_subclass_of(AgentRequest), request)
    converter.register_structure_hook_func(_subclass_of(AgentNotification), notification)
    converter.register_structure_hook_func(_subclass_of(AgentResponse), response)
    return converter


def _subclass_of(base: type) -> Any:
    return lambda kind: isinstance(kind, type) and issubclass(kind, base)


#: What a run sends and receives besides our own methods.
RUN_METHODS = (
    types.WORKSPACE_APPLY_EDIT,
    types.WINDOW_WORK_DONE_PROGRESS_CREATE,
    types.WINDOW_WORK_DONE_PROGRESS_CANCEL,
    types.WINDOW_SHOW_MESSAGE_REQUEST,
    types.WINDOW_SHOW_MESSAGE,
    types.WINDOW_LOG_MESSAGE,
    types.PROGRESS,
    types.CANCEL_REQUEST,
    types.TEXT_DOCUMENT_DID_OPEN,
    types.TEXT_DOCUMENT_DID_CHANGE,
    types.TEXT_DOCUMENT_DID_CLOSE,
    types.TEXT_DOCUMENT_DID_SAVE,
    types.WORKSPACE_DID_CHANGE_CONFIGURATION,
)
_EXTRA_TYPES: tuple[type, ...] = (
    types.WorkDoneProgressBegin,
    types.WorkDoneProgressReport,
    types.WorkDoneProgressEnd,
    types.TextDocumentEdit,
    types.CreateFile,
    types.DeleteFile,
    types.RenameFile,
    types.ChangeAnnotation,
    types.AnnotatedTextEdit,
    types.MessageActionItem,
)


def prime(converter: Converter) -> None:
    """Generate the (un)structuring functions a run needs now (call it in a thread)."""
    kinds: list[Any] = list(_EXTRA_TYPES)
    for method in RUN_METHODS:
        request, response, params, result = types.METHOD_TO_TYPES.get(
            method, (None, None, None, None)
        )
        kinds += [request, response, params, result]
    for kind in kinds:
        if not isinstance(kind, type):
            continue
        try:
            converter.get_structure_hook(kind)
            converter.get_unstructure_hook(kind)
        except Exception:  # a type cattrs cannot pre-build: it builds it on first use
            continue
