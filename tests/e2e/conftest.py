"""Fixtures of the end-to-end tests; they live in ``agentls_e2e`` (importable by the
tests, unlike a conftest) and are re-exported here so pytest finds them. ``scripted``,
the model server, is the one of tests/conftest.py."""

from agentls_e2e import caps, lsp, workspace

__all__ = ["caps", "lsp", "workspace"]
