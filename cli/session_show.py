"""``agentls sessions show ID``: one stored session told as a conversation in the
terminal, the models that answered named wherever they changed."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from agentls.cli.workspace_settings import add_settings_options, settings_of

if TYPE_CHECKING:
    from agentls.agent.sessions.entries import Entry


def add_show_command(sessions: argparse.ArgumentParser) -> None:
    inner = sessions.add_subparsers(dest="sessions_action", metavar="{show}")
    show = inner.add_parser(
        "show",
        help="print one session: prompts, answers, tool calls, the models that answered",
    )
    show.add_argument("session_id", metavar="ID")
    add_settings_options(show)
    show.add_argument("--json", action="store_true", help="its entries, as stored, as JSON")
    show.set_defaults(func=show_command)


def show_command(args: argparse.Namespace) -> int:
    from agentls.agent.errors import AgentError
    from agentls.agent.folder.media import TERMINAL
    from agentls.compose import folder_engine

    config = settings_of(args)
    if config is None:
        return 1
    try:
        store = folder_engine(TERMINAL).sessions(config)
        if not store.exists(args.session_id):
            print(f"agentls: no session {args.session_id} in {store.root}", file=sys.stderr)
            return 1
        session = store.open(args.session_id)
    except AgentError as exc:  # a bad id, a sessions folder reached through a symlink
        print(f"agentls: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([e.model_dump(mode="json") for e in session.entries], indent=2))
    else:
        for line in conversation(session.entries):
            print(line)
    return 0


def conversation(entries: Iterable[Entry]) -> Iterator[str]:
    """The lines of a stored session: each prompt, answer and tool call, each run's end,
    and the model that answered wherever it changed."""
    from agentls.agent.sessions.entries import (
        AssistantMessage,
        CompactionEntry,
        ModelChoiceEntry,
        RestoreEntry,
        RunFinishEntry,
        RunStartEntry,
        SubagentEntry,
        ToolResultEntry,
    )
    from agentls.agent.text import one_line

    model: str | None = None
    for entry in entries:
        if isinstance(entry, AssistantMessage) and entry.model and entry.model != model:
            model = entry.model
            yield f"[model: {model}]"
        if isinstance(entry, RunStartEntry):
            agent = "" if entry.agent == "build" else f"({entry.agent}) "
            yield f"\n> {agent}{entry.prompt}"
        elif isinstance(entry, AssistantMessage):
            if entry.content:
                yield entry.content
            for call in entry.tool_calls:
                args = " ".join(f"{k}={one_line(str(v), 40)}" for k, v in call.arguments.items())
                yield f"▶ {call.name} {args}".rstrip()
        elif isinstance(entry, ToolResultEntry):
            mark = "✓" if entry.success else "✗"
            yield f"  {mark} {entry.name}: {one_line(entry.content, 120)}"
        elif isinstance(entry, ModelChoiceEntry):
            yield f"[/model: {entry.model or 'back to the default'}]"
        elif isinstance(entry, RunFinishEntry):
            yield f"[{entry.status}]"
        elif isinstance(entry, CompactionEntry):
            yield f"[compacted: {entry.replaced} messages became a summary]"
        elif isinstance(entry, SubagentEntry):
            on = f" on {entry.model}" if entry.model else ""
            yield (
                f"  [subagent {entry.agent}{on}: {entry.status}, {entry.steps} step(s), "
                f"{entry.total_tokens} tokens] {one_line(entry.task, 80)}"
            )
        elif isinstance(entry, RestoreEntry):
            yield f"[undid run {entry.restores} and the later ones: {entry.status}]"
