"""``sessions.keep``: a folder keeps its most recently used sessions, the rest go with their
checkpoints, when a run starts a new session."""

from __future__ import annotations

import os
from pathlib import Path

from test_run import config_for, run

from agentls.agent.checkpoints.ledger import Ledger
from agentls.agent.checkpoints.retention import prune_sessions
from agentls.agent.checkpoints.store import CheckpointStore, RecordLine
from agentls.agent.llm.scripted_server import ScriptedModelServer, text
from agentls.agent.sessions.store import SessionStore


def _session(store: SessionStore, session_id: str, used: float) -> None:
    """A session file with one checkpoint, last used at ``used`` (seconds since the epoch)."""
    path = store.path_for(session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"type": "note"}\n')
    checkpoints = CheckpointStore.for_session(store, session_id)
    checkpoints.append(RecordLine(run="r", path="a.py"))
    os.utime(path, (used, used))


def test_the_least_recently_used_sessions_go_with_their_checkpoints(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    for n in range(5):
        _session(store, f"s{n}", used=1_000_000 + n)
    ledger = Ledger(store.path_for("s0").with_suffix(".checkpoints"))
    assert ledger.path.exists()

    removed = prune_sessions(store, 3, starting="new")

    assert sorted(removed) == ["s0", "s1", "s2"]
    # The new session counts among the kept: two older ones stay beside it.
    left = sorted(p.name for p in store.root.iterdir())
    assert left == ["s3.checkpoints", "s3.jsonl", "s4.checkpoints", "s4.jsonl"]
    assert not ledger.path.exists()


def test_a_continued_session_is_young_and_zero_keeps_them_all(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    for n in range(4):
        _session(store, f"s{n}", used=1_000_000 + n)
    os.utime(store.path_for("s0"), (2_000_000, 2_000_000))  # continued today

    assert prune_sessions(store, 0, starting="new") == []
    assert sorted(prune_sessions(store, 3, starting="new")) == ["s1", "s2"]
    assert prune_sessions(store, 1, starting="s0") == ["s3"]
    assert sorted(p.stem for p in store.root.glob("*.jsonl")) == ["s0"]


def test_a_link_in_place_of_a_session_is_neither_counted_nor_followed(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    outside = tmp_path / "yours.jsonl"
    outside.write_text("keep me\n")
    store.root.mkdir(parents=True)
    (store.root / "link.jsonl").symlink_to(outside)
    for n in range(2):
        _session(store, f"s{n}", used=1_000_000 + n)

    assert prune_sessions(store, 1, starting="new") == ["s1", "s0"]
    assert outside.read_text() == "keep me\n"


async def test_a_run_that_starts_a_new_session_prunes_beyond_keep(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    config = config_for(ws, scripted, "keep", sessions={"keep": 2})
    scripted.add("keep", *(text("ok") for _ in range(3)))
    for n in range(3):
        result = await run(ws, config, prompt="hi", session_id=f"s{n}")
        assert result.state.status == "success"
        sessions = ws / ".agentls" / "sessions"
        os.utime(sessions / f"s{n}.jsonl", (1_000_000 + n, 1_000_000 + n))
    assert sorted(p.stem for p in sessions.glob("*.jsonl")) == ["s1", "s2"]

    # Continuing a session starts none: nothing is pruned, whatever the count.
    scripted.add("keep", text("ok"))
    config = config_for(ws, scripted, "keep", sessions={"keep": 1})
    await run(ws, config, prompt="again", session_id="s1")
    assert sorted(p.stem for p in sessions.glob("*.jsonl")) == ["s1", "s2"]
