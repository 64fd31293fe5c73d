"""What a wrapper runs: the command inside ``timeout 5 rm -rf x``, ``sudo -u me rm``,
``env X=1 rm``, ``xargs rm``, ``nice -n 5 rm`` and the like.

A deny rule for ``rm*`` must catch ``timeout 5 rm -rf build`` too, so the rules look
inside wrappers. Each wrapper's options are described well enough to find where its
command starts: options with an argument are skipped with it, known flags alone, and
the wrapper's own operands (``timeout``'s duration, ``chroot``'s directory) after
them. An option this table does not know could take an argument, so from there on
every later word that is not an option is also taken as a possible start of the
command: being wrong then costs a question, never a missed deny rule.

Some wrappers hand a string to a shell (``su -c``, ``flock -c``, ``script -c``,
``watch``, ``env -S``); ``Inner.shell`` carries it, and the caller reads it as a
command line of its own. A wrapper that starts an interactive shell (``su`` alone,
``sudo -i``) runs something nobody can see: ``Inner.opaque`` says so.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Inner:
    """One thing a wrapper may run: a command (``words``), a shell command line
    (``shell``), or something that cannot be known (``opaque``, why)."""

    words: tuple[str, ...] = ()
    shell: str | None = None
    opaque: str | None = None


@dataclass(frozen=True)
class Syntax:
    """How one wrapper's command line reads."""

    #: Short option letters that take an argument (the rest of the word, else the next).
    short_args: str = ""
    #: Short letters that take no argument, or only one attached to them (``-i{}``).
    short_flags: str = ""
    #: Long options that take an argument (``--signal KILL`` or ``--signal=KILL``).
    long_args: frozenset[str] = frozenset()
    #: Long options that take no separate argument.
    long_flags: frozenset[str] = frozenset()
    #: Operands of the wrapper itself before the command (``timeout 5``: one).
    operands: int = 0
    #: ``NAME=value`` words before the command are settings, not the command.
    assignments: bool = False
    #: Options whose argument is a shell command line (``-c`` of ``su``).
    shell_options: frozenset[str] = frozenset()
    #: The command's words are joined and run by a shell (``watch``).
    joins_shell: bool = False
    #: With no command, it starts an interactive shell (``su``, ``chroot``).
    shell_without_command: bool = False
    #: ``-5`` is an option (``nice -5``).
    numeric_options: bool = False


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPER_SYNTAX: dict[str, Syntax] = {
    "env": Syntax(
        short_args="uCPS",
        short_flags="i0v",
        long_args=_set("--unset --chdir --split-string"),
        long_flags=_set(
            "--ignore-environment --null --debug --block-signal --default-signal "
            "--ignore-signal --list-signal-handling"
        ),
        assignments=True,
        shell_options=_set("-S --split-string"),
    ),
    "timeout": Syntax(
        short_args="sk",
        short_flags="fv",
        long_args=_set("--signal --kill-after"),
        long_flags=_set("--preserve-status --foreground --verbose"),
        operands=1,
    ),
    "nice": Syntax(short_args="n", long_args=_set("--adjustment"), numeric_options=True),
    "nohup": Syntax(),
    "exec": Syntax(short_args="a", short_flags="cl"),
    "command": Syntax(short_flags="p"),
    "builtin": Syntax(),
    "sudo": Syntax(
        short_args="ugCDhprtTUR",
        short_flags="AbEHKknPSVvlsi",
        long_args=_set(
            "--user --group --close-from --chdir --host --prompt --role --type "
            "--command-timeout --other-user --chroot"
        ),
        long_flags=_set(
            "--askpass --background --preserve-env --set-home --non-interactive "
            "--preserve-groups --stdin --reset-timestamp --remove-timestamp --list"
        ),
        assignments=True,
    ),
    "doas": Syntax(short_args="uC", short_flags="nLs"),
    "pkexec": Syntax(
        long_args=_set("--user"), long_flags=_set("--disable-internal-agent --keep-cwd")
    ),
    "time": Syntax(
        short_args="fo",
        short_flags="pvaq",
        long_args=_set("--format --output"),
        long_flags=_set("--portability --verbose --append --quiet"),
    ),
    "stdbuf": Syntax(short_args="ioe", long_args=_set("--input --output --error")),
    "ionice": Syntax(
        short_args="cnpPu",
        short_flags="t",
        long_args=_set("--class --classdata --pid --pgid --uid"),
    ),
    "chrt": Syntax(short_args="TPD", short_flags="abdefiomrRv", operands=1),
    "taskset": Syntax(short_flags="acpV", operands=1),
    "setsid": Syntax(short_flags="cfw"),
    "chroot": Syntax(
        long_args=_set("--userspec --groups"),
        long_flags=_set("--skip-chdir"),
        operands=1,
        shell_without_command=True,
    ),
    "flock": Syntax(
        short_args="wEc",
        short_flags="sxunoFv",
        long_args=_set("--timeout --conflict-exit-code --command"),
        operands=1,
        shell_options=_set("-c --command"),
    ),
    "watch": Syntax(
        short_args="nq",
        short_flags="dtbegxpcwrhv",
        long_args=_set("--interval"),
        joins_shell=True,
    ),
    "su": Syntax(
        short_args="cgGsw",
        short_flags="lmpPfT",
        long_args=_set("--command --group --supp-group --shell --whitelist-environment"),
        long_flags=_set("--login --preserve-environment --pty"),
        shell_options=_set("-c --command"),
        shell_without_command=True,
    ),
    "runuser": Syntax(
        short_args="cgGsuw",
        short_flags="lmpP",
        long_args=_set("--command --group --supp-group --shell --user"),
        long_flags=_set("--login --preserve-environment --pty"),
        shell_options=_set("-c --command"),
        shell_without_command=True,
    ),
    "script": Syntax(
        short_args="cEIOBTmL",
        short_flags="aefqt",
        long_args=_set(
            "--command --echo --log-in --log-out --log-io --log-timing --logging-format"
        ),
        shell_options=_set("-c --command"),
        shell_without_command=True,
    ),
    "xargs": Syntax(
        short_args="adEILnPs",
        short_flags="0prtxeil",
        long_args=_set(
            "--arg-file --delimiter --max-args --max-procs --max-chars --process-slot-var"
        ),
        long_flags=_set(
            "--null --no-run-if-empty --interactive --verbose --exit --open-tty --show-limits "
            "--eof --replace --max-lines"
        ),
    ),
    "busybox": Syntax(),
    "strace": Syntax(short_args="oeEpsuaIbOPSX", short_flags="cCdDfFhiqrtTvVwxyzZk"),
    "ltrace": Syntax(short_args="oeEpsuaAnlLxXwDS", short_flags="bcCfhiLrStTV"),
    "parallel": Syntax(joins_shell=True),
}

