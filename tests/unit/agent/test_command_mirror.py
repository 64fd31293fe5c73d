"""A command's output as events: in order, masked even when a key is split across reads,
a flood cut with a note, and the end always told."""

from __future__ import annotations

import pytest

from agentls.agent.events import AgentEvent, CommandEnded, CommandOutput, CommandStarted
from agentls.agent.exec import command_mirror
from agentls.agent.exec.command_mirror import CommandMirror


def mirrored(events: list[AgentEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, CommandOutput))


def test_a_key_split_across_two_reads_is_still_masked() -> None:
    events: list[AgentEvent] = []
    mirror = CommandMirror(events.append, "c1", "execute_command", "make test")
    mirror.feed(b"token sk-abcdef")
    mirror.feed(b"0123456789xyz done\n")
    mirror.end(0)
    assert events[0] == CommandStarted("c1", "execute_command", "make test")
    assert mirrored(events) == "token *** done\n"
    assert events[-1] == CommandEnded("c1", 0, False)


def test_utf8_split_across_reads_and_text_without_a_newline_arrive_whole() -> None:
    events: list[AgentEvent] = []
    mirror = CommandMirror(events.append, "c2", "execute_command", "echo")
    data = "héllo wörld".encode()
    mirror.feed(data[:2])
    mirror.feed(data[2:])
    mirror.end(None, timed_out=True)
    assert mirrored(events) == "héllo wörld"
    assert events[-1] == CommandEnded("c2", None, True)


def test_a_flood_is_cut_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command_mirror, "MAX_MIRRORED", 100)
    events: list[AgentEvent] = []
    mirror = CommandMirror(events.append, "c3", "execute_command", "yes")
    for _ in range(50):
        mirror.feed(b"y\n" * 10)
    mirror.end(1)
    shown = mirrored(events)
    assert shown.startswith("y\ny\n") and shown.endswith("not shown here ...]\n")
    assert shown.count("y") == 50
    assert isinstance(events[-1], CommandEnded)


def test_a_flood_cut_inside_a_key_shows_none_of_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cut falls on masked text: a key's first characters never show."""
    key = "ghp_" + "A1b2C3d4E5" * 4
    monkeypatch.setattr(command_mirror, "MAX_MIRRORED", len("token ") + 12)
    events: list[AgentEvent] = []
    mirror = CommandMirror(events.append, "c4", "execute_command", "cat")
    mirror.feed(f"token {key} and more output\n".encode())
    mirror.end(0)
    shown = mirrored(events)
    assert shown.startswith("token ***") and shown.endswith("not shown here ...]\n")
    assert "ghp_" not in shown and "A1b2" not in shown
