"""TypeScript declarations from a JSON Schema: the subset pydantic emits.

``$defs`` become exported declarations (an ``interface`` per object with properties, a
``type`` for the rest, and for an enum the array of its values, ``<Name>Values``, with the
type read from it);
descriptions become doc comments; a property that is not ``required`` is optional.
What pydantic does not emit for our models (``if``/``then``, ``patternProperties``,
tuples) is not translated: it fails loudly, so a model that needs it is noticed when
the file is regenerated, not in the extension.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
IGNORED = {
    "title",
    "default",
    "description",
    "examples",
    "discriminator",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "pattern",
    "format",
}


def type_name(ref: str) -> str:
    """``#/$defs/RunParams`` → ``RunParams`` (pydantic's ``-Input`` suffixes folded in)."""
    return re.sub(r"[^A-Za-z0-9_$]", "", ref.rsplit("/", 1)[-1])


def doc_comment(text: str | None, indent: str = "") -> list[str]:
    if not text:
        return []
    text = text.strip().replace("*/", "* /").replace("``", "`")
    lines = [line.rstrip() for line in text.splitlines()]
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in lines), f"{indent} */"]


def _literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


def _union(parts: list[str]) -> str:
    unique = list(dict.fromkeys(parts))
    return " | ".join(unique) if unique else "never"


def _array_of(item: str) -> str:
    return f"({item})[]" if " | " in item else f"{item}[]"


def _key(name: str) -> str:
    return name if IDENTIFIER.match(name) else _literal(name)


def ts_type(schema: Any, indent: str = "") -> str:
    """The TypeScript type of ``schema`` (inline)."""
    if schema is True or schema == {}:
        return "unknown"
    if schema is False:
        return "never"
    unknown = (
        set(schema)
        - IGNORED
        - {
            "$ref",
            "anyOf",
            "oneOf",
            "allOf",
            "const",
            "enum",
            "type",
            "items",
            "properties",
            "required",
            "additionalProperties",
        }
    )
    if unknown:
        raise ValueError(f"cannot translate JSON Schema keywords {sorted(unknown)}: {schema}")
    if "$ref" in schema:
        return type_name(schema["$ref"])
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return ts_type(schema["allOf"][0], indent)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union([ts_type(s, indent) for s in schema[key]])
    if "const" in schema:
        return _literal(schema["const"])
    if "enum" in schema:
        return _union([_literal(v) for v in schema["enum"]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([ts_type({**schema, "type": k}, indent) for k in kind])
    if kind == "string":
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        return _array_of(ts_type(schema.get("items", True), indent))
    if kind == "object" or "properties" in schema:
        return _object(schema, indent)
    raise ValueError(f"cannot translate JSON Schema {schema}")


def _members(schema: dict[str, Any], indent: str, inherited: Collection[str] = ()) -> list[str]:
    required = set(schema.get("required", ()))
    lines: list[str] = []
    for name, prop in schema.get("properties", {}).items():
        if name in inherited:
            continue
        lines.extend(doc_comment(prop.get("description"), indent))
        optional = "" if name in required else "?"
        lines.append(f"{indent}{_key(name)}{optional}: {ts_type(prop, indent)};")
    return lines


def _object(schema: dict[str, Any], indent: str) -> str:
    extra = schema.get("additionalProperties", True)
    if not schema.get("properties"):
        return "Record<string, never>" if extra is False else f"Record<string, {ts_type(extra)}>"
    inner = indent + "  "
    body = _members(schema, inner)
    if extra is not False:
        body.append(f"{inner}[key: string]: {ts_type(extra, inner)};")
    return "{\n" + "\n".join(body) + f"\n{indent}}}"


@dataclass(frozen=True)
class Parent:
    """The interface a declaration extends, and the properties it has from it (its own
    and its parents'), which the declaration does not list again."""

    name: str
    properties: frozenset[str]


def is_enum(schema: dict[str, Any]) -> bool:
    """A bare list of allowed values (nothing else constrains it)."""
    return bool(schema.get("enum")) and set(schema) <= IGNORED | {"enum", "type"}


def declaration(name: str, schema: dict[str, Any], parent: Parent | None = None) -> str:
    """``export interface name {...}`` (``extends`` the parent's when given),
    ``export type name = ...;``, or for an enum its values and the type read from them."""
    if is_enum(schema):
        # The values are needed at run time too (settings validation, pickers), so they
        # are written once, as an array, and the type is read from it.
        listed = ", ".join(_literal(v) for v in schema["enum"])
        return "\n".join(
            [
                *doc_comment(f"Every `{name}`, in order."),
                f"export const {name}Values = [{listed}] as const;",
                *doc_comment(schema.get("description")),
                f"export type {name} = (typeof {name}Values)[number];",
            ]
        )
    lines = doc_comment(schema.get("description"))
    if schema.get("type") == "object" and schema.get("properties"):
        extends = f" extends {parent.name}" if parent is not None else ""
        lines.append(f"export interface {name}{extends} {{")
        lines.extend(_members(schema, "  ", parent.properties if parent is not None else ()))
        if schema.get("additionalProperties", True) is not False:
            lines.append(f"  [key: string]: {ts_type(schema.get('additionalProperties', True))};")
        lines.append("}")
    else:
        lines.append(f"export type {name} = {ts_type(schema)};")
    return "\n".join(lines)


def declarations(schema: dict[str, Any]) -> list[str]:
    """Every ``$defs`` entry of ``schema``, in order."""
    return [declaration(type_name(name), sub) for name, sub in schema.get("$defs", {}).items()]
