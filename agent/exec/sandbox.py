"""Bubblewrap sandbox for commands and Python the agent runs.

With ``bwrap`` installed (Debian ``bubblewrap``; ``scripts/ensure_bwrap.sh``), a
command runs as::

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
          [--tmpfs /run --tmpfs $XDG_RUNTIME_DIR ...]     (network: false)
          --bind WS WS                  (read-only: --ro-bind WS WS)
          --ro-bind-try P P ...         (protected paths in the workspace)
          [--ro-bind-try /dev/null SOCKET ...]             (network: false)
          --unshare-pid --die-with-parent --cap-drop ALL [--unshare-net]
          --chdir CWD -- ARGV

* The whole filesystem is visible but read-only; only the workspace is writable
  (``workspace-write``), or nothing is (``read-only``).
* Inside the workspace, what ``agent.protected.paths`` lists stays read-only: ``.git``
  (so ``git status``, ``diff`` and ``log`` work, ``git add`` and ``commit`` do not),
  ``.agentls.yaml``, ``.agentls/``, ``.mcp.json``, ``.vscode/``, ``.claude/``, the
  ``.github`` instruction files, and at any depth ``.git``, ``AGENTS.md``,
  ``AGENTS.override.md`` and ``CLAUDE.md``.
  A command could otherwise plant a git hook, an MCP server or a task that runs outside
  the sandbox on the user's next checkout, agent run or editor start. bwrap cannot make a
  path that does not exist read-only, so creating one is undone after the command
  instead (``agent.protected.planted_files``).
* ``/tmp`` is a fresh, private, writable tmpfs, discarded when the command ends:
  test runners and compilers need a scratch directory, and a private one means the
  command can neither read nor plant files in the host's ``/tmp``. A workspace that
  lives under ``/tmp`` stays visible because it is bound after the tmpfs.
* ``--unshare-pid``: the command sees only its own processes, and when bwrap dies
  the kernel kills everything left in the namespace, so nothing escapes the
  timeout by daemonising.
* ``--cap-drop ALL``: bwrap started by root keeps every capability for the command
  unless told otherwise, and with ``CAP_SYS_ADMIN`` the command could unmount the
  read-only binds. Without it, root in the sandbox is an ordinary user.
* ``network: false`` (the default): ``--unshare-net``, so no network at all (loopback
  only), and no host service reachable through a unix socket either: the network
  namespace cuts abstract sockets, but sockets that are files stay connectable on a
  read-only filesystem. So ``/run`` (the system bus, docker, ...), ``/var/run`` when it
  is not a link to ``/run``, and ``$XDG_RUNTIME_DIR`` (the session bus, ssh, gpg and
  keyring agents) are replaced by empty tmpfs, and the sockets the environment names
  elsewhere (``SSH_AUTH_SOCK``, ``DOCKER_HOST``, ``CONTAINER_HOST``, the D-Bus
  addresses, gpg's ``S.*`` sockets in ``~/.gnupg``) are covered by ``/dev/null``.
* ``network: true`` does none of that: the command reaches the network and every host
  socket the user can (an ssh agent, docker, the session bus).
* Not isolated: reading files (secrets readable by the user stay readable), the
  user id, resource use (CPU, memory), other sockets that are files outside those
  places and named by no variable, and changes inside the directories the search for
  nested protected paths skips (``node_modules``, ``.venv``, ``build``, ...).

Without bwrap, commands run unsandboxed and the tool result says so once; the protected
paths a command creates are still removed after it (``agent.protected.planted_files``).

A ``bwrap`` on the PATH is not taken on trust: it is started once per process, with the
namespaces a command gets, before agentls counts on it (``bwrap_status``). One that
cannot start (Ubuntu 24.04's AppArmor restriction on unprivileged user namespaces, the
GitHub runner default, makes it fail with "setting up uid map: Permission denied") counts
as no sandbox, and the notice names the cause and the ``sysctl`` that lifts it.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import unquote

from agentls.agent.protected.paths import find_protected

if TYPE_CHECKING:
    from agentls.agent.config.models import AgentConfig

SandboxMode = Literal["workspace-write", "read-only", "off"]

NO_BWRAP_NOTE = "(no sandbox: bubblewrap not installed)"
BROKEN_BWRAP_NOTE = "(no sandbox: bubblewrap cannot start here)"
_EROFS = re.compile(r"read-only file system|EROFS", re.IGNORECASE)
_NETWORK = re.compile(
    r"network is unreachable|could not resolve host|temporary failure in name resolution|"
    r"name or service not known|nodename nor servname|failed to establish a new connection|"
    r"ENETUNREACH|EAI_AGAIN|getaddrinfo",
    re.IGNORECASE,
)


#: How long the probe may take before bwrap counts as unable to start.
PROBE_TIMEOUT = 15.0
#: What bwrap says when the kernel refuses it a user namespace.
_USERNS_REFUSED = re.compile(
    r"uid map|gid map|new namespace|user namespace|unshare|clone|Operation not permitted|"
    r"Permission denied",
    re.IGNORECASE,
)
_SYSCTL = Path("/proc/sys")


@dataclass(frozen=True)
class BwrapStatus:
    """Whether bubblewrap is on the PATH, and whether it can start here."""

    path: str | None
    #: Why the bwrap found cannot start (its own words), None when it can.
    problem: str | None = None
    #: The command that lets it start, when the cause is known.
    fix: str | None = None

    @property
    def usable(self) -> bool:
        return self.path is not None and self.problem is None

    def describe(self) -> str:
        """Why commands cannot be sandboxed, in plain words ('' when they can)."""
        if self.path is None:
            return "bubblewrap is not installed"
        if self.problem is None:
            return ""
        text = f"bubblewrap ({self.path}) is installed but cannot start here ({self.problem})"
        if self.fix is not None:
            text += (
                ": the kernel refuses it the user namespaces it needs, as Ubuntu 24.04's "
                "AppArmor restriction does (the GitHub runner default). Lift it with "
                f"`{self.fix}`"
            )
        return text


_probe_lock = threading.Lock()
_probed: dict[str, BwrapStatus] = {}


def bwrap_status() -> BwrapStatus:
    """bwrap on the PATH, started once per process (per path) to see that it works.

    Blocking (a process start, at most ``PROBE_TIMEOUT``): a server calls it first from a
    worker thread, and every later call reads the answer kept."""
    path = shutil.which("bwrap")
    if path is None:
        return BwrapStatus(None)
    with _probe_lock:
        found = _probed.get(path)
        if found is None:
            found = _probed[path] = _probe(path)
        return found


def _probe(path: str) -> BwrapStatus:
    """Start ``path`` with the namespaces a sandboxed command gets, running ``true``."""
    argv = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--unshare-pid", "--unshare-net", "--die-with-parent", "--", "true"]
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return BwrapStatus(path, f"it did not finish within {PROBE_TIMEOUT:g} s")
    except OSError as exc:
        return BwrapStatus(path, exc.strerror or str(exc))
    if done.returncode == 0:
        return BwrapStatus(path)
    said = " ".join(line.strip() for line in done.stderr.splitlines() if line.strip())
    problem = said[:300] or f"it exited with status {done.returncode}"
    fix = _namespace_fix() if _USERNS_REFUSED.search(said) else None
    return BwrapStatus(path, problem, fix)


def _sysctl(name: str) -> str | None:
    try:
        return (_SYSCTL / name).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _namespace_fix() -> str:
    """The sysctl that gives unprivileged users their namespaces back on this kernel."""
    if _sysctl("kernel/unprivileged_userns_clone") == "0":  # Debian's older kernels
        return "sudo sysctl -w kernel.unprivileged_userns_clone=1"
    if _sysctl("user/max_user_namespaces") == "0":
        return "sudo sysctl -w user.max_user_namespaces=15000"
    return "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"


def forget_bwrap_probe() -> None:
    """Probe again next time (tests; a user who just ran the fix)."""
    with _probe_lock:
        _probed.clear()


def find_bwrap() -> str | None:
    """The bwrap that commands are sandboxed with: on the PATH and able to start."""
    status = bwrap_status()
    return status.path if status.usable else None


def no_sandbox_note() -> str:
    """The note a command's result carries when it ran without the sandbox it asked for."""
    status = bwrap_status()
    return BROKEN_BWRAP_NOTE if status.problem is not None else NO_BWRAP_NOTE


