"""agentls: a coding agent that lives inside the editor as a language server.

Everything installs under this one package so that nothing of ours can collide with a
user's own ``agent``, ``server`` or ``indexer`` module, and nothing of theirs can shadow
ours. The repository keeps the three layers as top-level folders; ``src/agentls/`` links
them in as ``agentls.agent`` (the loop, tools and sessions), ``agentls.server`` (the
language server) and ``agentls.indexer`` (the repository index).
"""

__version__ = "0.2.0"
