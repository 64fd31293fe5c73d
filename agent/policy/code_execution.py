"""Options and programs that turn an allowed command into "run this other program".

An allow rule names a program the user is happy to see run (``git*``, ``find*``,
``sed*``). Many such programs take an option whose argument is itself a program, a
shell command or code: ``git -c core.fsmonitor='sh -c …' status``, ``find . -exec sh
-c … \\;``, ``sed 's/x/y/e'``, ``awk 'BEGIN{system("…")}'``, ``python -c …``. A
command using one of them is never let through by an allow rule: a human is asked, and
told why in plain words.

``code_execution(words)`` looks at one simple command (its words after unquoting) and
returns the first such finding, or None. Most programs are described by a row of
``OPTION_TABLE``; git, find, sed, awk, make, go and pytest need a little parsing of their
own (their subcommands, predicates, scripts and variables), done by the functions at the
end of the module. ``program_variable`` finds a ``NAME=value`` that chooses what a
command runs (``GIT_PAGER``, ``PATH``, ``LD_PRELOAD``...; ``PROGRAM_VARIABLES``).

A finding says whether what it runs is out of sight (``hides``): the inner command of
``find -exec`` and ``xargs`` is read and checked against the deny rules like any
other, but a sed or awk script, a git config value or inline Python is not shell, so a
command with such a finding cannot be checked against the deny and ask rules.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentls.agent.policy.script_scan import awk_findings, sed_findings


@dataclass(frozen=True)
class CodeExecution:
    """One way a command runs code it was given (or writes files it should not)."""

    program: str
    #: The option or construct, as the human reads it: ``-c``, ``-exec``, ``s///e``.
    what: str
    #: Plain words: what it does and why that matters.
    reason: str
    #: What it runs cannot be read and checked against the deny and ask rules.
    hides: bool = True

    def describe(self) -> str:
        return f"`{self.program} {self.what}` {self.reason}"


@dataclass(frozen=True)
class OptionRow:
    """Options of some programs that run code (or write files), and why that matters.

    ``short`` letters are found in a single-dash bundle (``-c``, ``-Sc``, ``-avze``)
    until a letter of ``stop`` (an option whose argument is the rest of the bundle) is
    reached; ``long`` options match exactly or abbreviated (GNU getopt accepts
    ``--to-com``), with or without ``=value``; ``exact`` words match as written
    (``-exec``, ``-ex``, ``+cmd`` prefixes excepted).
    """

    programs: frozenset[str]
    reason: str
    short: str = ""
    stop: str = ""
    long: tuple[str, ...] = ()
    exact: tuple[str, ...] = ()
    hides: bool = True


def _row(
    programs: str,
    reason: str,
    *,
    short: str = "",
    stop: str = "",
    long: tuple[str, ...] = (),
    exact: tuple[str, ...] = (),
    hides: bool = True,
) -> OptionRow:
    return OptionRow(frozenset(programs.split()), reason, short, stop, long, exact, hides)


_INLINE = "runs code given on the command line"

#: Programs and the options that make them run something of the caller's choosing.
OPTION_TABLE: tuple[OptionRow, ...] = (
    # -- interpreters with inline code ---------------------------------------------------
    _row("python pypy", _INLINE, short="c", stop="WXm"),
    _row("node nodejs bun", _INLINE, short="ep", stop="rC", long=("--eval", "--print")),
    _row("deno", _INLINE, long=("--eval",), exact=("eval",)),
    _row("perl", _INLINE, short="eE", stop="MmIxdDVC"),
    _row("ruby jruby", _INLINE, short="e", stop="rICEFKxW"),
    _row("php", _INLINE, short="rBRE", stop="cdfFtzS"),
    _row("lua luajit", _INLINE, short="e", stop="ljbO"),
    _row("Rscript R", _INLINE, exact=("-e",), long=("--expr",)),
    _row("julia", _INLINE, exact=("-e", "-E"), long=("--eval", "--print")),
    _row("osascript groovy scala kotlin racket", _INLINE, exact=("-e",), long=("--eval",)),
    _row("elixir iex", _INLINE, exact=("-e",), long=("--eval",)),
    _row("erl", _INLINE, exact=("-eval",)),
    _row("guile", _INLINE, exact=("-c",)),
    _row("sbcl clisp ecl", _INLINE, exact=("-x",), long=("--eval",)),
    _row(
        "gdb",
        "runs debugger commands given on the command line (which can run shell commands)",
        exact=("-ex", "-iex", "-x", "-ix", "-eval-command", "-command"),
        long=("--eval-command", "--init-eval-command", "--command", "--init-command"),
    ),
    _row(
        "vim vi nvim ex view gvim",
        "runs editor commands given on the command line (which can run shell commands)",
        exact=("-c", "-S", "--cmd"),
    ),
    _row(
        "emacs",
        "runs Lisp code given on the command line",
        exact=("-l", "-f", "-eval", "-load", "-funcall"),
        long=("--eval", "--load", "--funcall"),
    ),
    _row("npx", "runs the shell command given with it", exact=("-c",), long=("--call",)),
    _row(
        "npm pnpm",
        "runs package scripts with the shell, Node.js options or configuration it is given",
        long=("--script-shell", "--node-options", "--userconfig", "--globalconfig"),
    ),
    _row(
        "cargo",
        "sets Cargo configuration, which can name programs it runs (a runner, a linker, "
        "a rustc wrapper)",
        long=("--config",),
    ),
    _row(
        "rg",
        "runs the program it is given on every file it searches (`--pre`) or to find the "
        "host name (`--hostname-bin`)",
        long=("--pre", "--hostname-bin"),
    ),
    # -- options whose argument is a program ------------------------------------------------
    _row(
        "tar gtar bsdtar",
        "runs a program named in its arguments (a filter, a compressor, a script or a "
        "remote shell)",
        short="IF",
        stop="fCbHKLNTVXg",
        long=(
            "--to-command",
            "--checkpoint-action",
            "--use-compress-program",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
            "--rmt-command",
        ),
    ),
    _row(
        "rsync",
        "runs the remote shell or remote rsync program named in its arguments",
        short="eM",
        stop="BTf",
        long=("--rsh", "--rsync-path", "--remote-option"),
    ),
    _row(
        "ssh",
        "can set ProxyCommand or LocalCommand, which run programs on this machine (`-o`), "
        "or read them from a file (`-F`)",
        short="oF",
        stop="bcDEeIiJLlmOpPQRSWw",
    ),
    _row(
        "scp",
        "runs the program named by `-S`, or a ProxyCommand set with `-o` or in the file "
        "given with `-F`",
        short="oFS",
        stop="ciJlPX",
    ),
    _row(
        "sftp",
        "runs the program named by `-S` or `-D`, a ProxyCommand set with `-o`/`-F`, or a "
        "batch file (`-b`) whose `!` lines are shell commands",
        short="oFSDb",
        stop="BciJlPRs",
    ),
    _row(
        "zip",
        "runs the command given to test the archive (`-T`, `-TT`, `--unzip-command`)",
        short="T",
        long=("--unzip-command", "--test"),
    ),
    _row("sort", "runs the compression program it is given", long=("--compress-program",)),
    _row(
        "sort",
        "writes its output to the file it is given",
        short="o",
        stop="ktST",
        long=("--output",),
        hides=False,
    ),
    _row(
        "man",
        "runs the pager or browser it is given",
        short="PH",
        stop="MSmpLERC",
        long=("--pager", "--html"),
    ),
    _row("cpio", "runs the remote shell it is given", long=("--rsh-command",)),
    _row("wget", "runs the program it is given to ask for a password", long=("--use-askpass",)),
)

#: Programs that run their whole argument list as a command (checked as one through
#: the wrappers' unwrapping, but never let through by an allow rule).
ALWAYS: dict[str, CodeExecution] = {
    "xargs": CodeExecution(
        "xargs",
        "",
        "runs a command built from its input, so what runs depends on data the rule cannot see",
        hides=False,
    ),
}


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Environment variables that name a program the command will run, code it will load, or
#: where it finds either (its configuration, its PATH): ``GIT_PAGER='curl … | sh' git log``
#: runs curl, whatever a rule says about git.
PROGRAM_VARIABLES = _names(
    """
    PATH HOME XDG_CONFIG_HOME SHELL BASH_ENV ENV PROMPT_COMMAND SHELLOPTS BASHOPTS
    LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT
    PAGER MANPAGER GIT_PAGER EDITOR VISUAL GIT_EDITOR GIT_SEQUENCE_EDITOR BROWSER
    LESSOPEN LESSCLOSE SSH_ASKPASS GIT_ASKPASS SUDO_ASKPASS
    GIT_SSH GIT_SSH_COMMAND GIT_PROXY_COMMAND GIT_EXTERNAL_DIFF GIT_EXEC_PATH
    GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT
    GIT_DIR GIT_WORK_TREE GIT_TEMPLATE_DIR
    PYTHONPATH PYTHONSTARTUP PYTHONHOME PYTHONBREAKPOINT PYTHONUSERBASE
    NODE_OPTIONS NODE_PATH PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB
    RUSTC RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER RUSTDOC CARGO_HOME
    GOFLAGS GOTOOLCHAIN CC CXX LD MAKEFLAGS MAKESHELL
    """
)
#: Families of such variables (``GIT_CONFIG_KEY_0``, ``npm_config_script_shell``,
#: ``CARGO_TARGET_…_RUNNER``, ``CARGO_BUILD_RUSTC_WRAPPER``).
_PROGRAM_VARIABLE_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "npm_config_", "NPM_CONFIG_")
_PROGRAM_VARIABLE_SUFFIXES = ("_RUNNER", "_RUSTC_WRAPPER", "_LINKER")
#: Commands whose ``NAME=value`` arguments set variables for what they run, or for later.
_SETTERS = frozenset({"env", "sudo", "export", "declare", "typeset", "local", "readonly"})


def program_variable(words: Sequence[str]) -> CodeExecution | None:
    """The first ``NAME=value`` of ``words`` whose variable makes a program run another."""
    for word in words:
        name, eq, _ = word.partition("=")
        if not eq or not name.replace("_", "a").isalnum():
            continue
        if (
            name in PROGRAM_VARIABLES
            or name.startswith(_PROGRAM_VARIABLE_PREFIXES)
            or (name.startswith("CARGO_") and name.endswith(_PROGRAM_VARIABLE_SUFFIXES))
        ):
            return CodeExecution(
                "env",
                f"{name}=…",
                "sets a variable that chooses a program or code the command runs",
            )
    return None


#: Interpreters that read their program from standard input when given no script.
_STDIN_INTERPRETERS = frozenset({"python", "pypy", "node", "nodejs", "ruby", "perl", "php", "lua"})

_VERSION_SUFFIX = re.compile(r"(?<=[A-Za-z])[0-9][0-9.]*$")


def program_name(word: str) -> str:
    """The program a command word names, for the tables: its base name without a
    version suffix (``/usr/bin/python3.12`` → ``python``)."""
    return _VERSION_SUFFIX.sub("", os.path.basename(word))


def _long_hit(word: str, options: Sequence[str]) -> str | None:
    if not word.startswith("--") or len(word) < 3:
        return None
    name = word[2:].split("=", 1)[0]
    for option in options:
        full = option[2:]
        if name == full or (len(name) >= 3 and full.startswith(name)):
            return option
    return None


def _short_hit(word: str, letters: str, stop: str) -> str | None:
    if not letters or not word.startswith("-") or word.startswith("--") or len(word) < 2:
        return None
    for letter in word[1:]:
        if letter in letters:
            return f"-{letter}"
        if letter in stop or not letter.isalpha():
            return None
    return None


def _row_hit(row: OptionRow, words: Sequence[str]) -> str | None:
    for word in words[1:]:
        if word in row.exact:
            return word
        hit = _long_hit(word, row.long) or _short_hit(word, row.short, row.stop)
        if hit is not None:
            return hit
    return None


def code_execution(words: Sequence[str]) -> CodeExecution | None:
    """The first way ``words`` (one simple command) runs code it was given, or None."""
    if not words:
        return None
    program = program_name(words[0])
    if program in _SETTERS:
        variable = program_variable(words[1:])
        if variable is not None:
            return variable
    special = _SPECIAL.get(program)
    if special is not None:
        return special(program, words)
    if program in ALWAYS:
        return ALWAYS[program]
    for row in OPTION_TABLE:
        if program not in row.programs:
            continue
        hit = _row_hit(row, words)
        if hit is not None:
            return CodeExecution(program, hit, row.reason, row.hides)
        if program in ("tar", "gtar", "bsdtar") and len(words) > 1:
            hit = _old_style_tar(words[1])
            if hit is not None:
                return CodeExecution(program, hit, row.reason, row.hides)
    if program in ("vim", "vi", "nvim", "ex", "view", "gvim"):
        plus = next((w for w in words[1:] if w.startswith("+") and len(w) > 1), None)
        if plus is not None:
            return CodeExecution(
                program,
                "+…",
                "runs the editor command given after `+`, which can run shell commands",
            )
    if program in ("python", "pypy"):
        module = _python(program, words)
        if module is not None:
            return module
    if program in _STDIN_INTERPRETERS and _reads_stdin(program, words):
        return CodeExecution(
            program,
            "-" if "-" in words[1:] else "(no script)",
            "reads its program from standard input",
        )
    return None


def _old_style_tar(first: str) -> str | None:
    """``tar xIf …``: a first argument without a dash is a bundle of options."""
    if first.startswith("-") or not first.isalpha():
        return None
    for letter in first:
        if letter in "IF":
            return letter
        if letter in "fCbHKLNTVXg":
            return None
    return None


def _reads_stdin(program: str, words: Sequence[str]) -> bool:
    """Whether an interpreter would read its program from standard input (``python -``,
    or ``python`` with options but no script, module or inline code)."""
    if "-" in words[1:]:
        return True
    if program not in ("python", "pypy"):
        return len(words) == 1
    index = 1
    while index < len(words):
        word = words[index]
        if not word.startswith("-") or word == "--":
            return False  # a script (or the end of the options, then a script)
        if word.startswith("--"):
            index += 1
            continue
        for position, letter in enumerate(word[1:], start=1):
            if letter in "cm":
                return False
            if letter in "WX":
                if position == len(word) - 1:
                    index += 1  # its argument is the next word
                break
        index += 1
    return True


# -- programs with their own little languages -----------------------------------------------

_GIT_CONFIG_REASON = (
    "sets git configuration for this command, and configuration can run programs "
    "(core.fsmonitor, core.pager, core.sshCommand, aliases)"
)
_GIT_ELSEWHERE = (
    "makes git use the configuration and hooks of another repository, which can run programs"
)

#: Options before the subcommand that let the command line choose what git runs.
_GIT_GLOBAL: dict[str, str] = {
    "-c": _GIT_CONFIG_REASON,
    "--config-env": _GIT_CONFIG_REASON,
    "--exec-path": "makes git run its helper programs from another directory",
    "-C": _GIT_ELSEWHERE,
    "--git-dir": _GIT_ELSEWHERE,
    "--work-tree": _GIT_ELSEWHERE,
}
_GIT_GLOBAL_WITH_ARG = frozenset({"--namespace", "--super-prefix", "--list-cmds", "--attr-source"})

_STRATEGY = "runs the merge strategy it names, a git-merge-NAME program found on the PATH"
_REMOTE_PROGRAM = (
    "names the program git runs for the remote side (on this machine for local and ssh remotes)"
)

#: Subcommand options: subcommand ("*" for any) → (short letters, long options, reason).
_GIT_SUBCOMMAND: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("*", "", ("--upload-pack", "--receive-pack", "--exec"), _REMOTE_PROGRAM),
    ("*", "", ("--output",), "writes its output to a file"),
    (
        "clone",
        "uc",
        ("--template", "--config"),
        "installs hooks or configuration that run programs",
    ),
    ("init", "", ("--template",), "installs hooks that run programs"),
    ("rebase", "x", (), "runs the shell command it is given after each commit"),
    ("difftool", "x", ("--extcmd",), "runs the diff program it is given"),
    ("grep", "O", ("--open-files-in-pager",), "opens the matches with the program it is given"),
    ("daemon", "", ("--access-hook",), "runs the program it is given for every request"),
    ("help", "w", ("--web",), "starts the web browser its configuration names"),
    ("merge", "s", ("--strategy",), _STRATEGY),
    ("pull", "s", ("--strategy",), _STRATEGY),
    ("rebase", "s", ("--strategy",), _STRATEGY),
    ("cherry-pick", "", ("--strategy",), _STRATEGY),
    ("revert", "", ("--strategy",), _STRATEGY),
    (
        "send-email",
        "",
        ("--sendmail-cmd", "--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd"),
        "runs the programs it is given",
    ),
)

_GIT_ANYWAY: dict[str, str] = {
    "filter-branch": "runs the shell commands given as its filters",
    "instaweb": "starts a web server and a browser",
    "web--browse": "starts the web browser it is given or its configuration names",
    "credential": "runs the credential helpers git's configuration names, which are programs",
    "hook": "runs the repository's hook scripts",
    "shell": "runs the command it is given",
    "remote-ext": "runs the command given in its address",
}

_GIT_CONFIG_READS = frozenset(
    {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "--get-color",
        "--get-colorbool",
    }
)
_GIT_CONFIG_WRITES = frozenset(
    {
        "--add",
        "--unset",
        "--unset-all",
        "--replace-all",
        "--rename-section",
        "--remove-section",
        "--edit",
        "-e",
    }
)
_GIT_CONFIG_WRITE_VERBS = frozenset({"set", "unset", "rename-section", "remove-section", "edit"})


def _git(program: str, words: Sequence[str]) -> CodeExecution | None:
    index = 1
    while index < len(words) and words[index].startswith("-"):
        word = words[index]
        name = word.split("=", 1)[0]
        for option, reason in _GIT_GLOBAL.items():
            attached = option in ("-c", "-C") and word.startswith(option) and word != option
            if (
                name == option
                or attached
                or _long_hit(word, [option] if option.startswith("--") else [])
            ):
                return CodeExecution(program, option, reason)
        if name in _GIT_GLOBAL_WITH_ARG and "=" not in word:
            index += 1
        index += 1
    if index >= len(words):
        return None
    sub = words[index]
    rest = words[index + 1 :]
    if sub in _GIT_ANYWAY:
        return CodeExecution(program, sub, _GIT_ANYWAY[sub])
    if sub == "bisect" and list(rest[:1]) == ["run"]:
        return CodeExecution(program, "bisect run", "runs the command it is given at each step")
    if sub == "submodule" and "foreach" in rest:
        return CodeExecution(
            program, "submodule foreach", "runs the shell command it is given in each submodule"
        )
    if sub == "config" and _git_config_writes(rest):
        return CodeExecution(
            program,
            "config",
            "changes git configuration, which can make later git commands run programs",
            hides=False,
        )
    for scope, short, long, reason in _GIT_SUBCOMMAND:
        if scope not in ("*", sub):
            continue
        for word in rest:
            if word == "--":
                break
            hit = _long_hit(word, long) or _short_hit(word, short, "")
            if hit is not None:
                return CodeExecution(program, f"{sub} {hit}", reason)
    return None


def _git_config_writes(rest: Sequence[str]) -> bool:
    """Whether ``git config …`` changes the configuration (rather than reading it)."""
    options = [w.split("=", 1)[0] for w in rest if w.startswith("-")]
    positionals = [w for w in rest if not w.startswith("-")]
    if any(o in _GIT_CONFIG_WRITES for o in options):
        return True
    if positionals and positionals[0] in _GIT_CONFIG_WRITE_VERBS:
        return True
    if any(o in _GIT_CONFIG_READS for o in options) or positionals[:1] in (["get"], ["list"]):
        return False
    # ``git config name`` reads; ``git config name value`` writes.
    return len(positionals) >= 2


#: find's actions that run a command (its command is read and checked like any other).
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_WRITES = frozenset({"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})


def _find(program: str, words: Sequence[str]) -> CodeExecution | None:
    for word in words[1:]:
        if word in FIND_EXEC:
            return CodeExecution(
                program, word, "runs the command it is given for every file found", hides=False
            )
        if word in _FIND_WRITES:
            what = "deletes the files it finds" if word == "-delete" else "writes to a file"
            return CodeExecution(program, word, what, hides=False)
    return None


def _sed(program: str, words: Sequence[str]) -> CodeExecution | None:
    scripts, from_file = _sed_scripts(words)
    if from_file:
        return CodeExecution(
            program,
            "-f",
            "reads its script from a file, which may use `e` (run a command) or `w` (write a file)",
        )
    for script in scripts:
        finding = sed_findings(script)
        if finding is not None:
            what, reason = finding
            return CodeExecution(program, what, reason, hides=what != "w")
    return None


def _sed_scripts(words: Sequence[str]) -> tuple[list[str], bool]:
    """(the scripts given with -e or as the first operand, whether one comes from a file)."""
    scripts: list[str] = []
    operands: list[str] = []
    from_file = False
    index = 1
    only_operands = False
    while index < len(words):
        word = words[index]
        index += 1
        if only_operands or not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if word == "--":
            only_operands = True
            continue
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if _long_hit(f"--{name}", ["--expression"]):
                if eq:
                    scripts.append(value)
                elif index < len(words):
                    scripts.append(words[index])
                    index += 1
            elif _long_hit(f"--{name}", ["--file"]):
                from_file = True
                index += 0 if eq else 1
            elif _long_hit(f"--{name}", ["--line-length"]) and not eq:
                index += 1
            continue
        for position, letter in enumerate(word[1:], start=1):
            attached = word[position + 1 :]
            if letter in "ef":
                value = attached
                if not attached and index < len(words):
                    value = words[index]
                    index += 1
                if letter == "e":
                    scripts.append(value)
                else:
                    from_file = True
                break
            if letter in "li":
                if letter == "l" and not attached:
                    index += 1
                break  # the rest of the word is the option's argument
    if not scripts and not from_file and operands:
        scripts.append(operands[0])
    return scripts, from_file


def _awk(program: str, words: Sequence[str]) -> CodeExecution | None:
    sources: list[str] = []
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or word == "-":
            break
        index += 1
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if _long_hit(f"--{name}", ["--file", "--exec", "--include"]):
                return CodeExecution(program, f"--{name}", "reads its program from a file")
            if _long_hit(f"--{name}", ["--load"]):
                return CodeExecution(
                    program, f"--{name}", "loads a compiled extension, which runs native code"
                )
            if _long_hit(f"--{name}", ["--source"]):
                if eq:
                    sources.append(value)
                elif index < len(words):
                    sources.append(words[index])
                    index += 1
            elif not eq and _long_hit(f"--{name}", ["--assign", "--field-separator"]):
                index += 1
            continue
        letter, attached = word[1], word[2:]
        if letter in "fEi":
            return CodeExecution(program, f"-{letter}", "reads its program from a file")
        if letter == "l":
            return CodeExecution(
                program, "-l", "loads a compiled extension, which runs native code"
            )
        if letter in "eFv":
            value = attached
            if not attached and index < len(words):
                value = words[index]
                index += 1
            if letter == "e":
                sources.append(value)
    if not sources and index < len(words):
        sources.append(words[index])
    for source in sources:
        finding = awk_findings(source)
        if finding is not None:
            what, reason = finding
            return CodeExecution(program, what, reason)
    return None


_MAKE_STDIN = re.compile(r"^(?:-|/dev/stdin|/dev/fd/.*|/proc/.*)$")


def _make(program: str, words: Sequence[str]) -> CodeExecution | None:
    """Make evaluates what its command line gives it: ``--eval``, a variable
    (``X:=$(shell …)`` runs at once, ``SHELL=…`` runs every recipe), or a makefile read
    from standard input."""
    expect_file = False
    for word in words[1:]:
        if expect_file:
            expect_file = False
            if _MAKE_STDIN.match(word):
                return CodeExecution(program, "-f", "reads a makefile given on standard input")
            continue
        if word in ("-E", "--eval") or word.startswith("--eval="):
            return CodeExecution(program, "--eval", "evaluates makefile code it is given")
        if word in ("-f", "--file", "--makefile"):
            expect_file = True
            continue
        if word.startswith("-f") and _MAKE_STDIN.match(word[2:]):
            return CodeExecution(program, "-f", "reads a makefile given on standard input")
        if not word.startswith("-") and ("=" in word or ";" in word):
            return CodeExecution(
                program,
                word.split("=", 1)[0] + ("=" if "=" in word else ""),
                "sets a make variable or rule on the command line, which can run shell "
                "commands (`$(shell …)`, `SHELL=`)",
            )
    return None


#: Options of the go command that name a program it runs.
_GO_RUNS = ("-exec", "-toolexec", "-vettool")


def _go(program: str, words: Sequence[str]) -> CodeExecution | None:
    sub = next((w for w in words[1:] if not w.startswith("-")), "")
    if sub == "generate":
        return CodeExecution(
            program, "generate", "runs the commands written in the source files' comments"
        )
    if sub == "run" and any("@" in w for w in words[2:] if not w.startswith("-")):
        return CodeExecution(program, "run …@…", "downloads and runs the program it names")
    if sub == "env" and any(w == "-w" or w.startswith("-w=") for w in words[2:]):
        return CodeExecution(
            program,
            "env -w",
            "changes Go's settings, which can make later go commands run programs",
            hides=False,
        )
    for word in words[1:]:
        name = "-" + word.lstrip("-").split("=", 1)[0] if word.startswith("-") else ""
        if name in _GO_RUNS:
            return CodeExecution(program, name, "runs the program it is given for every build step")
    return None


def _python(program: str, words: Sequence[str]) -> CodeExecution | None:
    """``python -m MODULE …`` is the module's command (``python -m pytest -p x``)."""
    for index, word in enumerate(words[1:-1], start=1):
        if word == "-m":
            return code_execution((words[index + 1], *words[index + 2 :]))
        if not word.startswith("-"):
            break
    return None


def _pytest(program: str, words: Sequence[str]) -> CodeExecution | None:
    """``-p NAME`` imports a plugin (``-p no:NAME`` only turns one off); ``-c FILE`` reads
    a configuration whose ``addopts`` can load one."""
    for index, word in enumerate(words[1:], start=1):
        if word == "-p" or (word.startswith("-p") and not word.startswith("--")):
            name = word[2:] or (words[index + 1] if index + 1 < len(words) else "")
            if not name.startswith("no:"):
                return CodeExecution(program, "-p", "imports the plugin it names, which runs code")
        if word in ("-c", "--config-file") or word.startswith(("--config-file=", "-c")):
            return CodeExecution(
                program, "-c", "reads the configuration it is given, which can load plugins"
            )
    return None


_SPECIAL: dict[str, Callable[[str, Sequence[str]], CodeExecution | None]] = {
    "pytest": _pytest,
    "py.test": _pytest,
    "make": _make,
    "gmake": _make,
    "go": _go,
    "git": _git,
    "find": _find,
    "sed": _sed,
    "gsed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
}
