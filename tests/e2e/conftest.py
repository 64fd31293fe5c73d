"""Fixtures of the end-to-end tests; they live in ``agentls_e2e`` (importable by the
tests, unlike a conftest) and are re-exported here so pytest finds them."""

from agentls_e2e import caps, lsp, scripted, workspace

__all__ = ["caps", "lsp", "scripted", "workspace"]
