"""The JSON-RPC converter: pygls' own, with two costs of a busy session taken out.

1. pygls turns the params of a method it has no type for (all of ours: agent/run,
   agent/ping...) into namedtuples, and builds a new namedtuple *class* for every
   object of every message (``collections.namedtuple`` compiles source code: about
   a millisecond). Here the classes are made once per set of field names and reused;
   the objects are the same namedtuples as before.
2. cattrs generates the (un)structuring function of each LSP type on first use,
   10-50 ms for the larger ones, which landed in the middle of the first run.
   ``prime`` generates them ahead, off the event loop.
"""

from __future__ import annotations

import json
from collections import namedtuple
from functools import lru_cache
from typing import Any

from cattrs import Converter
from lsprotocol import types
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)


@lru_cache(maxsize=1024)
def _record_class(type_name: str, fields: tuple[str, ...]) -> Any:
    return namedtuple(type_name, fields, rename=True)


def _dict_to_object(d: Any) -> Any:
    """pygls' ``_dict_to_object`` (nested namedtuples from a dict), with cached classes."""
    if not isinstance(d, dict):
        return d
    type_name = d.pop("type_name", "Object")

    def hook(p: dict[str, Any]) -> Any:
        return _record_class(type_name, tuple(p))(*p.values())

    return json.loads(json.dumps(d), object_hook=hook)


def _params_hook(obj: dict[str, Any], cls: type) -> Any:
    if "params" in obj:
        obj["params"] = _dict_to_object(obj["params"])
    return cls(**obj)


def _result_hook(obj: dict[str, Any], cls: type) -> Any:
    if "result" in obj:
        obj["result"] = _dict_to_object(obj["result"])
    return cls(**obj)


def agentls_converter() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(JsonRPCRequestMessage, _params_hook)
    converter.register_structure_hook(JsonRPCNotification, _params_hook)
    converter.register_structure_hook(JsonRPCResponseMessage, _result_hook)
    return converter


#: What a run sends and receives besides our own methods (whose params are plain JSON).
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
