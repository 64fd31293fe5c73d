"""agentls: a coding agent that lives inside the editor as a language server.

Everything installs under this one package so that nothing of ours can collide with a
user's own ``agent``, ``server`` or ``indexer`` module, and nothing of theirs can shadow
ours. The repository keeps the layers as top-level folders; ``src/agentls/`` links them
in as ``agentls.indexer`` (the repository index), ``agentls.agent`` (the engine: the loop,
tools and sessions) and its three front ends, ``agentls.server`` (the language server),
``agentls.acp_agent`` (the Agent Client Protocol) and ``agentls.cli`` (the terminal).
ARCHITECTURE.md shows how they fit.
"""

import os as _os

from agentls import _links

__version__ = "0.2.0"

# A checkout without symbolic links has plain files where the layers should be: say so here,
# with what to do, rather than let the first ``import agentls.agent`` fail with no reason.
_problem = _links.problem(_os.path.dirname(__file__))
if _problem is not None:
    raise ImportError(_problem)
