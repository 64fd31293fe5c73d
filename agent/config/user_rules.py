"""Saving an allow rule the user chose at a prompt ("always allow `pytest*`") in the
user config, ``commands.allow`` of ``config.yaml`` in the user config directory.

The file is the user's own and may be hand-written: it is edited with ruamel.yaml's
round trip, so comments, key order, quoting and layout stay as they were; only the
rule is added. A missing file (or directory) is created. The write is atomic (a
temporary file renamed over the old one, keeping its mode) and serialised with a lock
file, so two agentls processes saving at once never lose a rule. A rule already
there is not added twice.

``saved_allow_rules`` reads the file's allow rules again (cheaply: only when the file
changed), so a rule saved in one run, or by another agentls process, counts in the next
run of a language server that loaded its config long before.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from agentls.agent.config.userdirs import user_config_file
from agentls.agent.errors import ConfigError

if TYPE_CHECKING:
    from ruamel.yaml import YAML

# ruamel.yaml is imported where a file is read or written (~20 ms): a run whose user
# config has no rules file, or that saves no rule, never needs it.

try:
    import fcntl
except ImportError:  # Windows: rules are saved by one process at a time
    fcntl = None  # type: ignore[assignment]


def _mapping_indent(text: str) -> int | None:
    """How far the file indents a nested mapping (the first one found)."""
    lines = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    for line, following in itertools.pairwise(lines):
        body = following.lstrip()
        if line.rstrip().endswith(":") and not body.startswith("-"):
            step = (len(following) - len(body)) - (len(line) - len(line.lstrip()))
            if step > 0:
                return step
    return None


def _yaml(text: str) -> YAML:
    """A round-trip YAML (comments and layout survive) that indents as ``text`` does."""
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    yaml = YAML()
    yaml.preserve_quotes = True
    mapping, sequence, offset = 2, 4, 2
    if text.strip():
        mapping = _mapping_indent(text) or mapping
        with contextlib.suppress(Exception):  # a file it cannot read is reported on load
            _, item, dash = load_yaml_guess_indent(text)
            if dash is not None:  # the file has a block sequence: indent as it does
                sequence, offset = item, dash
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path.parent / f".{path.name}.lock", "a+") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


_read_cache: dict[Path, tuple[tuple[int, int], tuple[str, ...]]] = {}


def saved_allow_rules(path: Path | None = None) -> tuple[str, ...]:
    """The ``commands.allow`` rules of the user config as the file says now; none when
    it is missing or unreadable (the config loader reports a broken file)."""
    target = path if path is not None else user_config_file()
    try:
        info = target.stat()
    except OSError:
        return ()
    key = (info.st_mtime_ns, info.st_size)
    cached = _read_cache.get(target)
    if cached is not None and cached[0] == key:
        return cached[1]
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    rules: tuple[str, ...] = ()
    try:
        data = YAML(typ="safe").load(target.read_text(encoding="utf-8"))
    except (OSError, YAMLError, UnicodeDecodeError):
        data = None
    commands = data.get("commands") if isinstance(data, dict) else None
    allow = commands.get("allow") if isinstance(commands, dict) else None
    if isinstance(allow, list):
        rules = tuple(rule for rule in allow if isinstance(rule, str))
    _read_cache[target] = (key, rules)
    return rules


def add_allow_rule(rule: str, path: Path | None = None) -> bool:
    """Append ``rule`` to ``commands.allow`` of the user config (``path`` in tests).
    True when it was added, False when it was there already. Raises ConfigError when
    the file cannot be read as a mapping or cannot be written."""
    rule = rule.strip()
    if not rule:
        raise ConfigError("an empty rule cannot be saved")
    target = path if path is not None else user_config_file()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _locked(target):
            return _add(rule, target)
    except OSError as exc:
        raise ConfigError(f"cannot save the rule in {target}: {exc.strerror or exc}") from exc


def _add(rule: str, target: Path) -> bool:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    yaml = _yaml(text)
    try:
        data = yaml.load(text) if text.strip() else None
    except YAMLError as exc:
        raise ConfigError(f"{target} is not valid YAML, so the rule was not saved: {exc}") from exc
    if data is None:
        data = CommentedMap()
    if not isinstance(data, CommentedMap):
        raise ConfigError(f"{target} does not hold a mapping, so the rule was not saved")
    commands = data.get("commands")
    if commands is None:
        commands = data["commands"] = CommentedMap()
    if not isinstance(commands, CommentedMap):
        raise ConfigError(f"`commands` in {target} is not a mapping, so the rule was not saved")
    allow = commands.get("allow")
    if allow is None:
        allow = commands["allow"] = CommentedSeq()
    if not isinstance(allow, CommentedSeq):
        raise ConfigError(f"`commands.allow` in {target} is not a list, so the rule was not saved")
    if any(str(existing).strip() == rule for existing in allow):
        return False
    allow.append(rule)
    out = io.StringIO()
    yaml.dump(data, out)
    _write_atomically(target, out.getvalue())
    return True


def _write_atomically(target: Path, text: str) -> None:
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o600
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
