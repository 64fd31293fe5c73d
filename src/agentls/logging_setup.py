"""Logging for the front ends that talk a protocol on stdout (the language server, ACP):
stderr and an optional JSONL file, never stdout.

It sits beside the front ends rather than in one of them so that neither imports the
other. stdout carries the protocol's stream, so no handler here ever writes to it. The ``pygls``
logger stays at WARNING (at INFO it logs every message body, prompts and file
contents included). A filter masks anything that looks like a secret (API keys,
bearer tokens) before a record reaches any handler.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any, Literal

from agentls.agent.secrets import redact_secrets

LOGGER_NAME = "agentls"
_HANDLER_TAG = "_agentls_handler"

_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "error": logging.ERROR,
}


class RedactingFilter(logging.Filter):
    """Masks secrets in the formatted message of every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not lose the record
            message = str(record.msg)
        cleaned = redact_secrets(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message (and the traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = redact_secrets(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


def level_of(level: Literal["debug", "info", "warn", "error"] | str, verbose: int = 0) -> int:
    """The numeric level for a config ``level``, raised by ``verbose`` (1=info, 2+=debug)."""
    numeric = _LEVELS.get(level, logging.INFO)
    if verbose >= 2:
        numeric = min(numeric, logging.DEBUG)
    elif verbose == 1:
        numeric = min(numeric, logging.INFO)
    return numeric


def configure_logging(
    level: Literal["debug", "info", "warn", "error"] | str = "info",
    *,
    file: Path | None = None,
    verbose: int = 0,
) -> None:
    """(Re)configure the root logger: stderr always, plus ``file`` as JSONL when given.

    Idempotent: handlers installed by an earlier call are replaced, so the server can
    call it again whenever the configuration changes.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, _HANDLER_TAG, False):
            root.removeHandler(handler)
            handler.close()
    numeric = level_of(level, verbose)
    root.setLevel(numeric)

    stderr_handler = logging.StreamHandler(sys.__stderr__)
    stderr_handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    )
    handlers: list[logging.Handler] = [stderr_handler]
    if file is not None:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            file_handler = logging.FileHandler(file, encoding="utf-8")
        except OSError as exc:
            logging.getLogger(LOGGER_NAME).warning("cannot open log file %s: %s", file, exc)
        else:
            file_handler.setFormatter(JsonLinesFormatter())
            handlers.append(file_handler)
    for handler in handlers:
        setattr(handler, _HANDLER_TAG, True)
        handler.addFilter(RedactingFilter())
        root.addHandler(handler)

    # pygls logs every message body at INFO; litellm is chatty too.
    logging.getLogger("pygls").setLevel(logging.WARNING)
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx", "httpcore", "watchfiles"):
        logging.getLogger(name).setLevel(max(numeric, logging.WARNING))
