"""Language servers agentls starts itself, as an LSP client, to learn the problems of the
files a run edits where no editor tells them (the CLI, ACP, an editor that does not answer
``agent/diagnostics``).

A layer of its own beside ``server/`` and ``acp_agent/``: it implements
``agentls.agent.problems.ProblemSource`` with pygls's language client, and the engine never
imports it; the front ends that own a run's lifetime create it and close it
(``LanguageServers`` is an async context manager).
"""

from agentls.langservers.pool import LanguageServers, to_problem

__all__ = ["LanguageServers", "to_problem"]
