"""The protocol's JSON Schema and the TypeScript types of the VS Code extension, both
generated from the pydantic models (``agent/contract.py``, ``server/protocol.py``) so
that no client can drift from the server.

``python -m agentls.server.protocol_schema`` writes ``agent/schema/protocol.schema.json``
and ``client-vscode/src/generated/protocol.ts``; with ``--check`` it writes nothing and
exits 1 when either is out of date (the unit tests check the same).

Params the client sends are described as the server validates them; results and
notifications the server sends, as it serializes them. ``x-methods`` maps each method
name to its params and result.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import (
    GenerateJsonSchema,
    JsonSchemaMode,
    JsonSchemaValue,
    models_json_schema,
)
from pydantic_core import core_schema
from typing_extensions import TypeAliasType

from agentls import generated_files
from agentls.agent.config.docs import SCHEMA_PATH as CONFIG_SCHEMA_PATH
from agentls.agent.contract import WireModel
from agentls.server.protocol import METHODS, Method
from agentls.server.schema_ts import Parent, declaration, doc_comment, is_enum, type_name

SCHEMA_PATH = CONFIG_SCHEMA_PATH.with_name("protocol.schema.json")
REPO_ROOT = Path(__file__).resolve().parent.parent
TS_PATH = REPO_ROOT / "client-vscode" / "src" / "generated" / "protocol.ts"
REF = "#/$defs/{model}"

TS_HEADER = """\
// Generated from agent/schema/protocol.schema.json by
// `python -m agentls.server.protocol_schema`: do not edit. Change the models in
// agent/contract.py or server/protocol.py and run the command again.
"""


class WireSchema(GenerateJsonSchema):
    """pydantic's schema, made exact for what the server sends: a field with a default
    is always written unless that default is None (``to_wire`` may leave those out),
    and nothing but the declared fields is ever written."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        inner = field["schema"]
        if self.mode == "serialization" and inner["type"] == "default":
            return inner.get("default", ...) is not None
        return super().field_is_required(field, total)

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        if self.mode == "serialization":
            json_schema.setdefault("additionalProperties", False)
            cls = schema["cls"]
            if issubclass(cls, WireModel) and cls.omit_none:
                _drop_nulls(json_schema)
        return json_schema


def _drop_nulls(json_schema: JsonSchemaValue) -> None:
    """``to_wire`` leaves out a None instead of sending null: the optional fields of
    such a model are absent or set, never null."""
    required = set(json_schema.get("required", ()))
    for name, prop in json_schema.get("properties", {}).items():
        options = prop.get("anyOf")
        if name in required or not options or {"type": "null"} not in options:
            continue
        rest = [o for o in options if o != {"type": "null"}]
        del prop["anyOf"]
        prop.pop("default", None)
        if len(rest) == 1:
            prop.update(rest[0])
        else:
            prop["anyOf"] = rest


def _modes(method: Method) -> tuple[JsonSchemaMode, JsonSchemaMode]:
    """How the params and the result of ``method`` are described: as the server
    validates what it receives, and as it serializes what it sends."""
    if method.direction == "clientToServer":
        return "validation", "serialization"
    return "serialization", "validation"


def _models() -> list[tuple[type[WireModel], JsonSchemaMode]]:
    seen: dict[tuple[type[WireModel], JsonSchemaMode], None] = {}
    for method in METHODS:
        params_mode, result_mode = _modes(method)
        seen[(method.params, params_mode)] = None
        if method.result is not None:
            seen[(method.result, result_mode)] = None
    return list(seen)