@dataclass(frozen=True)
class Sandbox:
    """How to wrap one command; ``bwrap=None`` means no sandbox is available."""

    workspace: Path
    mode: SandboxMode = "workspace-write"
    network: bool = False
    bwrap: str | None = None

    @property
    def active(self) -> bool:
        return self.mode != "off" and self.bwrap is not None

    @property
    def missing(self) -> bool:
        """A sandbox was asked for but cannot be had."""
        return self.mode != "off" and self.bwrap is None

    def wrap(self, argv: list[str], cwd: Path, protected: Sequence[str] | None = None) -> list[str]:
        """The argv that runs ``argv`` in the sandbox (``argv`` itself when inactive).

        ``protected``: the workspace's existing protected paths (``find_protected``), when
        the caller has already looked; otherwise they are looked for here.
        """
        if not self.active or self.bwrap is None:
            return list(argv)
        ws = str(self.workspace)
        hidden = ["/tmp"]
        wrapped = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        wrapped += ["--tmpfs", "/tmp"]
        if not self.network:
            runtime = _runtime_dirs(self.workspace)
            for directory in runtime:
                wrapped += ["--tmpfs", directory]
            hidden += runtime
            wrapped += _keep_links(runtime, hidden)
        # After every tmpfs that could hide them: the interpreter, then the workspace.
        wrapped += _rebind_hidden(argv, hidden)
        if self.mode == "workspace-write":
            wrapped += ["--bind", ws, ws]
            rels = find_protected(ws).paths if protected is None else protected
            wrapped += _read_only_binds(self.workspace, rels)
        else:
            wrapped += ["--ro-bind", ws, ws]
        if not self.network:
            # Last: a socket may sit in the workspace or in a protected directory.
            for socket_path in _named_sockets(hidden):
                wrapped += ["--ro-bind-try", "/dev/null", socket_path]
        wrapped += ["--unshare-pid", "--die-with-parent", "--cap-drop", "ALL"]
        if not self.network:
            wrapped.append("--unshare-net")
        wrapped += ["--chdir", str(cwd), "--", *argv]
        return wrapped

    def explain_failure(self, output: str, exit_code: int | None) -> list[str]:
        """Notes for the model when a failure looks caused by the sandbox itself."""
        if not self.active or exit_code == 0:
            return []
        notes = []
        if _EROFS.search(output):
            where = (
                "the whole filesystem, the workspace included, read-only"
                if self.mode == "read-only"
                else "the filesystem outside the workspace read-only, and inside it .git "
                "(git add and commit cannot run here) and the files that configure tools or "
                "instruct agents (.agentls.yaml, .mcp.json, .vscode/, .claude/, AGENTS.md, ...)"
            )
            notes.append(
                f"Note: the sandbox makes {where} (sandbox: {self.mode}); "
                "/tmp is private and discarded after the command."
            )
        if not self.network and _NETWORK.search(output):
            notes.append("Note: the sandbox disables network access (network: false).")
        return notes


