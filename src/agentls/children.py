"""Child processes that run a module of this very copy of agentls over pipes (the model
worker, the symbol process): how they are launched. ``agentls.child_rpc`` talks to them."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: The folder holding the ``agentls`` package, so a child imports the same code as its
#: parent. Not resolved: through the source tree's links, the resolved path is the
#: repository root, which would make ``agent``, ``server`` and ``indexer`` importable as
#: top-level names.
CODE_ROOT = str(Path(__file__).parent.parent)

#: Children get a process group of their own (and are ended with it) where there are groups.
OWN_GROUP = hasattr(os, "killpg")


def module_command(module: str) -> list[str]:
    """``python -P -m module``: ``-P`` so that the current directory (a user's workspace,
    which may hold its own ``agent`` or ``server``) cannot shadow what we import."""
    return [sys.executable, "-P", "-m", module]


async def start_piped(
    command: Sequence[str], line_limit: int, *, name: str, error: type[Exception]
) -> asyncio.subprocess.Process:
    """Start ``command`` with pipes on stdin and stdout (stderr is this process's: its
    log), able to import this agentls, in a process group of its own so that whatever it
    starts can be ended with it. Raises ``error`` ("could not start ``name``: why") when
    it cannot be started."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [CODE_ROOT, env.get("PYTHONPATH")]))
    try:
        return await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=env,
            limit=line_limit,
            # POSIX only; elsewhere the child alone is ended (see child_rpc.Child.kill).
            process_group=0 if OWN_GROUP else None,
        )
    except OSError as exc:
        raise error(f"could not start {name}: {exc}") from None