def protocol_schema() -> dict[str, Any]:
    refs, schema = models_json_schema(_models(), ref_template=REF, schema_generator=WireSchema)
    methods: dict[str, Any] = {}
    for method in METHODS:
        params_mode, result_mode = _modes(method)
        entry: dict[str, Any] = {
            "key": method.key,
            "kind": method.kind,
            "direction": method.direction,
            "params": refs[(method.params, params_mode)],
        }
        if method.result is not None:
            entry["result"] = refs[(method.result, result_mode)]
        methods[method.name] = entry
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentls protocol (agent/* methods over LSP)",
        "description": "Params and results of the agent/* requests and notifications; "
        "see docs/protocol.md. `x-methods` maps each method to its types.",
        "x-methods": methods,
        **schema,
    }


def _method_tables(schema: dict[str, Any]) -> list[str]:
    methods: dict[str, Any] = schema["x-methods"]
    lines = [*doc_comment("The method names of the protocol."), "export const Methods = {"]
    lines += [f"  {m['key']}: '{name}'," for name, m in methods.items()]
    lines.append("} as const;")
    tables = {
        ("request", "clientToServer"): "ClientRequests",
        ("notification", "clientToServer"): "ClientNotifications",
        ("request", "serverToClient"): "ServerRequests",
        ("notification", "serverToClient"): "ServerNotifications",
    }
    for (kind, direction), table in tables.items():
        rows = [
            (n, m) for n, m in methods.items() if (m["kind"], m["direction"]) == (kind, direction)
        ]
        if not rows:
            continue
        lines.append("")
        what = "requests" if kind == "request" else "notifications"
        sender = "client" if direction == "clientToServer" else "server"
        shape = "params and result" if kind == "request" else "params"
        lines += doc_comment(f"The {what} the {sender} sends: method → {shape}.")
        lines.append(f"export interface {table} {{")
        for name, method in rows:
            params = type_name(method["params"]["$ref"])
            if kind == "notification":
                lines.append(f"  '{name}': {params};")
            else:
                result = type_name(method["result"]["$ref"])
                lines.append(f"  '{name}': {{ params: {params}; result: {result} }};")
        lines.append("}")
    return lines


def _classes(models: Iterable[type[BaseModel]]) -> dict[str, type[BaseModel]]:
    """``models`` and every model their fields use, by class name (the names of ``$defs``)."""
    found: dict[str, type[BaseModel]] = {}
    todo = list(models)
    while todo:
        cls = todo.pop()
        if cls.__name__ not in found:
            found[cls.__name__] = cls
            todo.extend(m for f in cls.model_fields.values() for m in _models_in(f.annotation))
    return found


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in get_args(annotation):
        yield from _models_in(arg)
    if isinstance(annotation, TypeAliasType):  # a named union (``SessionEntry``)
        yield from _models_in(annotation.__value__)


def _field_bases(cls: type[BaseModel]) -> list[type[BaseModel]]:
    """The base classes of ``cls`` that declare fields of their own, nearest first."""
    return [
        base
        for base in cls.__mro__[1:]
        if isinstance(base, type) and issubclass(base, BaseModel) and _declares_fields(base)
    ]


def _declares_fields(cls: type[BaseModel]) -> bool:
    inherited: set[str] = set()
    for base in cls.__bases__:
        if issubclass(base, BaseModel):
            inherited.update(base.model_fields)
    return bool(set(cls.model_fields) - inherited)


class _Bases:
    """The base classes that two or more declared models share, each an interface of
    its own that they extend, so that its fields are declared once. A base is shared
    only where its fields are the same in every model that has them (a model may be
    described as the server validates it, another as it serializes)."""

    def __init__(self, defs: dict[str, Any], classes: dict[str, type[BaseModel]]) -> None:
        children: dict[type[BaseModel], list[dict[str, Any]]] = {}
        self.bases_of = {
            name: _field_bases(classes[name])
            for name, sub in defs.items()
            if name in classes and sub.get("properties")
        }
        for name, bases in self.bases_of.items():
            for base in bases:
                children.setdefault(base, []).append(defs[name])
        self.schemas: dict[type[BaseModel], dict[str, Any]] = {}
        for base, subs in children.items():
            schema = _common(base, subs)
            if len(subs) >= 2 and schema is not None:
                if _ts_name(base) in defs:
                    raise ValueError(f"the interface of {base.__name__} would hide a model")
                self.schemas[base] = schema

    def parent(self, bases: list[type[BaseModel]]) -> type[BaseModel] | None:
        """The nearest of ``bases`` that is shared."""
        return next((base for base in bases if base in self.schemas), None)

    def declaration(self, name: str, schema: dict[str, Any], bases: list[type[BaseModel]]) -> str:
        """``name``'s declaration, extending its nearest shared base."""
        base = self.parent(bases)
        if base is None:
            return declaration(name, schema)
        inherited = frozenset(self.schemas[base]["properties"])
        return declaration(name, schema, Parent(_ts_name(base), inherited))


def _ts_name(base: type[BaseModel]) -> str:
    return base.__name__.lstrip("_")


def _common(base: type[BaseModel], subs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The schema of ``base``'s fields, when they are described alike in every one of
    ``subs``; else None."""
    names = [info.alias or name for name, info in base.model_fields.items()]
    first = subs[0]["properties"]
    required = set(subs[0].get("required", ()))
    for sub in subs:
        properties = sub["properties"]
        for name in names:
            alike = name in properties and properties[name] == first.get(name)
            if not alike or (name in sub.get("required", ())) != (name in required):
                return None
    doc = base.__dict__.get("__doc__")
    return {
        "type": "object",
        **({"description": inspect.cleandoc(doc)} if doc else {}),
        "properties": {name: first[name] for name in names},
        "required": [name for name in names if name in required],
        "additionalProperties": False,
    }


def _declarations(schema: dict[str, Any]) -> list[str]:
    """Every ``$defs`` entry of ``schema``: the enums first, as the vocabulary the rest
    uses, then the others in order, each shared base class just before the first model
    that extends it."""
    defs = {type_name(name): sub for name, sub in schema.get("$defs", {}).items()}
    shared = _Bases(defs, _classes(model for model, _ in _models()))
    lines = [declaration(name, sub) for name, sub in defs.items() if is_enum(sub)]
    defs = {name: sub for name, sub in defs.items() if not is_enum(sub)}
    declared: set[type[BaseModel]] = set()
    for name, sub in defs.items():
        bases = shared.bases_of.get(name, [])
        chain = []
        base = shared.parent(bases)
        while base is not None and base not in declared:
            chain.append(base)
            base = shared.parent(_field_bases(base))
        for base in reversed(chain):
            declared.add(base)
            lines.append(
                shared.declaration(_ts_name(base), shared.schemas[base], _field_bases(base))
            )
        lines.append(shared.declaration(name, sub, bases))
    return lines


def typescript(schema: dict[str, Any]) -> str:
    """The extension's ``generated/protocol.ts`` for ``schema``."""
    parts = [TS_HEADER, "\n".join(_method_tables(schema)), *_declarations(schema)]
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def outputs() -> dict[Path, str]:
    schema = protocol_schema()
    return {SCHEMA_PATH: schema_text(schema), TS_PATH: typescript(schema)}


def stale() -> list[Path]:
    """The generated files that differ from what the models give (missing ones too)."""
    return generated_files.stale(outputs())


def main(argv: list[str] | None = None) -> int:
    return generated_files.main("agentls.server.protocol_schema", outputs, argv)


if __name__ == "__main__":
    sys.exit(main())