def make_sandbox(workspace: Path, mode: SandboxMode, network: bool) -> Sandbox:
    return Sandbox(
        workspace=Path(os.path.realpath(workspace)),
        mode=mode,
        network=network,
        bwrap=find_bwrap() if mode != "off" else None,
    )


def _under(path: str, directories: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in directories)


def _rebind_hidden(argv: list[str], hidden: list[str]) -> list[str]:
    """Read-only binds for what the command needs that lives under a hidden directory.

    The private tmpfs on /tmp (or /run) would hide an interpreter or a program installed
    there (a checkout, and so its .venv, cloned under /tmp; a NixOS profile reached
    through /run): bind those back, read-only. So is the user's own skills folder, whose
    scripts the model runs (``agent.prompts.skills``), when the user config directory
    lives there.
    """
    from agentls.agent.config.userdirs import user_config_dir

    candidates = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    candidates.add(str(user_config_dir() / "skills"))
    if argv and os.path.isabs(argv[0]):
        candidates.add(os.path.dirname(os.path.realpath(argv[0])))
    binds: list[str] = []
    for path in sorted(candidates):
        real = os.path.realpath(path)
        if not os.path.isdir(real):
            continue
        if _under(real, hidden):
            binds += ["--ro-bind", real, real]
        if path != real and _under(path, hidden):
            binds += ["--ro-bind", real, path]
    return binds


