"""What a shell command would run, and whether an allow-list covers all of it.

``analyze`` parses a command with bashlex (a real shell parser, never a regex) and
lists every simple command the shell would execute: each member of a pipeline, of
an ``&&`` / ``||`` / ``;`` / newline / ``&`` list, of a subshell ``( … )`` or a group
``{ …; }``, of ``if`` / ``for`` / ``while`` bodies, and of every ``$(…)``, backtick
and ``<(…)`` / ``>(…)`` substitution, wherever it appears (arguments, assignments,
redirection targets, here-strings).

Auto-approval is deliberately conservative. Anything the analysis cannot vouch for
is a *problem*, and a command with any problem is never auto-approved (a human is
asked instead). Problems are:

* syntax bashlex cannot parse (arithmetic, ``[[ ]]``, ``case``, ``time``, quoted
  here-doc delimiters, arrays…): if the parser does not understand it, nobody can
  say what will run;
* function definitions (a function could shadow an allowed name);
* a command name that is computed (``$X``, ``$(…)``), contains whitespace, a glob or
  a brace expansion (``{rm,-rf,/}``);
* parameter expansions other than a plain ``$NAME`` / ``${NAME}`` (bashlex leaves
  ``${x:-$(cmd)}`` unparsed, so its inner command would be invisible);
* ``$'…'`` / ``$"…"`` quoting (bashlex reads them differently from bash) and any
  ``$(``, backtick or ``<(`` the parser did not turn into a substitution;
* here-documents whose body can expand (contains ``$`` or a backtick);
* output redirection to a file (``>``, ``>>``, ``>|``, ``&>``, ``<>``) other than
  ``/dev/null``; duplicating descriptors (``2>&1``) and input redirection are fine.
  Writing files is something a human should see, even inside the workspace;
* shells and evaluators (``bash``, ``sh``, ``eval``, ``source``, ``.``…): their
  argument is a program of its own; ``bash -c STRING`` is refused, not re-parsed;
* control characters (carriage return, NUL…) that shells and parsers may disagree on.

Every problem but a write and an empty command also *hides* what may run
(``ShellAnalysis.hidden``): the deny and ask rules cannot be checked against such a
command (``agent.policy.command_rules``).

A command that runs code it was given (``git -c …``, ``find -exec``, ``sed 's/x/y/e'``,
``awk 'BEGIN{system(…)}'``, ``python -c``, ``xargs``…; the table is
``agent.policy.code_execution``) never matches an allow rule, whatever the pattern, nor
does any such command inside a wrapper it names (``timeout 60 git -c … status``).

Matching rule (``matches_pattern``): a simple command is turned into text by taking
its words *after* unquoting (``p'y'test`` → ``pytest``), prefix assignments included
(``CI=1 pytest`` is the text ``CI=1 pytest``), redirections left out, joined with
single spaces. A pattern matches that text with ``fnmatch.fnmatchcase`` (``*``
matches anything, spaces included; case-sensitive), with one tightening: a pattern
that is a single word ending in ``*`` (``pytest*``, ``ls*``) means "that command with
any arguments": the first word must be exactly ``pytest`` (``pytest -q`` and
``pytest`` match, ``pytest-evil`` does not). Wrappers that run another program
(``env``, ``timeout``, ``xargs``, ``sudo``, ``nice``, ``exec``…) only match a pattern
whose first word names the wrapper itself (``timeout 60 pytest*``).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentls.agent.policy.code_execution import CodeExecution, code_execution, program_variable
from agentls.agent.policy.command_wrappers import RUNNERS, unwrap
from agentls.agent.text import one_line

#: Programs whose argument is itself a program: never auto-approved.
SHELL_EVALUATORS = frozenset(
    {
        "eval",
        "source",
        ".",
        "bash",
        "sh",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "ash",
        "rbash",
        "busybox",
        "pwsh",
        "powershell",
        "nu",
        "xonsh",
        "elvish",
    }
)

#: Programs that run another program given in their arguments.
WRAPPERS = frozenset(
    {
        "exec",
        "command",
        "builtin",
        "env",
        "timeout",
        "nice",
        "nohup",
        "sudo",
        "doas",
        "su",
        "runuser",
        "pkexec",
        "xargs",
        "time",
        "stdbuf",
        "ionice",
        "chrt",
        "taskset",
        "setsid",
        "chroot",
        "unshare",
        "nsenter",
        "flock",
        "watch",
        "strace",
        "ltrace",
        "parallel",
        "script",
    }
) | (RUNNERS - {"busybox"})

_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_SIMPLE_PARAM = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])$")
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BAD_NAME_CHARS = re.compile(r"[\s*?\[\]{}]")
_GLOB_CHARS = re.compile(r"[*?\[\]]")


@dataclass(frozen=True)
class SimpleCommand:
    """One program invocation the shell would make."""

    words: tuple[str, ...]
    assignments: tuple[str, ...] = ()
    #: Where it sits: "top", "pipeline", "substitution", "process substitution"...
    origin: str = "top"
    source: str = ""

    @property
    def name(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def text(self) -> str:
        """The text patterns are matched against (see the module docstring)."""
        return " ".join((*self.assignments, *self.words))


@dataclass(frozen=True)
class Redirect:
    kind: str
    target: str
    writes: bool


@dataclass
class ShellAnalysis:
    """Everything ``analyze`` found out about one command string."""

    command: str
    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: The problems that may hide a command (all but writes): nobody can say all that runs.
    hidden: list[str] = field(default_factory=list)
    parse_error: str | None = None
    #: Top-level steps for descriptions: (connector before it, pipeline members).
    steps: list[tuple[str, list[SimpleCommand]]] = field(default_factory=list)

    @property
    def writes(self) -> list[str]:
        return [r.target for r in self.redirects if r.writes and r.target not in _HARMLESS_TARGETS]


def analyze(command: str) -> ShellAnalysis:
    """Parse ``command`` and list what it would run; never raises."""
    result = ShellAnalysis(command=command)
    if not command.strip():
        result.problems.append("empty command")
        return result
    if _CONTROL_CHARS.search(command):
        result.problems.append("control characters in the command")
        result.hidden.append("control characters in the command")
    # Imported here: bashlex builds its parser tables on import (~0.3 s), which a run
    # that never runs a command (and every run's start) would otherwise pay.
    import bashlex

    try:
        trees = bashlex.parse(command)
    except Exception as exc:  # bashlex raises ParsingError, NotImplementedError and others
        result.parse_error = f"{type(exc).__name__}: {exc}"
        message = f"the shell parser could not read it ({result.parse_error})"
        result.problems.append(message)
        result.hidden.append(message)
        return result
    walker = _Walker(command, result)
    for index, tree in enumerate(trees):
        walker.top_level(tree, "then" if index else "")
    return result


class _Walker:
    def __init__(self, source: str, result: ShellAnalysis) -> None:
        self.source = source
        self.result = result

    def problem(self, message: str, *, hides: bool = True) -> None:
        if message not in self.result.problems:
            self.result.problems.append(message)
            if hides:
                self.result.hidden.append(message)

    def raw(self, node: Any) -> str:
        start, end = node.pos
        return str(self.source[start:end])

    # -- top level, kept in order for descriptions ----------------------------------
    def top_level(self, node: Any, connector: str) -> None:
        if node.kind == "list":
            pending = connector
            for part in node.parts:
                if part.kind == "operator":
                    pending = {
                        "&&": "then, if it succeeds,",
                        "||": "or, if it fails,",
                        "&": "in the background, then",
                    }.get(part.op, "then")
                    continue
                self.top_level(part, pending)
            return
        before = len(self.result.commands)
        self.visit(node, "top")
        members = self.result.commands[before:]
        direct = [c for c in members if c.origin in ("top", "pipeline")]
        if direct:
            self.result.steps.append((connector, direct))

    # -- every node -----------------------------------------------------------------
    def visit(self, node: Any, origin: str) -> None:
        kind = node.kind
        if kind == "command":
            self.command(node, origin)
        elif kind == "pipeline":
            for part in node.parts:
                if part.kind not in ("pipe", "reservedword"):
                    self.visit(part, "pipeline")
        elif kind == "list":
            for part in node.parts:
                if part.kind != "operator":
                    self.visit(part, origin)
        elif kind == "compound":
            for part in node.list:
                if part.kind != "reservedword":
                    self.visit(part, origin)
            for redirect in getattr(node, "redirects", None) or []:
                self.redirect(redirect)
        elif kind in ("if", "for", "while", "until"):
            for part in node.parts:
                if part.kind == "word":
                    self.word(part)
                elif part.kind not in ("reservedword", "operator"):
                    self.visit(part, origin)
        elif kind == "function":
            self.problem("it defines a shell function")
        elif kind in ("reservedword", "operator", "pipe"):
            return
        else:
            self.problem(f"unsupported shell construct: {kind}")

    def command(self, node: Any, origin: str) -> None:
        words: list[str] = []
        assignments: list[str] = []
        for part in node.parts:
            if part.kind == "word":
                self.word(part)
                if not words and self._is_computed(part):
                    self.problem(f"the command name {self.raw(part)!r} is computed at run time")
                words.append(part.word)
            elif part.kind == "assignment":
                self.word(part)
                (words if words else assignments).append(part.word)
            elif part.kind == "redirect":
                self.redirect(part)
            else:
                self.visit(part, origin)
        cmd = SimpleCommand(tuple(words), tuple(assignments), origin, self.raw(node))
        self.result.commands.append(cmd)
        if cmd.name and _BAD_NAME_CHARS.search(cmd.name):
            self.problem(f"the command name {cmd.name!r} has spaces, globs or braces")

    def _is_computed(self, word: Any) -> bool:
        return any(p.kind != "tilde" for p in (getattr(word, "parts", None) or []))

    def word(self, node: Any) -> None:
        """Check one word's expansions and walk the commands it substitutes."""
        raw = self.raw(node)
        if "$'" in raw or '$"' in raw:
            self.problem("it uses $'…' or $\"…\" quoting, which the parser does not model")
        found_substitution = False
        for part in getattr(node, "parts", None) or []:
            if part.kind == "commandsubstitution":
                found_substitution = True
                self.visit(part.command, "substitution")
            elif part.kind == "processsubstitution":
                found_substitution = True
                self.visit(part.command, "process substitution")
            elif part.kind == "parameter":
                value = str(getattr(part, "value", ""))
                if not _SIMPLE_PARAM.match(value):
                    self.problem(f"it uses a parameter expansion the parser does not model: {raw}")
            elif part.kind != "tilde":
                self.problem(f"unsupported expansion: {part.kind}")
        if not found_substitution and any(s in raw for s in ("$(", "`", "<(", ">(")):
            # Either quoted (harmless) or hidden from the parser (dangerous): ask.
            self.problem(f"it contains substitution syntax the parser did not expand: {raw}")

    def redirect(self, node: Any) -> None:
        kind = str(node.type)
        heredoc = getattr(node, "heredoc", None)
        if heredoc is not None:
            body = str(getattr(heredoc, "value", ""))
            if "$" in body or "`" in body:
                self.problem("a here-document body can expand ($ or backtick in it)")
            self.result.redirects.append(Redirect(kind, "here-document", False))
            return
        target = getattr(node, "output", None)
        if isinstance(target, int) or target is None:
            # Descriptor duplication such as 2>&1: nothing is opened.
            self.result.redirects.append(Redirect(kind, f"&{target}", False))
            return
        self.word(target)
        writes = kind in _WRITE_REDIRECTS
        self.result.redirects.append(Redirect(kind, target.word, writes))
        if writes and target.word not in _HARMLESS_TARGETS:
            self.problem(f"it writes to a file ({kind} {target.word})", hides=False)


