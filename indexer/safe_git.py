"""How agentls runs git itself, in repositories it does not trust.

A repository's own ``.git/config`` can name programs git runs without being asked: the
fsmonitor hook (``core.fsmonitor``) runs on every index refresh, which ``git ls-files``
and ``git diff`` do; external diff and textconv drivers, a pager, hooks. agentls runs git
outside any sandbox (to list the workspace, to show its changes), so every call turns
those off on the command line, where they win over the repository's config, and takes no
optional locks (a read must not write the index).
"""

from __future__ import annotations

SAFE_GIT: tuple[str, ...] = (
    "git",
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.pager=cat",
)
