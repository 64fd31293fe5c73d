"""`agentls mask`: what a script keeps besides agentls's own output (a CI run's diff), through
the same outward pass, bytes that are not UTF-8 unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from secret_samples import all_samples_text, leaked


def test_mask_copies_stdin_with_every_secret_masked(tmp_path: Path) -> None:
    data = all_samples_text().encode() + b"deploy-pass-0123\nbinary \xff\xfe end\n"
    done = subprocess.run(
        [sys.executable, "-m", "agentls.cli", "mask", "--workspace", str(tmp_path)],
        input=data,
        capture_output=True,
        env={**os.environ, "MY_DEPLOY_PASSWORD": "deploy-pass-0123"},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("utf-8", "replace")
    assert leaked(out) == [] and "deploy-pass-0123" not in out
    assert done.stdout.endswith(b"binary \xff\xfe end\n")