def _command_basename(cmd: SimpleCommand) -> str:
    return os.path.basename(cmd.name)


def matches_pattern(cmd: SimpleCommand, pattern: str) -> bool:
    """Whether ``pattern`` covers ``cmd`` (rule in the module docstring)."""
    pattern = pattern.strip()
    if not pattern or not cmd.words:
        return False
    first = pattern.split()[0]
    if _command_basename(cmd) in WRAPPERS | SHELL_EVALUATORS and first not in (
        cmd.name,
        _command_basename(cmd),
    ):
        return False
    if " " not in pattern and pattern.endswith("*") and not _GLOB_CHARS.search(pattern[:-1]):
        return not cmd.assignments and cmd.name == pattern[:-1]
    return fnmatch.fnmatchcase(cmd.text, pattern)


def approval_reason(command: str, patterns: Sequence[str]) -> str:
    """Why ``command`` may run without asking ('' when it may not)."""
    if not patterns:
        return ""
    analysis = analyze(command)
    return allowlist_reason(analysis, patterns)


def code_execution_in(cmd: SimpleCommand, depth: int = 0) -> CodeExecution | None:
    """The first way ``cmd``, or a command a wrapper in it runs, runs code it was given
    (a ``NAME=value`` prefix that picks a program included)."""
    finding = program_variable(cmd.assignments) or code_execution(cmd.words)
    if finding is not None or depth > 8:
        return finding
    for inner in unwrap(cmd.words):
        if inner.words:
            finding = code_execution_in(SimpleCommand(inner.words), depth + 1)
            if finding is not None:
                return finding
    return None


