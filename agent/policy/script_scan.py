"""Reading sed scripts and awk programs just far enough to see whether they run commands.

Both languages can start programs: sed with its ``e`` command and the ``e`` flag of
``s///`` (and write files with ``w``), awk with ``system()``, ``getline`` from a
command, pipes and output redirection. An allow rule for ``sed*`` or ``awk*`` must not
let those through, so the script is read here.

The sed reader follows GNU sed's grammar command by command; a script it cannot read
is reported as such (a human is asked rather than a guess made). awk is not parsed:
its program text is searched for the constructs, strings and regular expressions
included, because stripping strings could be fooled (a quote inside a regular
expression) into hiding a call. A false alarm only means a question.
"""

from __future__ import annotations

import re

#: (what, reason) of a finding.
Finding = tuple[str, str]

SED_EXEC: Finding = ("e", "runs a shell command from its script (the `e` command)")
SED_EXEC_FLAG: Finding = (
    "s///e",
    "runs the result of a substitution as a shell command (the `e` flag)",
)
SED_WRITE: Finding = ("w", "writes to a file named in its script (`w`)")
SED_UNREADABLE = (
    "has a script that could not be read to rule out `e` (run a command) and `w` (write a file)"
)

_SIMPLE = set("=dDgGhHlnNpPqQxzFL")
_WITH_NUMBER = set("lLqQ")


class _Unreadable(Exception):
    pass


class _SedReader:
    def __init__(self, script: str) -> None:
        self.text = script
        self.at = 0
        self.found: list[Finding] = []

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def blanks(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.at += 1

    def to_line_end(self) -> str:
        end = self.text.find("\n", self.at)
        end = len(self.text) if end < 0 else end
        value = self.text[self.at : end]
        self.at = end
        return value

    def to_separator(self) -> None:
        while self.peek() and self.peek() not in ";\n}":
            self.at += 1

    def delimited(self, delimiter: str) -> None:
        """Skip to just past the next unescaped ``delimiter``."""
        if delimiter in ("", "\n", "\\"):
            raise _Unreadable
        while True:
            char = self.peek()
            if not char:
                raise _Unreadable
            self.at += 1
            if char == "\\":
                self.at += 1
            elif char == delimiter:
                return

    def address(self) -> None:
        char = self.peek()
        if char.isdigit():
            while self.peek().isdigit():
                self.at += 1
            if self.peek() == "~":
                self.at += 1
                while self.peek().isdigit():
                    self.at += 1
        elif char == "$":
            self.at += 1
        elif char in ("/", "\\"):
            if char == "\\":
                self.at += 1
                char = self.peek()
            self.at += 1
            self.delimited(char)
            while self.peek() in ("I", "M") and self.peek():
                self.at += 1

    def read(self) -> list[Finding]:
        while self.at < len(self.text):
            char = self.peek()
            if char in " \t\n;":
                self.at += 1
                continue
            if char == "#":
                self.to_line_end()
                continue
            self.address()
            self.blanks()
            if self.peek() == ",":
                self.at += 1
                self.blanks()
                if self.peek() in ("+", "~"):
                    self.at += 1
                self.address()
                self.blanks()
            while self.peek() == "!":
                self.at += 1
                self.blanks()
            self.command()
        return self.found

    def command(self) -> None:
        char = self.peek()
        if not char:
            raise _Unreadable
        self.at += 1
        if char in "{}":
            return
        if char in _SIMPLE:
            if char in _WITH_NUMBER:
                self.blanks()
                while self.peek().isdigit():
                    self.at += 1
            return
        if char in ":btTv":
            self.blanks()
            if char == ":":
                self.to_line_end_or_semicolon()
            else:
                self.to_separator()
            return
        if char in "aic":
            self.text_argument()
            return
        if char in "rR":
            self.to_line_end()
            return
        if char in "wW":
            self.found.append(SED_WRITE)
            self.to_line_end()
            return
        if char == "e":
            self.found.append(SED_EXEC)
            self.to_line_end()
            return
        if char == "s":
            self.substitute()
            return
        if char == "y":
            delimiter = self.peek()
            self.at += 1
            self.delimited(delimiter)
            self.delimited(delimiter)
            return
        raise _Unreadable

    def to_line_end_or_semicolon(self) -> None:
        while self.peek() and self.peek() not in ";\n":
            self.at += 1

    def text_argument(self) -> None:
        """``a``, ``i``, ``c``: text to the end of the line, lines joined by ``\\``."""
        while self.peek():
            char = self.peek()
            self.at += 1
            if char == "\\":
                self.at += 1
            elif char == "\n":
                return

    def substitute(self) -> None:
        delimiter = self.peek()
        self.at += 1
        self.delimited(delimiter)
        self.delimited(delimiter)
        while self.peek():
            flag = self.peek()
            if flag in "gpiImM0123456789":
                self.at += 1
            elif flag == "e":
                self.found.append(SED_EXEC_FLAG)
                self.at += 1
            elif flag == "w":
                self.found.append(SED_WRITE)
                self.to_line_end()
                return
            else:
                return


def sed_findings(script: str) -> Finding | None:
    """The first way a sed script runs a command or writes a file (running first)."""
    try:
        found = _SedReader(script).read()
    except _Unreadable:
        return ("(script)", SED_UNREADABLE)
    for finding in (SED_EXEC, SED_EXEC_FLAG, SED_WRITE):
        if finding in found:
            return finding
    return None


_AWK_WORDS: tuple[tuple[re.Pattern[str], Finding], ...] = (
    (re.compile(r"\bsystem\b"), ("system()", "runs shell commands from its program (`system()`)")),
    (re.compile(r"\bgetline\b"), ("getline", "can read the output of a shell command (`getline`)")),
    (
        re.compile(r"@\s*(load|include)\b"),
        ("@load", "loads code from other files (`@load`, `@include`)"),
    ),
    (re.compile(r"(?<!\|)\|(?!\|)"), ("|", "pipes to or from a shell command (`|`)")),
)
_PRINT = re.compile(r"\bprintf?\b")


def awk_findings(program: str) -> Finding | None:
    """The first way an awk program runs a command or writes a file, or None."""
    for pattern, finding in _AWK_WORDS:
        if pattern.search(program):
            return finding
    if _print_redirects(program):
        return (">", "writes to a file from its program (`print > file`)")
    return None


def _print_redirects(program: str) -> bool:
    """Whether a ``print`` or ``printf`` statement has a ``>`` outside parentheses (awk
    reads ``print a > b`` as output to the file ``b``, ``print (a > b)`` as a comparison)."""
    for match in _PRINT.finditer(program):
        depth = 0
        for char in program[match.end() :]:
            if char in ";\n}":
                break
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            elif char == ">" and depth <= 0:
                return True
    return False