#: Programs that run another program but whose options are not described above:
#: every later word that is not an option may start the command.
OTHER_RUNNERS = frozenset(
    {
        "unshare",
        "nsenter",
        "systemd-run",
        "firejail",
        "proxychains",
        "proxychains4",
        "torsocks",
        "valgrind",
        "caffeinate",
        "sg",
        "numactl",
        "cgexec",
        "faketime",
        "fakeroot",
        "eatmydata",
        "catchsegv",
        "chpst",
        "setpriv",
        "prlimit",
    }
)

#: Every program this module looks inside.
RUNNERS = frozenset(WRAPPER_SYNTAX) | OTHER_RUNNERS


def _every_start(words: Sequence[str], start: int) -> list[Inner]:
    return [
        Inner(tuple(words[i:])) for i in range(start, len(words)) if not words[i].startswith("-")
    ]


def unwrap(words: Sequence[str]) -> list[Inner]:
    """What the wrapper ``words[0]`` may run (empty when it runs nothing)."""
    if not words:
        return []
    name = os.path.basename(words[0])
    syntax = WRAPPER_SYNTAX.get(name)
    if syntax is None:
        return _every_start(words, 1) if name in OTHER_RUNNERS else []
    if name == "command" and any(w in ("-v", "-V") for w in words[1:2]):
        return []  # ``command -v x`` only says where x is
    return _Reader(name, syntax, words).read()


class _Reader:
    def __init__(self, name: str, syntax: Syntax, words: Sequence[str]) -> None:
        self.name = name
        self.syntax = syntax
        self.words = list(words)
        self.at = 1
        self.unknown_from: int | None = None
        self.found: list[Inner] = []

    def take_argument(self, attached: str) -> str:
        if attached:
            return attached
        value = self.words[self.at] if self.at < len(self.words) else ""
        self.at += 1
        return value

    def option(self, word: str) -> None:
        syntax = self.syntax
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            if name in syntax.long_args:
                argument = value if eq else self.take_argument("")
                if name in syntax.shell_options:
                    self.found.append(Inner(shell=argument))
            elif name not in syntax.long_flags:
                self.unknown()
            return
        for position, letter in enumerate(word[1:], start=1):
            attached = word[position + 1 :]
            if letter in syntax.short_args:
                argument = self.take_argument(attached)
                if f"-{letter}" in syntax.shell_options:
                    self.found.append(Inner(shell=argument))
                return
            if letter in syntax.short_flags:
                continue
            if syntax.numeric_options and letter.isdigit():
                return
            self.unknown()
            return

    def unknown(self) -> None:
        if self.unknown_from is None:
            self.unknown_from = self.at

    def late_shell_option(self) -> None:
        """``flock FILE -c CMD``, ``su USER -c CMD``: options may follow the operands."""
        words = self.words
        for index in range(self.at, len(words)):
            word = words[index]
            name, eq, value = word.partition("=")
            if word in self.syntax.shell_options and index + 1 < len(words):
                self.found.append(Inner(shell=words[index + 1]))
                return
            if eq and name.startswith("--") and name in self.syntax.shell_options:
                self.found.append(Inner(shell=value))
                return

    def read(self) -> list[Inner]:
        words, syntax = self.words, self.syntax
        while self.at < len(words):
            word = words[self.at]
            if syntax.assignments and _ASSIGNMENT.match(word):
                self.at += 1
                continue
            if word == "--":
                self.at += 1
                break
            if not word.startswith("-") or word == "-":
                break
            self.at += 1
            self.option(word)
        if not self.found and syntax.shell_options:
            self.late_shell_option()
        if self.found:
            return self.found  # the shell command line is what runs
        start = self.at + syntax.operands
        command = tuple(words[start:])
        if self.name in ("sudo", "doas") and any(
            w in ("-s", "-i", "--shell", "--login") for w in words[1:start]
        ):
            if not command:
                return [Inner(opaque=f"{self.name} starts an interactive shell")]
            self.found.append(Inner(shell=" ".join(command)))
        if command:
            self.found.append(Inner(command))
            if syntax.joins_shell:
                self.found.append(Inner(shell=" ".join(command)))
        elif syntax.shell_without_command:
            self.found.append(Inner(opaque=f"{self.name} starts an interactive shell"))
        if self.unknown_from is not None:
            seen = set(self.found)
            self.found += [i for i in _every_start(words, self.unknown_from) if i not in seen]
        return self.found