@dataclass
class AllowCheck:
    """Whether allow patterns cover every command of a command line, and if not why."""

    #: The patterns that matched, in order.
    used: list[str] = field(default_factory=list)
    #: Commands no pattern covers.
    unmatched: list[str] = field(default_factory=list)
    #: Commands a pattern covers but that run code they were given: never allowed.
    runs_code: list[tuple[SimpleCommand, str, CodeExecution]] = field(default_factory=list)
    #: Why the command line cannot be vouched for at all (analysis problems).
    unclear: list[str] = field(default_factory=list)

    @property
    def allowed(self) -> bool:
        return bool(self.used) and not (self.unmatched or self.runs_code or self.unclear)

    def quoted(self) -> str:
        return ", ".join(f"`{p}`" for p in self.used)


def check_allow(analysis: ShellAnalysis, patterns: Iterable[str]) -> AllowCheck:
    """Match every simple command of ``analysis`` against the allow ``patterns``."""
    patterns = [p for p in patterns if p.strip()]
    check = AllowCheck(unclear=list(analysis.problems))
    if not analysis.commands and not check.unclear:
        check.unclear.append("it runs no command")
    for cmd in analysis.commands:
        if not cmd.words:
            # A bare assignment (PATH=…) changes what later commands run.
            check.unmatched.append(cmd.text)
            continue
        hit = None
        if _command_basename(cmd) not in SHELL_EVALUATORS:
            hit = next((p for p in patterns if matches_pattern(cmd, p)), None)
        if hit is None:
            check.unmatched.append(cmd.text)
            continue
        finding = code_execution_in(cmd)
        if finding is not None:
            check.runs_code.append((cmd, hit, finding))
            continue
        if hit not in check.used:
            check.used.append(hit)
    return check