def _runtime_dirs(workspace: Path) -> list[str]:
    """The directories where host services keep their sockets, to be hidden."""
    dirs = [d for d in ("/run", "/var/run") if os.path.isdir(d) and not os.path.islink(d)]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        real = os.path.realpath(runtime)
        # Not a directory that holds the workspace or the home directory: such a value
        # is a misconfiguration, and hiding it would hide the user's files.
        holds_needed = _under(str(workspace), [real]) or _under(
            os.path.realpath(os.path.expanduser("~")), [real]
        )
        if os.path.isdir(real) and not holds_needed and not _under(real, ["/tmp", *dirs]):
            dirs.append(real)
    return dirs


def _keep_links(runtime: list[str], hidden: list[str]) -> list[str]:
    """Recreate the links to directories found at the top of the hidden runtime
    directories (``/run/shm``; NixOS's ``/run/current-system``, which holds every
    program): they lead elsewhere, and programs need them."""
    links: list[str] = []
    for directory in runtime:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            target = os.path.realpath(path)
            if os.path.islink(path) and os.path.isdir(target) and not _under(target, hidden):
                links += ["--symlink", os.readlink(path), path]
    return links


def _read_only_binds(workspace: Path, rels: Sequence[str]) -> list[str]:
    """``--ro-bind-try`` for each protected path of the workspace.

    bwrap follows a link at the destination, so a protected link makes what it points to
    read-only; the link itself stays removable, and ``agent.protected.planted_files`` puts it back.
    Targets outside the workspace are read-only already. ``-try``: a path the host
    removes meanwhile must not stop the command.
    """
    ws = str(workspace)
    binds: list[str] = []
    seen: set[str] = set()
    for rel in rels:
        real = os.path.realpath(os.path.join(ws, rel))
        if real in seen or not real.startswith(ws + "/") or not os.path.exists(real):
            continue
        seen.add(real)
        binds += ["--ro-bind-try", real, real]
    return binds


def _named_sockets(hidden: list[str]) -> list[str]:
    """The unix sockets the environment names outside the hidden directories.

    Each is covered by ``/dev/null`` (bwrap can bind a file over a socket): connecting to
    it then fails with "Connection refused". Hiding the directory instead would hide
    what sits beside the socket (an ssh agent's socket may live in ``~/.ssh``).
    """
    env = os.environ
    named = [env.get("SSH_AUTH_SOCK", "")]
    for var in ("DOCKER_HOST", "CONTAINER_HOST"):
        value = env.get(var, "")
        if value.startswith("unix://"):
            named.append(value.removeprefix("unix://"))
    for var in ("DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS"):
        named += _dbus_paths(env.get(var, ""))
    gnupg = env.get("GNUPGHOME") or os.path.join(os.path.expanduser("~"), ".gnupg")
    # gpg's sockets, or the files that redirect to them ("%Assuan%" then "socket=...").
    named += sorted(glob.glob(os.path.join(glob.escape(gnupg), "S.*")))
    found: list[str] = []
    for path in named:
        if not path or not os.path.isabs(path):
            continue
        real = os.path.realpath(path)
        try:
            mode = os.stat(real).st_mode
        except OSError:
            continue
        is_socket = stat.S_ISSOCK(mode)
        redirect = stat.S_ISREG(mode) and os.path.basename(path).startswith("S.")
        if (is_socket or redirect) and not _under(real, hidden) and real not in found:
            found.append(real)
    return found


def _dbus_paths(address: str) -> list[str]:
    """The socket files of a D-Bus address list (``unix:path=/run/user/1000/bus;...``).
    ``unix:abstract=`` needs nothing: abstract sockets belong to the network namespace."""
    paths = []
    for entry in address.split(";"):
        transport, _, params = entry.partition(":")
        if transport != "unix":
            continue
        for param in params.split(","):
            key, _, value = param.partition("=")
            if key == "path" and value:
                paths.append(unquote(value))
    return paths


#: Puts ``argv`` (run in the folder given) in a sandbox.
CommandWrapper = Callable[[list[str], Path], list[str]]


def sandbox_wrapper(root: Path, agent: AgentConfig) -> CommandWrapper | None:
    """What puts a command the run starts by itself (a hook, a worktree's setup) in the
    sandbox the agent's own commands get; None when there is none."""
    if agent.sandbox == "off" or find_bwrap() is None:
        return None
    sandbox = make_sandbox(root, agent.sandbox, agent.network)
    return lambda argv, cwd: sandbox.wrap(argv, cwd)
