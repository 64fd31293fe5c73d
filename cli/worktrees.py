"""``agentls worktrees``, ``agentls apply`` and ``agentls discard``: worktree sessions in
a terminal (``agentls run --worktree`` runs in one through the folder engine)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import IO

from agentls.agent.errors import AgentError
from agentls.agent.folder.worktree_book import Worktree, WorktreeBook, worktree_info


def add_worktree_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    worktrees = sub.add_parser("worktrees", help="list the worktree sessions and their changes")
    worktrees.add_argument("--json", action="store_true", help="print the list as JSON")
    apply_ = sub.add_parser("apply", help="apply a worktree session's changes to your tree")
    discard_ = sub.add_parser("discard", help="remove a worktree session (and its branch)")
    discard_.add_argument("--keep-branch", action="store_true", help="keep its branch")
    discard_.add_argument(
        "--force",
        action="store_true",
        help="discard it even while it holds uncommitted changes (they are lost)",
    )
    for command in (apply_, discard_):
        command.add_argument("name", metavar="NAME")
        command.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    for command in (worktrees, apply_, discard_):
        command.add_argument("--workspace", type=Path, help="workspace root (default: cwd)")
        command.set_defaults(func=worktree_command_main)


def worktree_command_main(args: argparse.Namespace, out: IO[str] | None = None) -> int:
    from agentls.agent.folder.media import TERMINAL
    from agentls.compose import folder_engine

    out = sys.stdout if out is None else out  # now: the masked stdout while a command runs
    folder = Path(args.workspace or Path.cwd()).resolve()
    book = folder_engine(TERMINAL).worktrees
    try:
        if args.command == "worktrees":
            return _list(book, folder, as_json=args.json, out=out)
        worktree = asyncio.run(book.find(folder, args.name))
        if args.command == "apply":
            return _apply(book, folder, worktree, yes=args.yes, out=out)
        losing = " and the changes nobody committed there" if args.force else ""
        if not _confirmed(f"Remove the worktree {worktree.name}{losing}?", args.yes):
            return 1
        discarding = book.discard(folder, args.name, keep_branch=args.keep_branch, force=args.force)
        asyncio.run(discarding)
        kept = f"; its branch {worktree.branch} is kept" if args.keep_branch else ""
        print(f"Discarded the worktree {worktree.name}{kept}.", file=out)
        return 0
    except AgentError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1


def _list(book: WorktreeBook, folder: Path, *, as_json: bool, out: IO[str]) -> int:
    infos = asyncio.run(book.infos(folder, outside_git=False))
    rows = [info.to_wire() for info in infos]
    for row in rows:  # what `--json` has always listed of each
        row.pop("base", None)
        row.pop("created", None)
    if as_json:
        print(json.dumps(rows, indent=2), file=out)
        return 0
    if not rows:
        print("No worktree sessions.", file=out)
    for row in rows:
        print(
            f"{row['name']}  {row['branch']}  {row['state']}  {row['files']} file(s) "
            f"+{row['added']} -{row['removed']}",
            file=out,
        )
    return 0


def _apply(book: WorktreeBook, folder: Path, worktree: Worktree, *, yes: bool, out: IO[str]) -> int:
    if worktree_info(worktree, running=False).state == "uncommitted changes":
        print(
            f"agentls: the worktree {worktree.name} holds changes not committed on its "
            "branch (a run in progress?); they are not part of what is applied",
            file=sys.stderr,
        )
    checked = book.check_apply(folder, worktree)
    if not checked.files:
        print(f"The worktree {worktree.name} changed nothing.", file=out)
        return 0
    if checked.conflict is not None:
        print(
            f"agentls: not applied, nothing was written: {checked.conflict}. Your tree "
            f"changed these files since; the changes stay on {worktree.branch}.",
            file=sys.stderr,
        )
        return 1
    ordinary = checked.ordinary
    if ordinary:
        print(f"{len(ordinary)} file(s): " + ", ".join(ordinary), file=out)
        if not _confirmed(f"Apply the changes of {worktree.name} to your tree?", yes):
            return 1
    chosen = list(ordinary)
    held: list[str] = []
    if checked.special:
        # More than text: a set-up step or a command may have made these, not the user.
        # Each is named with what it is and asked about on its own; --yes never answers.
        print(
            f"{len(checked.special)} change(s) that are more than a file's text, asked "
            "about separately:",
            file=out,
        )
        for change in checked.special:
            print(f"  {_shown(change.path)}: {change.what}", file=out)
        if _asked(f"Apply these {len(checked.special)} change(s) too?"):
            chosen += [change.path for change in checked.special]
        else:
            held = [change.path for change in checked.special]
    if not chosen:
        print(f"Nothing applied; the changes stay on {worktree.branch}.", file=out)
        return 1 if held else 0
    book.apply(folder, checked, only=chosen)
    print(f"Applied {worktree.name}: {len(chosen)} file(s).", file=out)
    if held:
        print(
            f"agentls: not applied: {', '.join(map(_shown, held))} (they need your own "
            f"answer, which --yes does not give); they stay on {worktree.branch}: run "
            f"`agentls apply {worktree.name}` in a terminal to be asked",
            file=sys.stderr,
        )
    return 0


def _shown(path: str) -> str:
    """A path as printed: one whose name holds control characters (a terminal escape
    that could hide it) is quoted."""
    return path if path.isprintable() else repr(path)


def _asked(question: str) -> bool:
    """A question only a person at a terminal answers (``--yes`` does not)."""
    if not sys.stdin.isatty():
        return False
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")


def _confirmed(question: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        print(f"agentls: {question} Nobody can answer here: add --yes to go on.", file=sys.stderr)
        return False
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")
