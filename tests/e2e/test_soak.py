"""A short day of runs (bench/soak.py with 30 runs): one real server through edits kept and
undone, commands, an MCP server's tool, a cancel, a steer, worktree runs applied and
discarded, a restore and a continued session, with the editor typing meanwhile.

Only what does not depend on timing is checked (the suite runs under load): descriptors,
threads and child processes back to their baseline after every tenth of the runs, no
zombie, no run left in flight, and at most ``sessions.keep`` sessions on disk. Memory and
ping latency are the full soak's (bench/README.md).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agentls.agent.llm.scripted_server import ScriptedModelServer

pytestmark = pytest.mark.timeout(600)

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soak_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


async def test_thirty_runs_leave_nothing_behind(
    scripted: ScriptedModelServer, tmp_path: Path
) -> None:
    soak = _harness()
    report = await soak.soak(scripted, runs=30, every=5, keep_sessions=4, root=tmp_path / "ws")

    assert report.runs == 30
    assert report.surprises == []
    assert set(report.statuses) <= {"success", "partial"}, report.statuses
    failed = [g for g in report.goals(timing=False) if not g.met]
    assert failed == [], f"{failed}\n{report.table()}"
    # Sessions were made beyond the retention and pruned: the bound was exercised.
    assert max(s.sessions for s in report.samples) == 4
