"""The one place that imports litellm.

Importing litellm costs ~3 s and ~160 MB, and without ``LITELLM_LOCAL_MODEL_COST_MAP``
it fetches a cost map from the internet. So it is imported on first use, in a worker
thread (never on the event loop), and configured so that nothing it prints can reach
stdout, which carries the LSP stream in the server.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import sys
import threading
from types import ModuleType
from typing import Any

_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")

_lock = threading.Lock()
_module: ModuleType | None = None


def loaded() -> ModuleType | None:
    """litellm if it has been imported and configured by us, else None (never imports)."""
    return _module


def _configure(litellm: Any) -> None:
    # Its "Give Feedback / Get Help" banner is printed to stdout on every error.
    litellm.suppress_debug_info = True
    # Providers reject parameters they do not know (e.g. stream_options); drop them instead.
    litellm.drop_params = True
    litellm.set_verbose = False
    for name in _LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if getattr(handler, "stream", None) in (sys.stdout, sys.__stdout__):
                logger.removeHandler(handler)
        if logger.level == logging.NOTSET or logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)


def import_litellm_sync() -> ModuleType:
    """Import and configure litellm in the calling thread (use from worker threads only)."""
    global _module
    with _lock:
        if _module is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            module = importlib.import_module("litellm")
            _configure(module)
            _module = module
        return _module


async def load_litellm() -> ModuleType:
    """litellm, imported in a worker thread the first time."""
    if _module is not None:
        return _module
    return await asyncio.to_thread(import_litellm_sync)


async def warm_up() -> None:
    """Import litellm ahead of the first call; the server awaits this after ``initialized``."""
    await load_litellm()
