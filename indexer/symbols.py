"""Definitions and references of one source file, from tree-sitter grammars.

Each grammar is a PyPI wheel with the parser compiled in (``tree-sitter-python``,
``-javascript``, ``-typescript``, ``-go``, ``-rust``, ``-java``, ``-c``, ``-cpp``):
nothing is downloaded or built at run time. Nodes are found with tree-sitter
queries, which walk the tree in C; Python only sees the matches.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from tree_sitter import Language, Node, Parser, Query, QueryCursor

MAX_SIGNATURE = 160
#: Lines kept per referenced name in one file: enough to jump to, bounded in memory.
MAX_REF_LINES = 8
#: Shorter names (``i``, ``x``, ``id``) are everywhere and rank nothing.
MIN_REF_LENGTH = 3


@dataclass(frozen=True, slots=True)
class Definition:
    name: str
    kind: str  # class, function, method, interface, struct, enum, trait, type
    line: int  # 1-based
    signature: str


@dataclass(slots=True)
class FileSymbols:
    definitions: list[Definition] = field(default_factory=list)
    #: Referenced name -> 1-based lines (at most MAX_REF_LINES).
    references: dict[str, Sequence[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Grammar:
    module: str
    function: str
    definitions: dict[str, str]  # node type -> kind
    identifiers: tuple[str, ...]  # node types that name something


_CLASSY = {"class", "interface", "struct", "trait", "enum", "impl"}

_JS_DEFS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    "variable_declarator": "function",  # only when its value is a function
}
_TS_DEFS = {
    **_JS_DEFS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
}
_C_DEFS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "enum_specifier": "enum",
}

_GRAMMARS: dict[str, _Grammar] = {
    "Python": _Grammar(
        "tree_sitter_python",
        "language",
        {"function_definition": "function", "class_definition": "class"},
        ("identifier",),
    ),
    "JavaScript": _Grammar(
        "tree_sitter_javascript",
        "language",
        _JS_DEFS,
        ("identifier", "property_identifier"),
    ),
    "TypeScript": _Grammar(
        "tree_sitter_typescript",
        "language_typescript",
        _TS_DEFS,
        ("identifier", "property_identifier", "type_identifier"),
    ),
    "TSX": _Grammar(
        "tree_sitter_typescript",
        "language_tsx",
        _TS_DEFS,
        ("identifier", "property_identifier", "type_identifier"),
    ),
    "Go": _Grammar(
        "tree_sitter_go",
        "language",
        {
            "function_declaration": "function",
            "method_declaration": "method",
            "type_spec": "type",
        },
        ("identifier", "field_identifier", "type_identifier"),
    ),
    "Rust": _Grammar(
        "tree_sitter_rust",
        "language",
        {
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "trait_item": "trait",
            "impl_item": "impl",
        },
        ("identifier", "field_identifier", "type_identifier"),
    ),
    "Java": _Grammar(
        "tree_sitter_java",
        "language",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "method_declaration": "method",
            "constructor_declaration": "method",
        },
        ("identifier", "type_identifier"),
    ),
    "C": _Grammar("tree_sitter_c", "language", _C_DEFS, ("identifier", "type_identifier")),
    "C++": _Grammar(
        "tree_sitter_cpp",
        "language",
        {**_C_DEFS, "class_specifier": "class"},
        ("identifier", "type_identifier", "field_identifier"),
    ),
}

#: Extensions routed to a grammar whose name the language table does not give.
_BY_EXT = {"tsx": "TSX", "jsx": "JavaScript", "mjs": "JavaScript", "cjs": "JavaScript"}


def grammar_name(language: str, ext: str) -> str | None:
    """The grammar for a file of ``language`` (indexer/languages.py's name) and ``ext``."""
    name = _BY_EXT.get(ext.lower(), language)
    if name in {"C header", "Objective-C"}:
        name = "C"
    return name if name in _GRAMMARS else None


def supported_languages() -> list[str]:
    return sorted(_GRAMMARS)


@dataclass
class _Compiled:
    parser: Parser
    #: Definitions (``@def``) and names (``@ref``) in one query: one walk of the tree.
    query: Query
    kinds: dict[str, str]


_local = threading.local()  # parsers are not shared between threads


def _compiled(name: str) -> _Compiled:
    cache: dict[str, _Compiled] = _local.__dict__.setdefault("grammars", {})
    compiled = cache.get(name)
    if compiled is None:
        spec = _GRAMMARS[name]
        language_fn: Callable[[], Any] = getattr(import_module(spec.module), spec.function)
        language = Language(language_fn())
        defs = " ".join(f"({node_type}) @def" for node_type in spec.definitions)
        idents = " ".join(f"({node_type}) @ref" for node_type in spec.identifiers)
        compiled = _Compiled(
            Parser(language), Query(language, f"{defs} {idents}"), spec.definitions
        )
        cache[name] = compiled
    return compiled


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _name_node(node: Node) -> Node | None:
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in {"arrow_function", "function_expression"}:
            return None
        return node.child_by_field_name("name")
    if node.type == "impl_item":
        return node.child_by_field_name("type")
    if node.type in {"struct_specifier", "enum_specifier", "class_specifier"}:
        # A use (`struct point p;`) names the type too; only a body defines it.
        if node.child_by_field_name("body") is None:
            return None
        return node.child_by_field_name("name")
    named = node.child_by_field_name("name")
    if named is not None:
        return named
    # C/C++: the name sits at the bottom of a declarator chain (pointer, function...).
    declarator = node.child_by_field_name("declarator")
    while declarator is not None:
        if declarator.type in {
            "identifier",
            "field_identifier",
            "qualified_identifier",
            "destructor_name",
            "operator_name",
        }:
            return declarator
        declarator = declarator.child_by_field_name("declarator")
    return None


def _scope(node: Node, kinds: dict[str, str]) -> str:
    """ "class" inside a class-like definition, "function" inside a function, else ""."""
    parent = node.parent
    while parent is not None:
        kind = kinds.get(parent.type)
        if kind in _CLASSY:
            return "class"
        if kind in {"function", "method"} and parent.type != "variable_declarator":
            return "function"
        parent = parent.parent
    return ""


def extract(source: bytes, grammar: str) -> FileSymbols:
    """The definitions and references in ``source``, parsed with ``grammar``."""
    compiled = _compiled(grammar)
    tree = compiled.parser.parse(source)
    root = tree.root_node
    lines = source.split(b"\n")
    symbols = FileSymbols()
    defined_at: set[tuple[int, int]] = set()
    captures = QueryCursor(compiled.query).captures(root)
    for node in captures.get("def", []):
        name_node = _name_node(node)
        name = _text(name_node)
        if not name or name_node is None:
            continue
        kind = compiled.kinds[node.type]
        scope = _scope(node, compiled.kinds)
        if scope == "function":  # a local helper is not part of the file's interface
            continue
        if kind == "function" and scope == "class":
            kind = "method"
        row = node.start_point.row
        signature = lines[row].decode("utf-8", "replace").strip() if row < len(lines) else ""
        symbols.definitions.append(
            Definition(name.rsplit("::", 1)[-1], kind, row + 1, signature[:MAX_SIGNATURE])
        )
        defined_at.add((name_node.start_byte, name_node.end_byte))
    symbols.definitions.sort(key=lambda d: d.line)
    # The hot loop of a first fill (hundreds of thousands of identifiers): names stay
    # bytes, sliced from the source, until the file is done, and each is decoded once.
    raw: dict[bytes, list[int]] = {}
    for node in captures.get("ref", []):
        start, end = node.start_byte, node.end_byte
        if end - start < MIN_REF_LENGTH or (start, end) in defined_at:
            continue
        at = raw.get(source[start:end])
        if at is None:
            at = raw[source[start:end]] = []
        elif len(at) >= MAX_REF_LINES:
            continue
        line = node.start_point.row + 1
        if not at or at[-1] != line:
            at.append(line)
    # Names recur in thousands of files, and line lists never change once built:
    # one shared string per name and tuples keep a large workspace's symbols small.
    refs = symbols.references
    for key, lines_of in raw.items():
        refs[sys.intern(key.decode("utf-8", "replace"))] = tuple(lines_of)
    return symbols
