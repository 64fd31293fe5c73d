"""Allow, ask and deny rules for shell commands, and what they say about one command line.

Rules are glob patterns matched against each simple command a command line would run
(``agent.policy.shell_policy`` for the matching rule). They come in three tiers, and the
strictest that matches wins, as in codex's execution policy:

1. ``deny``: the command never runs, in any mode, ``yolo`` and "allow for this run"
   included; the model is told which rule refused it;
2. ``ask``: a human is asked, in every mode, even when an allow rule matches too;
3. ``allow``: under ``confirm-sensitive`` it runs without a question when *every*
   simple command matches an allow rule and none of them runs code it was given
   (``agent.policy.code_execution``).

Deny and ask rules look further than allow rules, because being dodged is what they
must resist: every simple command counts, substitutions included; the command inside
a wrapper (``timeout 5 rm``, ``sudo rm``, ``env X=1 rm``, ``xargs rm``) or a tool runner
(``uv run rm``, ``npx rm``, ``docker exec box rm``, ``ssh host rm``;
``command_wrappers.RUNNER_TABLE``), inside ``find -exec … ;`` and inside a shell's
string (``bash -c '…'``, ``eval '…'``, ``su -c '…'``) is read as a command of its
own; and a command is matched as written, without its ``NAME=value`` prefixes, by its
base name (``/bin/rm``), its lower-case name and, for git, without git's global options
(``git -C x push``) and by the other name of its subcommand (``git send-pack`` is ``git
push``). A command line part of which cannot be seen (a parse error, a computed
command name, a script file given to a shell, inline code of another language, a
package a runner downloads, a container's image, a git alias, a variable that picks the
program) cannot be checked against these rules: while there are any, such a command is
asked about in every mode.

No rule can stop a program the agent wrote itself from doing what a denied command
does; deny rules keep the named commands from running, the sandbox confines the rest.

``evaluate_command`` returns a ``CommandEvaluation``: the verdict, the plain-words
reason and the ``RuleMatch`` (which rule, which command) that decided.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from agentls.agent.policy.code_execution import (
    FIND_EXEC,
    code_execution,
    program_name,
    program_variable,
)
from agentls.agent.policy.command_wrappers import (
    GIT_COMMANDS,
    GIT_SAME_AS,
    RUNNERS,
    runs_another,
    unwrap,
)
from agentls.agent.policy.shell_policy import (
    SHELL_EVALUATORS,
    ShellAnalysis,
    SimpleCommand,
    analyze,
    check_allow,
    code_execution_in,
    matches_pattern,
)
from agentls.agent.text import one_line

if TYPE_CHECKING:
    from agentls.agent.config.models import CommandRulesConfig

RuleTier = Literal["allow", "ask", "deny"]
#: ``forbidden``: a deny rule matched; ``prompt``: ask whatever the mode; ``allow``: an
#: allow rule covers it; ``default``: no rule decides, the confirm mode does.
Verdict = Literal["forbidden", "prompt", "allow", "default"]

#: How deep shells inside shells and wrappers inside wrappers are followed.
MAX_DEPTH = 8


@dataclass(frozen=True)
class CommandRules:
    """The rules in force for a run: the config's ``commands`` section, plus the
    agent's ``allowed_commands`` and the rules saved during the run in ``allow``."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, commands: CommandRulesConfig, allowed: Iterable[str] = ()) -> CommandRules:
        return cls(
            allow=_clean([*commands.allow, *allowed]),
            ask=_clean(commands.ask),
            deny=_clean(commands.deny),
        )

    def with_allow(self, more: Iterable[str]) -> CommandRules:
        return CommandRules(_clean([*self.allow, *more]), self.ask, self.deny)


def _clean(patterns: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.strip() for p in patterns if p.strip()))


NO_RULES = CommandRules()


