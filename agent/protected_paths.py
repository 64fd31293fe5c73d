"""Files inside the workspace that configure agentls, the editor or git, or instruct the agent.

A command the agent runs, or an edit it makes, could plant one of these for later: a git
hook runs on the user's next ``git checkout``, an ``.mcp.json`` server or a
``.vscode/tasks.json`` task starts on the next agent run or editor start, an
``AGENTS.md`` steers every later run. So commands see them read-only inside the sandbox
(and may not create them), and the file tools ask before changing them in every confirm
mode, ``yolo`` included.

``protected_reason`` answers for one workspace-relative path; ``ROOT_NAMES`` and
``ANY_LEVEL_NAMES`` are what the sandbox binds read-only or watches for.
"""

from __future__ import annotations

from pathlib import PurePosixPath

#: Paths protected where they sit at the workspace root, and why.
ROOT_NAMES: dict[str, str] = {
    ".git": "it is git's own directory (hooks and config run code)",
    ".agentls.yaml": "it configures agentls",
    ".agentls": "it holds agentls's state and hooks",
    ".mcp.json": "it declares MCP servers that agentls and other tools start",
    ".vscode": "it configures VS Code (tasks, launch, MCP servers, settings)",
    ".claude": "it configures Claude Code (commands, hooks)",
    ".github/copilot-instructions.md": "it instructs coding agents",
    ".github/instructions": "it instructs coding agents",
    ".github/prompts": "it holds prompt files coding agents run",
}

#: File or directory names protected at any depth (nested repositories, the instruction
#: files a run reads from the directories it works in).
ANY_LEVEL_NAMES: dict[str, str] = {
    ".git": "it is a git directory (hooks and config run code)",
    "AGENTS.md": "it instructs coding agents",
    "AGENTS.override.md": "it instructs coding agents",
    "CLAUDE.md": "it instructs coding agents",
}


def protected_reason(relative: str) -> str | None:
    """Why a change to ``relative`` (workspace-relative, ``/``-separated) must be shown to
    the user, or None when it is an ordinary file."""
    parts = PurePosixPath(relative).parts
    if not parts or parts[0] in ("", "/"):
        return None
    for length in range(len(parts), 0, -1):
        reason = ROOT_NAMES.get("/".join(parts[:length]))
        if reason is not None:
            return f"{'/'.join(parts[:length])}: {reason}"
    for index, part in enumerate(parts):
        reason = ANY_LEVEL_NAMES.get(part)
        if reason is not None:
            return f"{'/'.join(parts[: index + 1])}: {reason}"
    return None
