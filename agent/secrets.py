"""Keeping secrets out of everything that leaves the process: one outward pass decides what
is a secret and masks it (``***``).

Two kinds of secrets are masked, wherever they appear:

- **Known values**: the values of the user's secret variables. A variable is secret when
  its name looks secret (``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ...) or when the config
  says it holds one: the variable ``llm.api_key_env`` names, whatever its name
  (``remember_secret_variable``). The same variables are dropped from the environment of
  the commands the agent runs (``is_secret_variable``).
- **Token shapes** (``TOKEN_SHAPES``): credentials in URLs, provider keys (GitHub, AWS,
  Slack, Google, OpenAI, Anthropic, Stripe, npm, GitLab, Hugging Face), private key
  blocks, JWTs, ``Authorization`` headers (``Bearer``, and the ``basic`` one that
  actions/checkout leaves in ``.git/config``) and assignments to secret-named keys.

``mask_outward`` (and ``mask_tree`` for JSON-like data) is the one pass; every way out
calls it: tool results before the model sees them, session entries, the CLI's output
and ``--json``, the language server's and ACP's notifications and the logs. A shape is
only masked when it cannot be ordinary code or prose (a value assigned to ``password``
must look like a key, not ``password = request.form["password"]``), because the text of
files the model reads goes through the same pass; edits that would write the mask back
into a file are refused (``agent.tools.base.ToolContext.apply``).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MASK = "***"

_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|DSN", re.IGNORECASE
)
#: Values shorter than this are not masked: "1" or "true" would mask half a text.
_MIN_SECRET_CHARS = 6
#: Names that look secret but hold a path or a desktop's session name, not a secret:
#: masking their values (``ubuntu``, ``/run/user/1000/keyring/ssh``) would mask ordinary
#: text in every file the model reads. They are still kept from commands.
_NOT_A_SECRET_VALUE = re.compile(
    r"(_SOCK|_SOCKET|_PATH|_DIR|_FILE|_HOME)$|^XDG_SESSION_|^DESKTOP_SESSION$|^SESSION_MANAGER$",
    re.IGNORECASE,
)

#: Characters of a key, a token or base64; a value that looks like one has a digit too.
_KEYISH = r"[A-Za-z0-9+/=_\-.~]"
_HAS_DIGIT = rf"(?={_KEYISH}{{0,255}}\d)"
#: An optional quote, also as escaped inside JSON text (``\"``).
_QUOTE = r"(?:\\?[\"'])?"


@dataclass(frozen=True)
class TokenShape:
    """One well-known shape of a secret: ``group`` of a match is masked (0: all of it)."""

    name: str
    pattern: re.Pattern[str]
    group: int = 0

    def mask(self, text: str) -> str:
        if self.group == 0:
            return self.pattern.sub(MASK, text)
        group = self.group

        def masked(match: re.Match[str]) -> str:
            start, end = match.span(group)
            base = match.start()
            whole = match.group(0)
            return whole[: start - base] + MASK + whole[end - base :]

        return self.pattern.sub(masked, text)


def _shape(name: str, pattern: str, group: int = 0, flags: int = 0) -> TokenShape:
    return TokenShape(name, re.compile(pattern, flags), group)


#: The shapes masked whatever variable (if any) they came from; docs/security.md lists them.
TOKEN_SHAPES: tuple[TokenShape, ...] = (
    _shape(
        "private key block",
        r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----)(.*?)"
        r"(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
        group=3,
        flags=re.DOTALL,
    ),
    # scheme://user:password@host: the password (a database URL, a git remote with a token).
    _shape(
        "URL password",
        r"\b([a-zA-Z][a-zA-Z0-9+.\-]{0,31}://[^\s:/@\"'<>]{0,256}:)([^\s/@\"'<>]{1,256})(?=@)",
        group=2,
    ),
    # scheme://key@host: a key alone as the user (a Sentry DSN); ``git@`` is too short.
    _shape(
        "URL key", r"\b([a-zA-Z][a-zA-Z0-9+.\-]{0,31}://)([A-Za-z0-9_\-]{16,256})(?=@)", group=2
    ),
    _shape("GitHub token", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b"),
    _shape("GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{22,}"),
    _shape("AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"),
    _shape(
        "AWS secret access key",
        rf"(?i)(aws_?secret_?access_?key{_QUOTE}\s*[:=]\s*{_QUOTE})([A-Za-z0-9/+=]{{30,}})",
        group=2,
    ),
    _shape("Slack token", r"\bxox[abposre]-[A-Za-z0-9\-]{10,}"),
    _shape("Slack app token", r"\bxapp-\d-[A-Za-z0-9\-]{10,}"),
    _shape(
        "Slack webhook",
        r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9/_\-]+)",
        group=2,
    ),
    _shape("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}"),
    _shape("Anthropic or OpenAI key", r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{12,}"),
    _shape("Stripe key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    _shape("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    _shape("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    _shape("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}\b"),
    _shape("JWT", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*"),
    # Authorization: basic <base64> (actions/checkout's extraheader), Bearer, token...
    _shape(
        "Authorization header",
        rf"(?i)(authorization{_QUOTE}\s*[:=]\s*{_QUOTE}(?:basic|bearer|token|digest|negotiate)?\s*)"
        r"([A-Za-z0-9+/=._~\-]{8,})",
        group=2,
    ),
    _shape("bearer token", rf"(?i)\b(bearer\s+){_HAS_DIGIT}({_KEYISH}{{8,}})", group=2),
    # ~/.netrc: `machine host login me password <value>`.
    _shape(
        "netrc password",
        rf"(?i)(\bpassword\s+){_HAS_DIGIT}({_KEYISH}{{6,256}})(?=[\s\\\"']|$)",
        group=2,
    ),
    # api_key=..., "password": "...", "auth": "..." (Docker's config.json): a key-like value.
    _shape(
        "secret assignment",
        r"(?i)((?:api[_-]?key|apikey|token|secret|passw(?:or)?d|auth|access[_-]?key|private[_-]?key)"
        rf"{_QUOTE}\s*[:=]\s*{_QUOTE}){_HAS_DIGIT}({_KEYISH}{{8,256}})(?=[\\\"'\s,;}}\])]|$)",
        group=2,
    ),
)

#: Variables the config says hold secrets (``llm.api_key_env``), whatever their names.
_remembered: set[str] = set()
_remembered_lock = threading.Lock()


def remember_secret_variable(name: str) -> None:
    """From now on, in this process, ``name`` holds a secret: its value is masked in
    everything that leaves and it is never passed to a command."""
    if name:
        with _remembered_lock:
            _remembered.add(name)


def looks_secret(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def is_secret_variable(name: str) -> bool:
    """Whether the variable ``name`` holds a secret: by its name, or because the config
    said so (the API key's variable)."""
    return looks_secret(name) or name in _remembered


def env_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """The values of the secret variables of ``env`` (default: ours)."""
    source = os.environ if env is None else env
    return [
        v
        for k, v in source.items()
        if len(v) >= _MIN_SECRET_CHARS
        and (k in _remembered or (looks_secret(k) and not _NOT_A_SECRET_VALUE.search(k)))
    ]


def mask_values(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of a known secret value masked (longest first, so a
    secret that contains another is masked whole)."""
    for value in sorted({s for s in secrets if s}, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def mask_patterns(text: str) -> str:
    """``text`` with anything of a well-known secret shape (``TOKEN_SHAPES``) masked."""
    for shape in TOKEN_SHAPES:
        text = shape.mask(text)
    return text


class Masker:
    """The outward pass with a fixed set of known values (build one per batch of text)."""

    def __init__(self, values: Iterable[str]) -> None:
        known: set[str] = set()
        for value in values:
            if len(value) < _MIN_SECRET_CHARS:
                continue
            known.add(value)
            # As it appears inside JSON text (a value with a quote or a backslash).
            escaped = json.dumps(value)[1:-1]
            if escaped != value:
                known.add(escaped)
        self._values = sorted(known, key=len, reverse=True)

    @classmethod
    def current(cls, env: Mapping[str, str] | None = None) -> Masker:
        """The pass for the secrets this process knows now (``env``: default ours)."""
        return cls(env_secrets(env))

    def mask(self, text: str) -> str:
        """``text`` as it may leave the process."""
        if not text:
            return text
        return mask_patterns(mask_values(text, self._values))

    def mask_tree(self, data: Any) -> Any:
        """``data`` (JSON-like: dicts, lists, strings) with every string masked; keys too."""
        if isinstance(data, str):
            return self.mask(data)
        if isinstance(data, dict):
            return {self.mask_tree(k): self.mask_tree(v) for k, v in data.items()}
        if isinstance(data, list | tuple):
            return [self.mask_tree(item) for item in data]
        return data

    def hides_secret(self, text: str) -> bool:
        """Whether the pass changes ``text``: the model saw it with something masked."""
        return self.mask(text) != text


def mask_outward(text: str) -> str:
    """``text`` as it may leave the process: the values of our secret variables and every
    well-known token shape masked."""
    return Masker.current().mask(text)


def mask_tree(data: Any) -> Any:
    """``mask_outward`` applied to every string of JSON-like ``data``."""
    return Masker.current().mask_tree(data)


#: The older name, still used by the logs and the terminal.
redact_secrets = mask_outward

#: Words after which a secret follows on the same line, past a space.
_INTRODUCER = re.compile(
    r"(?i)(?:bearer|basic|token|digest|negotiate|authorization[\"']?\s*[:=]|[:=])[\"']?\s*$"
)


def release_point(held: str, *, whole_lines: bool = False) -> int:
    """How much of ``held`` a stream may mask and show now: up to the last whitespace (a
    key never contains one), or the last line end with ``whole_lines``, but never between
    the words that introduce a secret and its value (``Bearer`` | ``abc...``,
    ``aws_secret_access_key`` | ``= ...``, ``password`` | ``n3trc...``), which are only
    masked together, nor inside a private key block, which is only masked whole."""
    begin = held.rfind("-----BEGIN ")
    if begin >= 0 and "-----END " not in held[begin:]:
        return begin
    cut = held.rfind("\n") + 1
    if not whole_lines:
        cut = max(cut, max(held.rfind(" "), held.rfind("\t")) + 1)
    line_start = held.rfind("\n", 0, cut) + 1
    if cut > line_start and held[cut - 1] in " \t":
        before = held[line_start:cut]
        if _INTRODUCER.search(before.rstrip(" \t")) or _introduces_secret(before):
            return line_start
    return cut


class HeldText:
    """Text that leaves in pieces (a model's stream, a program's output), each masked by
    the outward pass and none cut where a secret may go on in the next piece
    (``release_point``). Past ``max_held`` characters without such a cut, what is held
    leaves as it stands (masked)."""

    def __init__(self, *, max_held: int = 4096, returns_end_lines: bool = False) -> None:
        self.max_held = max_held
        #: A carriage return ends a line too (a program's progress bar redraws its line).
        self.returns_end_lines = returns_end_lines
        self._held = ""

    def add(self, text: str, *, whole_lines: bool = False) -> str:
        """``text`` taken in; what may leave now, masked ("" when nothing may)."""
        held = self._held + text
        lines = held.replace("\r", "\n") if self.returns_end_lines else held
        cut = release_point(lines, whole_lines=whole_lines)
        if len(held) > self.max_held:
            cut = len(held)
        self._held = held[cut:]
        return mask_outward(held[:cut]) if cut else ""

    def rest(self) -> str:
        """Everything still held, masked; nothing is held after."""
        held, self._held = self._held, ""
        return mask_outward(held) if held else ""

    def discard(self) -> None:
        """Drop what is held, unshown (a stream that starts again)."""
        self._held = ""


#: A made-up value of a key's characters with a digit, which no shape masks alone: put
#: after a text, it is masked only when that text introduces a secret.
_PROBE = "Zq8Lm3Xp9Rt2Vn6Wk4Yh7Bd5Fg1Jc0Ps8Qe2Tu6"
#: How far back the words that introduce a secret are looked for.
_INTRODUCER_REACH = 256


def _introduces_secret(text: str) -> bool:
    """Whether a secret right after ``text``, or after a ``=`` or ``:`` still to come,
    would be masked only with ``text`` in front of it: the shapes themselves are asked."""
    context = text[-_INTRODUCER_REACH:]
    return any(
        not mask_patterns(context + joint + _PROBE).endswith(_PROBE)
        for joint in ("", "=", " = ", ": ")
    )