@dataclass(frozen=True)
class RuleMatch:
    """Which rule matched which command (and where that command sits)."""

    tier: RuleTier
    rule: str
    command: str
    #: Where the command sits when it is not one the line runs directly:
    #: "run by sudo", "in bash -c", "in a substitution"...
    where: str = ""

    def describe(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return f"`{one_line(self.command, 80)}`{where} matches the {self.tier} rule `{self.rule}`"


@dataclass(frozen=True)
class CommandEvaluation:
    verdict: Verdict
    #: Plain words, for the question or the model; '' when nothing needs saying.
    reason: str = ""
    match: RuleMatch | None = None


@dataclass
class Expansion:
    """Every simple command a command line may run, wrappers and shells opened."""

    commands: list[tuple[SimpleCommand, str]] = field(default_factory=list)
    #: Why some of what runs cannot be seen.
    opaque: list[str] = field(default_factory=list)

    def hide(self, why: str) -> None:
        if why not in self.opaque:
            self.opaque.append(why)


def evaluate_command(command: str, rules: CommandRules) -> CommandEvaluation:
    """What the rules say about ``command``."""
    analysis = analyze(command)
    if rules.deny or rules.ask:
        expansion = expand(analysis)
        denied = _first_match(expansion, "deny", rules.deny)
        if denied is not None:
            return CommandEvaluation("forbidden", denied.describe(), denied)
        asked = _first_match(expansion, "ask", rules.ask)
        if asked is not None:
            return CommandEvaluation("prompt", asked.describe(), asked)
        if expansion.opaque:
            tiers = " and ".join(t for t, p in (("deny", rules.deny), ("ask", rules.ask)) if p)
            why = "; ".join(expansion.opaque[:2])
            return CommandEvaluation(
                "prompt", f"it cannot be checked against your rules ({tiers}): {why}"
            )
    return _allow_verdict(analysis, rules.allow)


def _allow_verdict(analysis: ShellAnalysis, patterns: Sequence[str]) -> CommandEvaluation:
    if not patterns:
        return CommandEvaluation("default")
    check = check_allow(analysis, patterns)
    if check.allowed:
        first = analysis.commands[0]
        match = RuleMatch("allow", check.used[0], first.text)
        return CommandEvaluation(
            "allow", f"every command matches an allow rule ({check.quoted()})", match
        )
    if check.runs_code:
        cmd, rule, finding = check.runs_code[0]
        return CommandEvaluation(
            "default",
            f"`{one_line(cmd.text, 80)}` matches the allow rule `{rule}`, but "
            f"{finding.describe()}; an allow rule never covers that",
            RuleMatch("allow", rule, cmd.text),
        )
    if check.used and check.unmatched:
        return CommandEvaluation(
            "default",
            f"`{one_line(check.unmatched[0], 80)}` matches no allow rule",
        )
    return CommandEvaluation("default")


def _first_match(expansion: Expansion, tier: RuleTier, patterns: Sequence[str]) -> RuleMatch | None:
    for cmd, where in expansion.commands:
        for pattern in patterns:
            if matches_rule(cmd, pattern):
                return RuleMatch(tier, pattern, cmd.text, where)
    return None


# -- matching for deny and ask: every way of writing the same command -------------------------

#: git's options before the subcommand that take a separate argument.
_GIT_GLOBAL_WITH_ARG = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)


def _git_without_globals(words: Sequence[str]) -> tuple[str, ...]:
    index = 1
    while index < len(words) and words[index].startswith("-"):
        if words[index] in _GIT_GLOBAL_WITH_ARG:
            index += 1
        index += 1
    return (words[0], *words[index:])


def spellings(cmd: SimpleCommand) -> list[SimpleCommand]:
    """``cmd`` and the other ways of writing the same command a deny or ask rule must
    catch: without its assignments, by base name, in lower case, git without its
    global options and by the other name of its subcommand (``send-pack`` is ``push``)."""
    if not cmd.words:
        return [cmd]
    rest = cmd.words[1:]
    base = os.path.basename(cmd.name)
    names = dict.fromkeys((cmd.name, base, base.lower()))
    found: dict[tuple[tuple[str, ...], tuple[str, ...]], SimpleCommand] = {}
    for assignments in dict.fromkeys((cmd.assignments, ())):
        for name in names:
            words = (name, *rest)
            if program_name(name) == "git":
                stripped = _git_without_globals(words)
                found.setdefault((stripped, assignments), SimpleCommand(stripped, assignments))
                same = GIT_SAME_AS.get(stripped[1]) if len(stripped) > 1 else None
                if same is not None:
                    renamed = (stripped[0], same, *stripped[2:])
                    found.setdefault((renamed, assignments), SimpleCommand(renamed, assignments))
            found.setdefault((words, assignments), SimpleCommand(words, assignments))
    return list(found.values())


