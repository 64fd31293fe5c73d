"""Every JSON-RPC frame between the ACP test client and ``agentls acp``, recorded.

With ``AGENTLS_ACP_FRAMES`` set to a directory, each test's frames (both directions, in
the order the client saw them) go to a JSONL file there, named after the test: two
agents (the SDK's agent side, agentls's own) are then compared frame by frame with
``python tests/e2e/acp_frames.py compare OLD NEW``, volatile values normalised.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

FRAMES_DIR = "AGENTLS_ACP_FRAMES"


def record(conn: Any) -> None:
    """Appends the frames of ``conn`` (the SDK's ClientSideConnection) to this test's file."""
    folder = os.environ.get(FRAMES_DIR)
    if not folder:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split(" ")[0]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test) + ".jsonl"
    path = Path(folder) / name

    def observe(event: Any) -> None:
        line = json.dumps({"dir": event.direction.value, "frame": event.message})
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    conn._conn.add_observer(observe)


# -- comparison ---------------------------------------------------------------------------
#: Ids made afresh by each run (session ids, the model server's tool call ids): each
#: becomes ``<idN>`` by order of first appearance, so that which frame names which id
#: is still compared.
_IDS = re.compile(r"\b(?:call_)?[0-9a-f]{12,32}\b")
_TMP = re.compile(r"/tmp/pytest-of-[^/]+/pytest-\d+/(?:popen-gw\d+/)?")
_PORT = re.compile(r"127\.0\.0\.1:\d+")
#: The context's size in tokens counts the system prompt, which names the workspace's
#: temporary folder (longer under xdist).
_USED = re.compile(r'"used": \d+')
#: The commands offer is sent once the session's answer is on its way, from a task of
#: its own: it may reach the client before or after that answer (with the SDK too).
COMMANDS = '"sessionUpdate": "available_commands_update"'


def load(path: Path) -> list[str]:
    """The file's frames, normalised: the test's temporary folder, the fresh ids, the
    model server's port."""
    ids: dict[str, str] = {}

    def label(match: re.Match[str]) -> str:
        return ids.setdefault(match.group(0), f"<id{len(ids)}>")

    lines = path.read_text(encoding="utf-8").splitlines()
    lines = [_USED.sub('"used": <n>', _PORT.sub("<port>", _TMP.sub("<tmp>/", s))) for s in lines]
    return [_IDS.sub(label, line) for line in lines]


def canonical(frames: list[str]) -> tuple[list[str], list[str]]:
    """The frames in order but the commands offers, and those offers in their order."""
    return [f for f in frames if COMMANDS not in f], [f for f in frames if COMMANDS in f]


def differences(old: list[str], new: list[str]) -> list[str]:
    """What differs between two recordings of one scenario (nothing: the same frames)."""
    if old == new or canonical(old) == canonical(new):
        return []
    (a, a_offers), (b, b_offers) = canonical(old), canonical(new)
    found = [f"{len(old)} frames before, {len(new)} now"]
    if a_offers != b_offers:
        found.append("the commands offers differ")
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            found.append(
                f"first difference at frame {i}:\n   before {x[:800]}\n   now    {y[:800]}"
            )
            break
    return found


def compare(old: Path, new: Path) -> int:
    """Prints the tests whose frames differ; 0 when every test's frames are the same."""
    bad = 0
    names = sorted({p.name for p in old.glob("*.jsonl")} | {p.name for p in new.glob("*.jsonl")})
    for name in names:
        a, b = old / name, new / name
        if not a.exists() or not b.exists():
            print(f"only in one: {name}")
            bad += 1
            continue
        found = differences(load(a), load(b))
        if found:
            bad += 1
            print(f"DIFF {name}: " + "\n  ".join(found))
    print(f"{len(names)} tests, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
