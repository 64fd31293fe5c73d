"""What differs by the medium a front end speaks through, written once.

Everything a run does is the same whether the user sits in an editor, a terminal or an
ACP client; only what is in this table differs. A front end names its medium when it
makes its ``FolderEngine`` and never words these things itself.

Worktree edits: a worktree is the run's own copy of the repository, so none of its
edits reach the user's tree until the user applies the branch, and that apply is where
they are reviewed (``agentls apply`` asks, the editor's apply is one reviewed edit).
So in every medium a worktree run writes its files without a question edit by edit,
and refuses files that would change what runs or what is trusted there (protected
paths: nobody would review them before they take effect in the worktree's commands).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentls.agent.config.trust import trust_command

MediumName = Literal["editor", "terminal", "acp"]

#: How an editor that offers Workspace Trust (VS Code) trusts a folder.
EDITOR_TRUST_HINT = "grant it Workspace Trust in your editor (agentls follows at once)"


@dataclass(frozen=True)
class Medium:
    name: MediumName
    #: Where ``agentls trust`` is typed, said after the command ("" in a terminal).
    trust_command_where: str
    #: Whether a worktree run's edits are confirmed one by one (see the module's text:
    #: the same in every medium, they are reviewed when the branch is applied).
    worktree_edits_confirmed: bool = False

    def how_to_trust(self, root: Path, *, editor_grants_trust: bool = False) -> str:
        """The one hint, in every notice and message that says a folder is not trusted."""
        if editor_grants_trust:
            return EDITOR_TRUST_HINT
        return f"run `{trust_command(root)}`{self.trust_command_where} (the next run follows)"


EDITOR = Medium("editor", " in a terminal")
TERMINAL = Medium("terminal", "")
ACP = Medium("acp", " in a terminal")

MEDIA: dict[MediumName, Medium] = {m.name: m for m in (EDITOR, TERMINAL, ACP)}
