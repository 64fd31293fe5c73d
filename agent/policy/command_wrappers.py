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

Tool runners are wrappers too, found by a subcommand: ``uv run CMD``, ``poetry run CMD``,
``bundle exec CMD``, ``npm exec``, ``pnpm dlx``, ``docker run IMAGE CMD``, ``kubectl exec
POD -- CMD``, ``ssh HOST CMD``... ``RUNNER_TABLE`` lists them, one row each: where the
command starts, and, when what finally runs cannot be known from the command line (a
package downloaded from a registry, a container's image, a job read later from standard
input), why (``Runner.opaque``). The inner command of such a runner is still read and
checked against deny rules (``npx curl`` is refused by ``curl*``), and the runner is then
also opaque: with deny or ask rules in force it is asked about.
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
    "busybox": Syntax(),  # multi-call binaries: the applet is the command
    "toybox": Syntax(),
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


# -- tool runners: programs that run a command through one of their subcommands ------------

_DOWNLOADS = "downloads and runs a package whose code the rules cannot see"
_CONTAINER = "runs it in a container whose image and entrypoint the rules cannot see"
_REMOTE = "runs it on another machine, whose programs the rules cannot see"
_LATER = (
    "schedules commands read from its input or a file, which run later outside the sandbox "
    "and which the rules cannot see"
)


@dataclass(frozen=True)
class Runner:
    """A program whose subcommand runs a command of the caller's choosing.

    ``subcommand`` is the word after the program's own options (``run`` of ``uv run``;
    several words for ``docker compose run``); empty when the program itself runs the
    command (``npx``, ``ssh``). ``syntax`` reads the words after it like a wrapper's.
    ``opaque`` says why what finally runs cannot be checked against the rules (empty
    when the inner command is all that runs). ``package``: the command word is a package
    spec (``cowsay@1.2``, ``@scope/tool``), whose command is its bare name.
    """

    program: str
    subcommand: tuple[str, ...] = ()
    syntax: Syntax = Syntax()
    opaque: str = ""
    package: bool = False
    #: With no command it starts an interactive shell (``ssh host``).
    shell_without_command: bool = False


def _runner(
    program: str,
    subcommand: str = "",
    *,
    syntax: Syntax = Syntax(),
    opaque: str = "",
    package: bool = False,
    shell_without_command: bool = False,
) -> Runner:
    return Runner(
        program,
        tuple(subcommand.split()),
        syntax,
        opaque,
        package,
        shell_without_command,
    )


_NPX = Syntax(
    short_args="pc",
    short_flags="yq",
    long_args=_set("--package --call --workspace --prefix --registry --cache --userconfig"),
    long_flags=_set("--yes --no --quiet --no-install --ignore-existing --workspaces"),
    shell_options=_set("-c --call"),
)
_DOCKER_RUN = Syntax(
    short_args="aceuvpwlhm",
    short_flags="dit",
    long_args=_set(
        "--name --env --env-file --volume --publish --workdir --user --entrypoint --network "
        "--label --mount --platform --hostname --memory --cpus --add-host --device --cap-add "
        "--cap-drop --security-opt --pull --restart --tmpfs --ulimit --dns --log-driver"
    ),
    long_flags=_set("--rm --detach --interactive --tty --privileged --init --read-only"),
    operands=1,
)
_DOCKER_EXEC = Syntax(
    short_args="euw",
    short_flags="dit",
    long_args=_set("--env --env-file --user --workdir --detach-keys"),
    long_flags=_set("--detach --interactive --tty --privileged"),
    operands=1,
)
_KUBECTL = Syntax(
    short_args="ncf",
    short_flags="it",
    long_args=_set("--namespace --container --filename --image --context --kubeconfig"),
    long_flags=_set("--stdin --tty --quiet --rm"),
    operands=1,
)
_SSH = Syntax(
    short_args="BbcDEeFIiJLlmOoPpQRSWw",
    short_flags="46AaCfGgKkMNnqsTtVvXxYy",
    operands=1,
    joins_shell=True,
)

