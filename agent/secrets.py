"""Keeping secrets out of what is shown, logged or sent to the model: one place decides what
looks like a secret and how it is masked (``***``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

MASK = "***"

_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT", re.IGNORECASE
)
#: Values shorter than this are not masked: "1" or "true" would mask half a text.
_MIN_SECRET_CHARS = 6

#: Text shaped like a key or a token, whatever variable it came from.
_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|token|authorization|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"
    ),
)


def looks_secret(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def env_secrets(env: Mapping[str, str] | None = None) -> list[str]:
    """The values of the secret-looking variables of ``env`` (default: ours)."""
    source = os.environ if env is None else env
    return [v for k, v in source.items() if looks_secret(k) and len(v) >= _MIN_SECRET_CHARS]


def mask_values(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of a known secret value masked (longest first, so a
    secret that contains another is masked whole)."""
    for value in sorted({s for s in secrets if s}, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def mask_patterns(text: str) -> str:
    """``text`` with anything shaped like a key or a token masked (for logs, where the
    value is not known in advance)."""
    for pattern in _SECRET_PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: m.group(1) + MASK, text)
        else:
            text = pattern.sub(MASK, text)
    return text


def redact_secrets(text: str) -> str:
    """``text`` as it may be shown or logged: anything shaped like a key or a token masked,
    and the values of our own secret-looking environment variables."""
    return mask_values(mask_patterns(text), env_secrets())