def matches_rule(cmd: SimpleCommand, pattern: str) -> bool:
    """Whether a deny or ask ``pattern`` covers ``cmd``, however it is written."""
    return any(matches_pattern(variant, pattern) for variant in spellings(cmd))


# -- everything that may run ------------------------------------------------------------------

_ORIGINS = {"top": "", "pipeline": ""}


def expand(analysis: ShellAnalysis, depth: int = 0, where: str = "") -> Expansion:
    """Every simple command ``analysis`` may run, with what is inside wrappers, ``find
    -exec`` and shell strings, and why anything cannot be seen."""
    out = Expansion()
    _expand_analysis(analysis, out, depth, where)
    return out


def _expand_analysis(analysis: ShellAnalysis, out: Expansion, depth: int, where: str) -> None:
    for why in analysis.hidden:
        out.hide(why if not where else f"{why} ({where})")
    for cmd in analysis.commands:
        origin = _ORIGINS.get(cmd.origin, f"in a {cmd.origin}")
        _expand_command(cmd, out, depth, where or origin)


def _expand_string(text: str, out: Expansion, depth: int, where: str) -> None:
    if depth > MAX_DEPTH:
        out.hide(f"commands nested too deeply ({where})")
        return
    _expand_analysis(analyze(text), out, depth + 1, where)


def _short(cmd: SimpleCommand) -> str:
    return one_line(cmd.text, 60)


def _expand_command(cmd: SimpleCommand, out: Expansion, depth: int, where: str) -> None:
    out.commands.append((cmd, where))
    if not cmd.words:
        return
    if depth > MAX_DEPTH:
        out.hide(f"commands nested too deeply (`{_short(cmd)}`)")
        return
    name = os.path.basename(cmd.name)
    inners = unwrap(cmd.words)
    if inners or name in RUNNERS:
        for inner in inners:
            if inner.words:
                _expand_command(SimpleCommand(inner.words), out, depth + 1, f"run by {name}")
            elif inner.shell is not None:
                _expand_string(inner.shell, out, depth, f"run by {name}")
            elif inner.opaque:
                out.hide(f"`{_short(cmd)}`: {inner.opaque}")
    elif name in SHELL_EVALUATORS:
        _expand_shell(cmd, out, depth)
    elif name in _HIDING_BUILTINS:
        out.hide(f"`{_short(cmd)}` {_HIDING_BUILTINS[name]}")
    elif name == "trap":
        handler = next((w for w in cmd.words[1:] if not w.startswith("-")), None)
        if handler is not None:
            _expand_string(handler, out, depth, "run by trap")
    if program_name(cmd.name) == "git":
        _expand_git(cmd, out)
    if program_name(cmd.name) == "find":
        for words in find_exec_commands(cmd.words):
            _expand_command(SimpleCommand(words), out, depth + 1, "run by find -exec")
    finding = program_variable(cmd.assignments) or code_execution(cmd.words)
    if finding is not None and finding.hides:
        out.hide(finding.describe())


def _expand_git(cmd: SimpleCommand, out: Expansion) -> None:
    """A git subcommand git does not have is an alias or a ``git-NAME`` program."""
    words = _git_without_globals(cmd.words)
    if len(words) > 1 and words[1] not in GIT_COMMANDS:
        out.hide(
            f"`git {one_line(words[1], 30)}` is not one of git's own commands: it is an alias "
            f"or a git-{one_line(words[1], 30)} program, which can run anything"
        )


#: Builtins that can make a name run something else, later in the same line.
_HIDING_BUILTINS = {
    "alias": "can make a name run another command",
    "hash": "can make a name run another program",
    "enable": "can load or replace shell builtins",
}

_POSIX_SHELLS = frozenset(
    {"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash", "fish", "csh", "tcsh"}
)


