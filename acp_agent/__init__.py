"""agentls as an Agent Client Protocol (ACP) agent: ``agentls acp`` on stdio.

Editors that speak ACP instead of LSP (Zed, JetBrains, several Neovim and Emacs packages)
run the same agent: the same loop, tools, sessions, approvals, index and MCP tools as the
language server. This package only translates: ACP requests become ``run_agent`` calls,
the run's events become ``session/update`` notifications, and every question to the user
becomes ``session/request_permission``. ``agent/`` knows nothing of it.
"""
