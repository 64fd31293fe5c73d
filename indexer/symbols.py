"""Definitions and references of one source file, from tree-sitter grammars.

Each grammar is a PyPI wheel with the parser compiled in (``tree-sitter-python``,
``-javascript``, ``-typescript``, ``-go``, ``-rust``, ``-java``, ``-c``, ``-cpp``):
nothing is downloaded or built at run time. Nodes are found with tree-sitter
queries, which walk the tree in C; Python only sees the matches.
"""

from __future__ import annotations

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
    """The definitions and references of one file, packed into one string and one array.

    A large workspace has tens of thousands of files and hundreds of thousands of
    definitions and references. As objects of their own (a ``Definition`` with its
    strings, a tuple of int objects per referenced name, a container per field) they cost
    150-250 bytes apiece and several hundred bytes a file; packed, about the length of
    their text, plus two objects a file. Both are unpacked only for what a query or the
    map reads.

    ``_text`` is lines: the kinds (one character each, so its length is the number of
    definitions), then each definition's name, then each signature, then each referenced
    name. ``_numbers`` is the number of referenced names, then each definition's line,
    then how many lines each referenced name has, then those lines, name after name.
    """

    __slots__ = ("_numbers", "_text")

    def __init__(
        self,
        definitions: Iterable[Definition] = (),
        references: Mapping[str, Sequence[int]] | None = None,
    ) -> None:
        defs = list(definitions)
        refs = references or {}
        self._text = "\n".join(
            [
                "".join(KIND_CODES[d.kind] for d in defs),
                *(_one_line(d.name) for d in defs),
                *(_one_line(d.signature) for d in defs),
                *(_one_line(name) for name in refs),
            ]
        )
        numbers = [len(refs), *(d.line for d in defs)]
        numbers.extend(len(at) for at in refs.values())
        numbers.extend(chain.from_iterable(refs.values()))
        self._numbers = _number_array(numbers)

    @classmethod
    def packed(cls, fields: Sequence[str]) -> FileSymbols:
        """From ``to_packed``'s strings; ValueError when they do not agree."""
        text, numbers = fields
        symbols = cls()
        symbols._text = text
        symbols._numbers = _number_array([int(n) for n in numbers.split()])
        kinds = text.split("\n", 1)[0]
        count = len(kinds)
        if not symbols._numbers or not set(kinds) <= _KINDS_BY_CODE.keys():
            raise ValueError("packed symbols without a valid header")
        named = symbols._numbers[0]
        counts = symbols._numbers[1 + count : 1 + count + named]
        if (
            text.count("\n") != 2 * count + named
            or len(counts) != named
            or len(symbols._numbers) != 1 + count + named + sum(counts)
        ):
            raise ValueError("packed symbols whose fields do not agree")
        return symbols

    def to_packed(self) -> list[str]:
        """Two strings that ``packed`` reads back (the disk cache's form): decoding them
        makes two objects per file, where objects per definition and reference would
        leave a cache load's memory fragmented."""
        return [self._text, " ".join(map(str, self._numbers))]

    # -- definitions
    @property
    def count(self) -> int:
        """How many definitions the file has."""
        return self._text.find("\n") if self._text else 0

    def names(self) -> list[str]:
        """The defined names, in file order."""
        count = self.count
        return self._text.split("\n", 1 + count)[1 : 1 + count]

    def defines(self, name: str) -> bool:
        return name in self._text and name in self.names()

    @property
    def definitions(self) -> list[Definition]:
        """The definitions, unpacked, in file order."""
        count = self.count
        lines = self._text.split("\n", 1 + 2 * count)
        return [
            Definition(name, _KINDS_BY_CODE[code], line, signature)
            for code, name, signature, line in zip(
                lines[0],
                lines[1 : 1 + count],
                lines[1 + count : 1 + 2 * count],
                self._numbers[1 : 1 + count],
                strict=True,
            )
        ]

    # -- references
    def referenced_names(self) -> list[str]:
        return self._text.split("\n")[1 + 2 * self.count :]

    def reference_counts(self) -> Iterator[tuple[str, int]]:
        """Each referenced name with the number of its lines kept."""
        count = self.count
        named = self._numbers[0]
        return zip(
            self.referenced_names(),
            self._numbers[1 + count : 1 + count + named],
            strict=True,
        )

    def lines_of(self, name: str) -> tuple[int, ...]:
        """The 1-based lines that refer to ``name`` (at most MAX_REF_LINES)."""
        if name not in self._text:
            return ()
        return self.references.get(name, ())

    @property
    def references(self) -> dict[str, tuple[int, ...]]:
        """Referenced name -> its 1-based lines, unpacked."""
        out: dict[str, tuple[int, ...]] = {}
        start = 1 + self.count + self._numbers[0]
        for name, many in self.reference_counts():
            out[name] = tuple(self._numbers[start : start + many])
            start += many
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileSymbols):
            return NotImplemented
        return self._text == other._text and self._numbers == other._numbers

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FileSymbols({self.definitions!r}, {self.references!r})"


def _number_array(numbers: list[int]) -> array[int]:
    """Two bytes a number where every one fits (lines below 65,536: nearly every file),
    four otherwise: the numbers are most of a large workspace's symbols."""
    return array("H" if not numbers or max(numbers) <= 0xFFFF else "I", numbers)


def _one_line(text: str) -> str:
    return text.replace("\n", " ")


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
#: Whether this process has loaded a grammar (the language server asks: it never should).
grammar_loaded = False


def _compiled(name: str) -> _Compiled:
    global grammar_loaded
    cache: dict[str, _Compiled] = _local.__dict__.setdefault("grammars", {})
    compiled = cache.get(name)
    if compiled is None:
        spec = _GRAMMARS[name]
        language_fn: Callable[[], Any] = getattr(import_module(spec.module), spec.function)
        grammar_loaded = True
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
