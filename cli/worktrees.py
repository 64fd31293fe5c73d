"""``agentls run --worktree``, ``agentls worktrees``, ``agentls apply`` and ``agentls
discard``: worktree sessions in a terminal."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from agentls.agent.worktrees import (
    Worktree,
    WorktreeError,
    apply,
    check_apply,
    commit_run,
    describe,
    discard,
    find,
    listed,
    prepare,
    run_setup,
    state,
)

if TYPE_CHECKING:
    from agentls.agent.config import AppConfig


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


def prepare_worktree(folder: Path, name: str | None) -> tuple[Worktree, bool]:
    """The worktree a ``run --worktree [NAME]`` works in, and whether it is new (see
    ``worktrees.prepare``)."""
    return prepare(folder, name)


async def set_up_worktree(worktree: Worktree, config: AppConfig, out: IO[str] = sys.stderr) -> bool:
    """Run ``worktree.setup`` in a new worktree, its output shown as it comes; whether the
    run may go on (else the failure is said)."""
    from agentls.agent.secrets import redact_secrets

    command = config.worktree.setup
    assert command
    print(f"agentls: setting up worktree {worktree.name}: $ {redact_secrets(command)}", file=out)

    def show(line: str) -> None:
        print(f"  {line}", file=out, flush=True)

    done = await run_setup(worktree, config, show)
    if not done.ok:
        print(f"agentls: {redact_secrets(done.failure(worktree))}", file=out)
    return done.ok


def finish_worktree_run(worktree: Worktree, prompt: str, out: IO[str] = sys.stderr) -> None:
    """Commit what the run changed on the worktree's branch and say what to do next."""
    title = prompt.strip().splitlines()[0][:60] if prompt.strip() else "run"
    commit_run(worktree, f"agentls: {title}")
    now = state(worktree)
    print(
        f"Worktree {worktree.name} (branch {worktree.branch}): {now.files} file(s) changed, "
        f"+{now.added} -{now.removed}. Apply it with `agentls apply {worktree.name}`, or "
        f"`agentls discard {worktree.name}`.",
        file=out,
    )


def worktree_command_main(args: argparse.Namespace, out: IO[str] | None = None) -> int:
    out = sys.stdout if out is None else out  # now: the masked stdout while a command runs
    folder = Path(args.workspace or Path.cwd()).resolve()
    try:
        if args.command == "worktrees":
            return _list(folder, as_json=args.json, out=out)
        worktree = find(folder, args.name)
        if args.command == "apply":
            return _apply(folder, worktree, yes=args.yes, out=out)
        losing = " and the changes nobody committed there" if args.force else ""
        if not _confirmed(f"Remove the worktree {worktree.name}{losing}?", args.yes):
            return 1
        discard(folder, worktree, keep_branch=args.keep_branch, force=args.force)
        kept = f"; its branch {worktree.branch} is kept" if args.keep_branch else ""
        print(f"Discarded the worktree {worktree.name}{kept}.", file=out)
        return 0
    except WorktreeError as exc:
        print(f"agentls: {exc}", file=sys.stderr)
        return 1


def _list(folder: Path, *, as_json: bool, out: IO[str]) -> int:
    rows = []
    for worktree in listed(folder):
        now = state(worktree)
        what = describe(now)
        rows.append(
            {
                "name": worktree.name,
                "branch": worktree.branch,
                "path": worktree.path,
                "state": what,
                "files": now.files,
                "added": now.added,
                "removed": now.removed,
            }
        )
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


def _apply(folder: Path, worktree: Worktree, *, yes: bool, out: IO[str]) -> int:
    if state(worktree).uncommitted:
        print(
            f"agentls: the worktree {worktree.name} holds changes not committed on its "
            "branch (a run in progress?); they are not part of what is applied",
            file=sys.stderr,
        )
    checked = check_apply(folder, worktree)
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
    apply(folder, checked, only=chosen)
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