def allowlist_reason(analysis: ShellAnalysis, patterns: Iterable[str]) -> str:
    check = check_allow(analysis, patterns)
    if not check.allowed:
        return ""
    return f"every command matches an allow rule ({check.quoted()})"


def unmatched_commands(analysis: ShellAnalysis, patterns: Iterable[str]) -> list[str]:
    """The commands no pattern covers (for messages)."""
    patterns = list(patterns)
    return [
        c.text
        for c in analysis.commands
        if not any(matches_pattern(c, p) for p in patterns)
        or _command_basename(c) in SHELL_EVALUATORS
    ]


_NETWORK_PROGRAMS = frozenset(
    {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "telnet", "ftp", "pip", "npm"}
)


def _short(text: str) -> str:
    return one_line(text, 60)


def describe(analysis: ShellAnalysis) -> str:
    """A plain-words summary built from the parse alone (no model involved)."""
    if analysis.parse_error is not None:
        return (
            "A shell command the parser could not fully read "
            f"({analysis.parse_error}); read it carefully before approving."
        )
    steps: list[str] = []
    for connector, members in analysis.steps:
        piped = " piped into ".join(f"`{_short(c.source or c.text)}`" for c in members)
        steps.append(f"{connector} {piped}".strip())
    count = len(analysis.commands)
    head = f"Runs {count} command{'s' if count != 1 else ''}: " + ", ".join(steps)
    extra: list[str] = []
    nested = [c for c in analysis.commands if c.origin not in ("top", "pipeline")]
    if nested:
        extra.append(
            "also runs " + ", ".join(f"`{_short(c.source or c.text)}` ({c.origin})" for c in nested)
        )
    if analysis.writes:
        extra.append("writes to: " + ", ".join(f"{w} (redirect)" for w in analysis.writes))
    names = {_command_basename(c) for c in analysis.commands}
    if names & SHELL_EVALUATORS:
        extra.append("runs a nested shell or eval, whose program is not analysed")
    if names & WRAPPERS:
        extra.append("uses " + ", ".join(sorted(names & WRAPPERS)) + " to run another program")
    if "rm" in names:
        extra.append("deletes files (rm)")
    for cmd in analysis.commands:
        finding = code_execution_in(cmd)
        if finding is not None and finding.describe() not in extra:
            extra.append(finding.describe())
    if names & _NETWORK_PROGRAMS:
        extra.append("may use the network (" + ", ".join(sorted(names & _NETWORK_PROGRAMS)) + ")")
    unclear = [p for p in analysis.problems if not p.startswith("it writes to a file")]
    if unclear:
        extra.append("cannot be fully analysed: " + "; ".join(unclear[:3]))
    return head + ("; " + "; ".join(extra) if extra else "") + "."
