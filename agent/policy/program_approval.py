"""A program the workspace wants to run, and the user's approval of it: one question for
every kind (an MCP server a workspace declares, a workspace file's hooks, what comes next).

A repository's program runs with the user's rights, so it runs only once the user
approved that exact definition. Each kind says what it is (``ProgramToApprove``: where it
is declared, the lines of what it runs as written, which of the user's variables a value
reads, the workspace files it runs or reads with a fingerprint each, the digest of all of
it); this module asks the run's ``Approver`` (``approve_program``: a terminal y/N, an
editor's modal or message, an ACP permission request) and stores a yes in the user's
``trust.json`` (``agent.config.trust``) under that digest, as ``agentls mcp approve`` /
``agentls hooks approve`` store it. What an approval covers, and why a change asks again,
is in each kind's module (``agent.mcp.approval``, ``agent.hooks``) and in docs/security.md.

``ProgramApprovals`` is the one place a refusal is remembered: for as long as it lives (a
language server's folder, a CLI or ACP session), a program the user refused in this exact
form is not asked about again. A question nobody answered (closed, cancelled, nobody to
ask) is no decision: the program stays off and is asked about the next time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from agentls.agent.config.trust import ApprovalKind, TrustStore

if TYPE_CHECKING:
    from agentls.agent.policy.approval import Approver

#: What kind of program it is; a front end may word its question by kind.
ProgramKind = Literal["mcp_server", "hooks"]

#: Where the user's approvals of each kind are kept in ``trust.json``.
_STORED_AS: dict[ProgramKind, ApprovalKind] = {"mcp_server": "mcp", "hooks": "hooks"}

#: What became of a program: ``approved`` (before, or now and stored), ``refused`` (now,
#: or earlier while this ``ProgramApprovals`` lives), ``unanswered`` (nobody answered or
#: could be asked: asked again next time), ``changed`` (allowed, but its definition or a
#: file it runs changed while the user was asked: not what they allowed, so not stored).
Verdict = Literal["approved", "refused", "unanswered", "changed"]


class ProgramToApprove(BaseModel):
    """A program of the workspace that waits for the user's approval, as every front end
    shows it. Every text is as written, with hidden characters shown (``visible``)."""

    model_config = ConfigDict(frozen=True)

    kind: ProgramKind
    #: The MCP server's name; for hooks, the file that declares them.
    name: str
    #: Where it is declared (``.mcp.json``, ``.claude/settings.json``...).
    source: str
    #: The workspace root it runs in, where its approval is stored.
    root: Path
    #: The question in one line (``Allow the MCP server "gh" to start?``).
    headline: str
    #: What it runs, line by line: each value or command as written, which of the user's
    #: variables a value reads (``(reads your $GITHUB_TOKEN)``), and each workspace file it
    #: runs or reads with a fingerprint (``runs or reads workspace file srv.py (sha256 …)``).
    lines: tuple[str, ...]
    #: The workspace files it runs or reads, each with a fingerprint of its contents
    #: (``srv.py (sha256 9f2c41d07be3)``): what the approval covers besides the values.
    files: tuple[str, ...] = ()
    #: What allowing it means, for the user to weigh.
    warning: str
    #: The digest the approval is stored under.
    digest: str
    #: The user approved another definition of it before.
    changed: bool = False

    def question(self) -> str:
        """The question, whole, for front ends that show plain text."""
        body = [f"  {line}" for line in self.lines]
        return "\n".join([f"Declared in {self.source}:", *body, self.warning, self.headline])


@dataclass(frozen=True)
class WaitingProgram:
    """A program to ask about, and how to see whether it is still what the user is asked
    about when they answer."""

    program: ProgramToApprove
    #: The definition's digest as it is now (None: it is gone).
    digest_now: Callable[[], str | None]


class ProgramApprovals:
    """Asks about the workspace's programs that wait for approval, stores what the user
    allows, and remembers what they refused while it lives. One per workspace folder (the
    language server keeps one for its life, the CLI and ACP one per session); it holds
    nothing of a front end: the run's ``Approver`` is handed in with each question."""

    def __init__(self, store: TrustStore | None = None) -> None:
        self._store = store
        #: (root, kind, name, digest) the user refused.
        self._refused: set[tuple[str, ProgramKind, str, str]] = set()
        # One question at a time: two runs starting together ask once, and the second
        # finds the first's answer.
        self._lock = asyncio.Lock()

    @property
    def store(self) -> TrustStore:
        # Read when asked: the user's trust.json is where their config directory is now.
        return self._store if self._store is not None else TrustStore()

    def refused(self, program: ProgramToApprove) -> bool:
        return _key(program) in self._refused

    async def ask(self, waiting: WaitingProgram, approver: Approver | None) -> Verdict:
        """What becomes of ``waiting``'s program: approved already, or the user's answer
        through ``approver`` (None: nobody can be asked)."""
        program = waiting.program
        kind = _STORED_AS[program.kind]
        async with self._lock:
            store = self.store
            if store.approved_digest(program.root, kind, program.name) == program.digest:
                return "approved"  # by another run while this one waited
            if self.refused(program):
                return "refused"
            answer = await approver.approve_program(program) if approver is not None else None
            if answer is None:
                return "unanswered"
            if not answer:
                self._refused.add(_key(program))
                return "refused"
            if waiting.digest_now() != program.digest:
                return "changed"
            store.approve(program.root, kind, program.name, program.digest)
            return "approved"

    async def ask_each(
        self, waiting: Sequence[WaitingProgram], approver: Approver | None
    ) -> list[Verdict]:
        """``ask`` about each program in turn."""
        return [await self.ask(item, approver) for item in waiting]


def _key(program: ProgramToApprove) -> tuple[str, ProgramKind, str, str]:
    return (str(program.root), program.kind, program.name, program.digest)