def _expand_shell(cmd: SimpleCommand, out: Expansion, depth: int) -> None:
    name = os.path.basename(cmd.name)
    args = cmd.words[1:]
    if name == "eval":
        if args:
            _expand_string(" ".join(args), out, depth, "run by eval")
        return
    if name in ("source", "."):
        what = f"the file {args[0]}" if args else "a file"
        out.hide(f"`{name}` runs the commands of {what}, which are not analysed")
        return
    if name not in _POSIX_SHELLS:
        out.hide(f"`{name}` runs a program the rules cannot read")
        return
    script = shell_command_string(cmd.words)
    if isinstance(script, str):
        _expand_string(script, out, depth, f"in {name} -c")
    else:
        out.hide(f"`{_short(cmd)}` {script[0]}")


def shell_command_string(words: Sequence[str]) -> str | tuple[str]:
    """The command line a shell is given with ``-c``, or (why it cannot be read,)."""
    index = 1
    command_mode = False
    while index < len(words):
        word = words[index]
        if word in ("--", "-"):
            index += 1
            break
        if word.startswith("--"):
            if word in ("--rcfile", "--init-file"):
                index += 1
            elif word.startswith("--command"):  # fish
                _, eq, value = word.partition("=")
                if eq:
                    return value
                command_mode = True
            index += 1
            continue
        if word[:1] in ("-", "+") and len(word) > 1:
            letters = word[1:]
            command_mode = command_mode or "c" in letters
            if "o" in letters or "O" in letters:
                index += 1  # the option's name
            index += 1
            continue
        break
    if command_mode:
        if index < len(words):
            return words[index]
        return ("is given -c without a command",)
    if index < len(words):
        return (f"runs the script {words[index]}, which is not analysed",)
    return ("reads its commands from standard input, which are not analysed",)


def find_exec_commands(words: Sequence[str]) -> list[tuple[str, ...]]:
    """The commands of ``find``'s ``-exec``/``-execdir``/``-ok``/``-okdir`` actions."""
    found: list[tuple[str, ...]] = []
    index = 1
    while index < len(words):
        if words[index] not in FIND_EXEC:
            index += 1
            continue
        inner: list[str] = []
        index += 1
        while index < len(words):
            word = words[index]
            if word == ";" or (word == "+" and inner[-1:] == ["{}"]):
                break
            inner.append(word)
            index += 1
        if inner:
            found.append(tuple(inner))
        index += 1
    return found


# -- a rule to save from a prompt ---------------------------------------------------------------

#: Programs whose first argument is a subcommand: a saved rule names it too (``git
#: status*``, not ``git*``, which would allow ``git push``).
SUBCOMMAND_PROGRAMS = frozenset(
    {
        "git",
        "npm",
        "pnpm",
        "yarn",
        "cargo",
        "go",
        "docker",
        "podman",
        "kubectl",
        "uv",
        "pip",
        "poetry",
        "gh",
        "dotnet",
        "mvn",
        "gradle",
        "bundle",
        "conda",
        "brew",
        "terraform",
        "helm",
        "systemctl",
        "apt",
        "apt-get",
    }
)
_PLAIN_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def suggest_rule(command: str) -> str | None:
    """The allow rule "always allow" would save for ``command`` (``pytest*`` for
    ``pytest -q tests/``), or None when no safe rule fits: the command must be fully
    analysed, every simple command must run the same program with no assignments, and
    that program must not be a shell, a wrapper, or run code it was given."""
    analysis = analyze(command)
    if analysis.problems or not analysis.commands:
        return None
    commands = analysis.commands
    if len({c.name for c in commands}) != 1:
        return None
    for cmd in commands:
        base = os.path.basename(cmd.name)
        if not cmd.words or cmd.assignments or base in SHELL_EVALUATORS or runs_another(cmd.words):
            return None
        if code_execution_in(cmd) is not None:
            return None
    name = commands[0].name
    rule = f"{name}*"
    if program_name(name) in SUBCOMMAND_PROGRAMS:
        subcommands = {c.words[1] if len(c.words) > 1 else "" for c in commands}
        sub = subcommands.pop() if len(subcommands) == 1 else ""
        if not _PLAIN_WORD.match(sub):
            return None
        rule = f"{name} {sub}*"
    return rule if check_allow(analysis, [rule]).allowed else None