#: Programs that run a command through a subcommand (or by themselves, with options of
#: their own), and why what they run cannot be known when it cannot. The commands
#: found are read like any wrapper's: an option the row does not know may take an
#: argument, so every later word may then start the command.
RUNNER_TABLE: tuple[Runner, ...] = (
    # Python, Ruby and JavaScript project runners: the command runs in the project's
    # environment, as written.
    _runner(
        "uv",
        "run",
        syntax=Syntax(
            short_args="pPC",
            long_args=_set(
                "--with --with-editable --with-requirements --python --package --extra --group "
                "--only-group --no-group --env-file --directory --project --index --default-index "
                "--index-url --extra-index-url --find-links --config-file --cache-dir --color"
            ),
        ),
    ),
    _runner(
        "uv",
        "tool run",
        opaque=_DOWNLOADS,
        package=True,
        syntax=Syntax(long_args=_set("--from --with --python --index")),
    ),
    _runner(
        "uvx",
        opaque=_DOWNLOADS,
        package=True,
        syntax=Syntax(long_args=_set("--from --with --python --index")),
    ),
    _runner("poetry", "run"),
    _runner("pipenv", "run"),
    _runner("pdm", "run"),
    _runner("hatch", "run"),
    _runner("rye", "run"),
    _runner("conda", "run", syntax=Syntax(short_args="np", long_args=_set("--name --prefix"))),
    _runner("mamba", "run", syntax=Syntax(short_args="np", long_args=_set("--name --prefix"))),
    _runner("micromamba", "run", syntax=Syntax(short_args="np", long_args=_set("--name --prefix"))),
    _runner(
        "pipx",
        "run",
        opaque=_DOWNLOADS,
        package=True,
        syntax=Syntax(long_args=_set("--spec --python --pip-args --index-url")),
    ),
    _runner("bundle", "exec"),
    _runner("pnpm", "exec", syntax=Syntax(short_args="C", long_args=_set("--dir --filter"))),
    _runner("yarn", "exec"),
    _runner("npm", "exec", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("npm", "x", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("npx", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("pnpx", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("pnpm", "dlx", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("yarn", "dlx", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("bunx", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("bun", "x", opaque=_DOWNLOADS, package=True, syntax=_NPX),
    _runner("mise", "exec"),
    _runner("mise", "x"),
    _runner("asdf", "exec"),
    _runner("direnv", "exec", syntax=Syntax(operands=1)),
    _runner("nix", "run", opaque=_DOWNLOADS),
    _runner(
        "nix",
        "shell",
        opaque=_DOWNLOADS,
        syntax=Syntax(short_args="c", long_args=_set("--command")),
    ),
    _runner(
        "nix-shell",
        opaque=_DOWNLOADS,
        syntax=Syntax(long_args=_set("--run --command -p"), shell_options=_set("--run --command")),
    ),
    # Containers and other machines: the command runs elsewhere, in something the rules
    # cannot see (an image's entrypoint, a pod, a host's shell).
    *(
        _runner(
            engine,
            sub,
            opaque=_CONTAINER,
            syntax=_DOCKER_EXEC if sub.endswith("exec") else _DOCKER_RUN,
        )
        for engine in ("docker", "podman", "nerdctl")
        for sub in ("run", "exec", "create", "container run", "container exec")
    ),
    *(
        _runner(compose, sub, opaque=_CONTAINER, syntax=Syntax(operands=1))
        for compose in ("docker compose", "docker-compose", "podman-compose", "podman compose")
        for sub in ("run", "exec")
    ),
    _runner("kubectl", "exec", opaque=_REMOTE, syntax=_KUBECTL),
    _runner("kubectl", "run", opaque=_CONTAINER, syntax=_KUBECTL),
    _runner("kubectl", "debug", opaque=_CONTAINER, syntax=_KUBECTL),
    _runner("oc", "exec", opaque=_REMOTE, syntax=_KUBECTL),
    # The words after the host are one command line for the remote shell (``joins_shell``).
    _runner("ssh", syntax=_SSH, shell_without_command=True),
    # Schedulers: the job is read later, from standard input or a file.
    _runner("at", opaque=_LATER),
    _runner("batch", opaque=_LATER),
    _runner("crontab", opaque=_LATER),
)

#: Options that only ask a scheduler about jobs, running nothing.
_SCHEDULER_QUERIES = frozenset({"-l", "-r", "-d", "-c", "-V", "-q", "-L", "-T"})


def _rows_by_program() -> dict[str, tuple[Runner, ...]]:
    rows: dict[str, list[Runner]] = {}
    for row in RUNNER_TABLE:
        first, *rest = row.program.split()
        # ``docker compose run``: the program is docker, the subcommand "compose run".
        full = Runner(
            first,
            (*rest, *row.subcommand),
            row.syntax,
            row.opaque,
            row.package,
            row.shell_without_command,
        )
        rows.setdefault(first, []).append(full)
    return {name: tuple(found) for name, found in rows.items()}


_RUNNER_ROWS = _rows_by_program()

#: Programs that run another program by name, with no subcommand needed.
_DIRECT_RUNNERS = frozenset(
    name for name, rows in _RUNNER_ROWS.items() if not rows[0].subcommand and len(rows) == 1
)

#: Every program this module looks inside by its name alone (tool runners found by a
#: subcommand, such as ``uv run``, are not in it: ``uv sync`` runs nothing else).
RUNNERS = frozenset(WRAPPER_SYNTAX) | OTHER_RUNNERS | _DIRECT_RUNNERS


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
        if name in OTHER_RUNNERS:
            return _every_start(words, 1)
        runner = _find_runner(words)
        if runner is None:
            return []
        row, at = runner
        return _read_runner(row, words, at)
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


def _subcommand_at(words: Sequence[str], start: int, name: str) -> int | None:
    """Where the subcommand ``name`` is among ``words[start:]``, after the program's own
    options: the first word that is not an option and that the option before it could
    not have taken as its argument (``uv -p 3.12 --color auto run``: ``run``)."""
    for index in range(start, len(words)):
        word = words[index]
        if word.startswith("-"):
            continue
        if word == name:
            return index
        previous = words[index - 1]
        if not (previous.startswith("-") and "=" not in previous):
            return None  # another subcommand
    return None


def _find_runner(words: Sequence[str]) -> tuple[Runner, int] | None:
    """The row of ``RUNNER_TABLE`` ``words`` use, and where its subcommand ends."""
    for row in _RUNNER_ROWS.get(os.path.basename(words[0]), ()):
        at: int | None = 0
        for part in row.subcommand:
            at = _subcommand_at(words, at + 1, part) if at is not None else None
        if at is not None:
            return row, at
    return None


def _package_command(word: str) -> str:
    """The command a package spec runs: ``cowsay@1.2`` → ``cowsay``, ``@scope/tool@2``
    → ``tool``, ``black==24.1`` → ``black``."""
    name = re.split(r"==|>=|<=|~=|!=|\[", word, maxsplit=1)[0]
    scoped = name.startswith("@")
    name = name[1:] if scoped else name
    name = name.split("@", 1)[0]
    return name.rsplit("/", 1)[-1] if scoped else name


def _read_runner(row: Runner, words: Sequence[str], at: int) -> list[Inner]:
    if row.opaque and row.program in ("at", "batch", "crontab"):
        if any(w in _SCHEDULER_QUERIES for w in words[1:]):
            return []  # it lists or removes jobs
        return [Inner(opaque=row.opaque)]
    found: list[Inner] = []
    for inner in _Reader(row.program, row.syntax, words[at:]).read():
        if inner.words and inner.words[0] == "--":
            inner = Inner(inner.words[1:])
        if not inner.words and inner.shell is None and inner.opaque is None:
            continue
        if row.package and inner.words:
            inner = Inner((_package_command(inner.words[0]), *inner.words[1:]))
        if inner not in found:
            found.append(inner)
    if not any(i.words or i.shell is not None for i in found) and row.shell_without_command:
        found.append(Inner(opaque=f"{row.program} starts a remote shell"))
    if row.opaque:
        found.append(Inner(opaque=row.opaque))
    return found


def runs_another(words: Sequence[str]) -> bool:
    """Whether ``words`` is a wrapper or tool runner running another command."""
    return bool(words) and (
        os.path.basename(words[0]) in RUNNERS or _find_runner(words) is not None
    )


# -- git: its aliases and its other names for a subcommand -----------------------------------

#: git's own commands (``git --list-cmds=main,nohelpers``, and git-lfs). Any other word
#: after ``git`` is an alias from a configuration file or a ``git-NAME`` program on the
#: PATH, which can run anything (``alias.p = !curl …``): the rules cannot see it.
GIT_COMMANDS = _set(
    """
    add am annotate apply archive bisect blame branch bugreport bundle cat-file
    check-attr check-ignore check-mailmap check-ref-format checkout checkout-index
    cherry cherry-pick clean clone column commit commit-graph commit-tree config
    count-objects credential credential-cache credential-store daemon describe diagnose
    diff diff-files diff-index diff-tree difftool fast-export fast-import fetch
    fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck
    fsck-objects gc get-tar-commit-id grep hash-object help hook http-backend http-fetch
    http-push imap-send index-pack init init-db instaweb interpret-trailers lfs log
    ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base
    merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive
    merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree merge-tree
    mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects
    pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push quiltimport
    range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd
    remote-ftp remote-ftps remote-http remote-https repack replace request-pull rerere
    reset restore rev-list rev-parse revert rm send-pack shell shortlog show show-branch
    show-index show-ref sparse-checkout stage stash status stripspace submodule subtree
    switch symbolic-ref tag unpack-file unpack-objects update-index update-ref
    update-server-info upload-archive upload-pack var verify-commit verify-pack
    verify-tag version whatchanged worktree write-tree
    """
)

#: Subcommands that do what another does, by another name: a rule naming the one (``git
#: push*``) catches the other (``git send-pack``) too.
GIT_SAME_AS: dict[str, str] = {
    "send-pack": "push",
    "http-push": "push",
    "fetch-pack": "fetch",
    "http-fetch": "fetch",
    "switch": "checkout",
    "restore": "checkout",
    "stage": "add",
    "init-db": "init",
    "fsck-objects": "fsck",
}
