"""Code navigation: the seam between a run and whatever understands the code semantically.

A front end lends a run a ``CodeNavigator`` (``FrontEnd.navigator``): the language servers
agentls starts itself (the ``langservers`` package, the same pool that reports problems
after edits), or later the editor's own providers. With none, or for a file no navigator
covers, the tools answer from the tree-sitter symbols (``agent/tools/navigate.py``'s
textual navigator) and say the answer is textual.

The engine knows only the types here: places and locations as a workspace path (or an
absolute one, outside the workspace) with a 1-based line and a 1-based column counted in
characters of the line, and a rename as the text edits per file, never applied by the
navigator. No LSP type crosses this seam.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

Action = Literal[
    "definition",
    "references",
    "hover",
    "document_symbols",
    "workspace_symbols",
    "implementations",
    "incoming_calls",
    "outgoing_calls",
]


class NavigationError(Exception):
    """The navigator cannot answer (no server, it died, the place means nothing to it);
    the message says why, in words the model can act on."""


class NoAnswer(NavigationError):
    """Nobody in a chain of navigators has an answer for the file (an editor without a
    provider for its language, no server behind it): not an error of the question, so the
    tools answer from the tree-sitter symbols instead, saying why."""


@dataclass(frozen=True)
class Place:
    """Where a question is asked: ``text`` is the file's text as the run sees it (the
    navigator makes it the server's text first)."""

    path: str
    line: int
    col: int
    text: str


@dataclass(frozen=True)
class Location:
    path: str  # workspace-relative with forward slashes, or absolute outside the workspace
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # "class", "method", "function", "variable"...
    location: Location
    #: The enclosing symbols' names, outermost first (``Store`` for ``Store.save``).
    container: tuple[str, ...] = ()
    detail: str = ""

    @property
    def qualified(self) -> str:
        return ".".join((*self.container, self.name))


@dataclass(frozen=True)
class Call:
    """One caller (incoming) or callee (outgoing) and the lines of the calls."""

    symbol: Symbol
    #: Where the calls are: in the caller's file (incoming), in the asked function's file
    #: (outgoing).
    sites: tuple[Location, ...] = ()


@dataclass(frozen=True)
class TextEdit:
    """Replace ``line:col``..``end_line:end_col`` (1-based, end exclusive) by ``new_text``."""

    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str


@dataclass(frozen=True)
class FileEdits:
    path: str  # as in Location
    edits: tuple[TextEdit, ...]
    #: The text the server computed the edits against when it is known (a document the
    #: navigator sent it), so a file changed since is refused; None: read from its disk.
    base_text: str | None = None


@dataclass(frozen=True)
class Answer:
    """What a navigator found, and who found it (``by``: "basedpyright", "tree-sitter")."""

    by: str
    locations: list[Location] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    hover: str = ""


class CodeNavigator(Protocol):
    """Whatever answers questions about the code by its meaning (see the module's doc)."""

    #: The answers come from names, not from the code's meaning (tree-sitter).
    textual: bool

    def covers(self, path: str) -> bool:
        """Whether this navigator can answer about ``path`` (a language it serves, a
        server that can start)."""

    def why_not(self, path: str) -> str:
        """Why it does not answer for ``path`` now ("" when it does): no server for such
        files, an untrusted folder, a server that died."""

    def languages(self) -> list[str]:
        """The file extensions it answers for now (``[".py"]``), for the system prompt;
        cheap (nothing is started)."""

    async def ask(self, action: Action, place: Place) -> Answer:
        """Answer ``action`` at ``place`` (``document_symbols``: ``place``'s file;
        ``workspace_symbols``: not used, see ``workspace_symbols``). Raises
        NavigationError."""

    async def workspace_symbols(self, query: str, near: str) -> Answer:
        """The symbols whose name matches ``query`` in the workspace; ``near`` is a file
        of the language asked about. Raises NavigationError."""

    async def rename(self, place: Place, new_name: str) -> tuple[str, list[FileEdits]]:
        """The edits that rename the symbol at ``place`` to ``new_name`` everywhere
        (not applied), and who computed them. Raises NavigationError."""


def navigation_hint(navigator: CodeNavigator | None, tools: list[str]) -> str:
    """The system prompt's line on semantic navigation, when a navigator answers for some
    languages and the agent has the tool ('' otherwise); the same on every step."""
    if navigator is None or (tools and "navigate_code" not in tools):
        return ""
    languages = navigator.languages()
    if not languages:
        return ""
    rename = (
        "; `rename_symbol` renames a symbol across files"
        if not tools or "rename_symbol" in tools
        else ""
    )
    return (
        f"Code navigation: a language server answers for {', '.join(languages)} files. For "
        "them, prefer `navigate_code` (definition, references by meaning, hover for types, "
        "implementations, callers and callees) to grep or find_references" + rename + "."
    )


# -- columns: the engine counts characters, LSP counts UTF-16 units ----------------------


def utf16_units(text: str, line: int, col: int) -> int:
    """The engine's 1-based ``line`` and character column ``col`` of ``text`` as the
    0-based UTF-16 offset an LSP position carries."""
    rows = text.split("\n")
    row = rows[line - 1] if 0 < line <= len(rows) else ""
    return len(row[: col - 1].encode("utf-16-le")) // 2


def from_utf16(text: str | None, line: int, units: int) -> tuple[int, int]:
    """An LSP position (0-based ``line``, UTF-16 ``units``) as the engine's 1-based line and
    character column; the units are taken as characters when the text is not known."""
    if text is None:
        return line + 1, units + 1
    rows = text.split("\n")
    row = rows[line] if line < len(rows) else ""
    counted = 0
    for index, char in enumerate(row):
        if counted >= units:
            return line + 1, index + 1
        counted += 2 if ord(char) > 0xFFFF else 1
    return line + 1, len(row) + 1
