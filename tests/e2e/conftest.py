"""Fixtures of the end-to-end tests; they live in ``agentls_e2e`` (importable by the
tests, unlike a conftest) and are re-exported here so pytest finds them. ``scripted``,
the model server, is the one of tests/conftest.py. ``worker_zygote`` (autouse) gives the
servers model workers forked from a process that imported litellm once."""

from agentls_e2e import caps, lsp, worker_started_by_the_server, worker_zygote, workspace

__all__ = ["caps", "lsp", "worker_started_by_the_server", "worker_zygote", "workspace"]
