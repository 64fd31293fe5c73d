"""Definitions and references of one source file, from tree-sitter grammars.

Each grammar is a PyPI wheel with the parser compiled in (``tree-sitter-python``,
``-javascript``, ``-typescript``, ``-go``, ``-rust``, ``-java``, ``-c``, ``-cpp``):
nothing is downloaded or built at run time. Nodes are found with tree-sitter
queries, which walk the tree in C; Python only sees the matches.
"""

from __future__ import annotations

import sys
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from itertools import chain
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


#: Each kind of definition as one character of a packed file's ``kinds``.
KIND_CODES = {
    "class": "c",
    "function": "f",
    "method": "m",
    "interface": "i",
    "struct": "s",
    "enum": "e",
    "trait": "t",
    "type": "y",
    "impl": "p",
}
_KINDS_BY_CODE = {code: kind for kind, code in KIND_CODES.items()}


class FileSymbols:
    """The definitions and references of one file.

    Both are kept packed. A large workspace has hundreds of thousands of definitions and
    references, and as objects of their own (a ``Definition`` with its strings, a tuple of
    int objects per referenced name) they cost 150-250 bytes apiece; packed, about the
    length of their text. Definitions: the names and the signatures each as one string of
    lines, the kinds one character each, the lines an array. References: the names (one
    shared string per name across files), how many lines each, and the lines, in order.
    They are unpacked only for what a query or the map shows.
    """

    __slots__ = (
        "_kinds",
        "_lines",
        "_names",
        "_ref_counts",
        "_ref_lines",
        "_ref_names",
        "_signatures",
    )

    def __init__(
        self,
        definitions: Iterable[Definition] = (),
        references: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        defs = list(definitions)
        self._names = "\n".join(_one_line(d.name) for d in defs)
        self._kinds = "".join(KIND_CODES[d.kind] for d in defs)
        self._lines = array("I", (d.line for d in defs))
        self._signatures = "\n".join(_one_line(d.signature) for d in defs)
        refs = references or {}
        self._ref_names = tuple(sys.intern(_one_line(name)) for name in refs)
        self._ref_counts = array("I", (len(at) for at in refs.values()))
        self._ref_lines = array("I", chain.from_iterable(refs.values()))

    @classmethod
    def packed(cls, fields: Sequence[str]) -> FileSymbols:
        """From ``to_packed``'s strings; ValueError when they do not agree."""
        names, kinds, lines, signatures, ref_names, ref_counts, ref_lines = fields
        count = len(kinds)
        symbols = cls()
        symbols._names, symbols._kinds, symbols._signatures = names, kinds, signatures
        symbols._lines = _numbers(lines)
        symbols._ref_counts = _numbers(ref_counts)
        symbols._ref_names = tuple(
            sys.intern(name) for name in _split(ref_names, len(symbols._ref_counts))
        )
        symbols._ref_lines = _numbers(ref_lines)
        if (
            len(symbols._lines) != count
            or not _holds(names, count)
            or not _holds(signatures, count)
            or not set(kinds) <= _KINDS_BY_CODE.keys()
            or not _holds(ref_names, len(symbols._ref_counts))
            or sum(symbols._ref_counts) != len(symbols._ref_lines)
        ):
            raise ValueError("packed symbols whose fields do not agree")
        return symbols

    def to_packed(self) -> list[str]:
        """Seven strings that ``packed`` reads back: decoding them makes a handful of
        objects per file, where one object per definition and reference would leave a
        cache load's memory fragmented."""
        return [
            self._names,
            self._kinds,
            _decimal(self._lines),
            self._signatures,
            "\n".join(self._ref_names),
            _decimal(self._ref_counts),
            _decimal(self._ref_lines),
        ]

    # -- definitions
    @property
    def count(self) -> int:
        """How many definitions the file has."""
        return len(self._kinds)

    def names(self) -> list[str]:
        """The defined names, in file order."""
        return _split(self._names, self.count)

    def defines(self, name: str) -> bool:
        return name in self._names and name in self.names()

    @property
    def definitions(self) -> list[Definition]:
        """The definitions, unpacked, in file order."""
        return [
            Definition(name, _KINDS_BY_CODE[code], line, signature)
            for name, code, line, signature in zip(
                self.names(),
                self._kinds,
                self._lines,
                _split(self._signatures, self.count),
                strict=True,
            )
        ]

    # -- references
    def referenced_names(self) -> tuple[str, ...]:
        return self._ref_names

    def reference_counts(self) -> Iterator[tuple[str, int]]:
        """Each referenced name with the number of its lines kept."""
        return zip(self._ref_names, self._ref_counts, strict=True)

    def lines_of(self, name: str) -> tuple[int, ...]:
        """The 1-based lines that refer to ``name`` (at most MAX_REF_LINES)."""
        try:
            position = self._ref_names.index(name)
        except ValueError:
            return ()
        start = sum(self._ref_counts[:position])
        return tuple(self._ref_lines[start : start + self._ref_counts[position]])

    @property
    def references(self) -> dict[str, tuple[int, ...]]:
        """Referenced name -> its 1-based lines, unpacked."""
        out: dict[str, tuple[int, ...]] = {}
        start = 0
        for name, count in self.reference_counts():
            out[name] = tuple(self._ref_lines[start : start + count])
            start += count
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileSymbols):
            return NotImplemented
        return self.to_packed() == other.to_packed()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FileSymbols({self.definitions!r}, {self.references!r})"


def _one_line(text: str) -> str:
    return text.replace("\n", " ")


def _split(packed: str, count: int) -> list[str]:
    """The ``count`` lines of ``packed`` (one empty line and none look the same)."""
    return packed.split("\n") if count else []


def _holds(packed: str, count: int) -> bool:
    """Whether ``packed`` is ``count`` lines."""
    return packed.count("\n") + 1 == count if count else not packed


def _decimal(numbers: array[int]) -> str:
    return " ".join(map(str, numbers))


def _numbers(text: str) -> array[int]:
    return array("I", map(int, text.split()))


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
    definitions: list[Definition] = []
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
        definitions.append(
            Definition(name.rsplit("::", 1)[-1], kind, row + 1, signature[:MAX_SIGNATURE])
        )
        defined_at.add((name_node.start_byte, name_node.end_byte))
    definitions.sort(key=lambda d: d.line)
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
    refs = {key.decode("utf-8", "replace"): at for key, at in raw.items()}
    return FileSymbols(definitions, refs)
