"""Checkpoints: what each run changed, kept so a whole run can be undone.

The package, by concern:

* ``store``: the session's content-addressed blob store and its ``record.jsonl``;
* ``ledger``: which lines of a record agentls wrote (kept outside the workspace);
* ``files``: ``CheckpointingFiles``, the FileAccess every tool write passes through;
* ``probe``: ``CheckpointingProbe``, the files a command changed behind it;
* ``restoring``: the plan that puts the workspace back before a run, and applying it;
* ``queries``: the runs that have a checkpoint, the store of a run, the files edited lately;
* ``retention``: ``sessions.keep``, the least recently used sessions removed with their
  checkpoints.

The names the rest of the code uses are importable from here.
"""

from __future__ import annotations

from agentls.agent.checkpoints.files import CheckpointingFiles, read_state
from agentls.agent.checkpoints.probe import SNAPSHOT_BUDGET, CheckpointingProbe
from agentls.agent.checkpoints.queries import (
    edited_recently,
    foreign_runs,
    list_checkpoints,
    session_stores,
    store_of_run,
)
from agentls.agent.checkpoints.restoring import (
    BytesConfirmer,
    ModesConfirmer,
    RestorePlan,
    RestoreResult,
    partly_undone,
    plan_restore,
    preview_restore,
    restore,
)
from agentls.agent.checkpoints.store import (
    DEFAULT_MAX_BYTES,
    CheckpointStore,
    FileState,
    RecordLine,
    RunCheckpoint,
    sha256,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SNAPSHOT_BUDGET",
    "BytesConfirmer",
    "CheckpointStore",
    "CheckpointingFiles",
    "CheckpointingProbe",
    "FileState",
    "ModesConfirmer",
    "RecordLine",
    "RestorePlan",
    "RestoreResult",
    "RunCheckpoint",
    "edited_recently",
    "foreign_runs",
    "list_checkpoints",
    "partly_undone",
    "plan_restore",
    "preview_restore",
    "read_state",
    "restore",
    "session_stores",
    "sha256",
    "store_of_run",
]
