"""A bwrap on the PATH is started once before agentls counts on it: one the kernel refuses
its namespaces (Ubuntu 24.04's AppArmor restriction) counts as no sandbox, and the notice
names the cause and the sysctl that lifts it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentls.agent.config.models import AppConfig
from agentls.agent.exec import sandbox as sandbox_module
from agentls.agent.exec.sandbox import (
    BROKEN_BWRAP_NOTE,
    bwrap_status,
    find_bwrap,
    forget_bwrap_probe,
    make_sandbox,
    no_sandbox_note,
)
from agentls.agent.exec.sandbox_status import missing_sandbox_notice

APPARMOR_FIX = "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"


def fake_bwrap(directory: Path, body: str) -> Path:
    """A ``bwrap`` in ``directory`` that runs ``body`` (sh) and counts its starts."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "bwrap"
    script.write_text(f'#!/bin/sh\necho started >> "{directory}/starts"\n{body}\n')
    script.chmod(0o755)
    return script


APPARMOR_REFUSAL = (
    'echo "bwrap: setting up uid map: Permission denied" >&2\n'
    'echo "bwrap: No permissions to creating new namespace" >&2\nexit 1'
)


@pytest.fixture(autouse=True)
def fresh_probe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    # No sysctl files: the kernel's answer must come from what bwrap said.
    monkeypatch.setattr(sandbox_module, "_SYSCTL", tmp_path / "no-sysctl")
    forget_bwrap_probe()
    yield
    forget_bwrap_probe()


def _only(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    monkeypatch.setenv("PATH", f"{directory}:/usr/bin:/bin")


def test_a_bwrap_the_kernel_refuses_counts_as_no_sandbox_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = fake_bwrap(tmp_path / "bin", APPARMOR_REFUSAL)
    _only(monkeypatch, tmp_path / "bin")
    status = bwrap_status()
    assert status.path == str(script) and not status.usable
    assert status.problem is not None and "setting up uid map: Permission denied" in status.problem
    assert status.fix == APPARMOR_FIX
    assert find_bwrap() is None
    assert make_sandbox(tmp_path, "workspace-write", False).missing
    assert no_sandbox_note() == BROKEN_BWRAP_NOTE


def test_the_notice_names_the_cause_and_the_sysctl_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_bwrap(tmp_path / "bin", APPARMOR_REFUSAL)
    _only(monkeypatch, tmp_path / "bin")
    notice = missing_sandbox_notice(AppConfig(), platform="linux")
    assert notice is not None
    assert "cannot start here" in notice and "setting up uid map" in notice
    assert f"`{APPARMOR_FIX}`" in notice and "AppArmor" in notice
    assert "full permissions" in notice and "not installed" not in notice


def test_bwrap_is_started_once_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bwrap(tmp_path / "bin", APPARMOR_REFUSAL)
    _only(monkeypatch, tmp_path / "bin")
    for _ in range(3):
        assert find_bwrap() is None
        missing_sandbox_notice(AppConfig(), platform="linux")
    assert (tmp_path / "bin" / "starts").read_text().splitlines() == ["started"]


def test_a_bwrap_that_starts_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = fake_bwrap(tmp_path / "bin", "exit 0")
    _only(monkeypatch, tmp_path / "bin")
    assert find_bwrap() == str(script)
    assert missing_sandbox_notice(AppConfig(), platform="linux") is None


def test_a_failure_of_another_kind_is_reported_without_a_guessed_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_bwrap(tmp_path / "bin", "exit 3")
    _only(monkeypatch, tmp_path / "bin")
    status = bwrap_status()
    assert status.problem == "it exited with status 3" and status.fix is None
    notice = missing_sandbox_notice(AppConfig(), platform="linux")
    assert notice is not None and "it exited with status 3" in notice
    assert "sysctl" not in notice


def test_the_fix_follows_the_kernels_own_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sysctl = tmp_path / "sysctl"
    (sysctl / "kernel").mkdir(parents=True)
    (sysctl / "kernel" / "unprivileged_userns_clone").write_text("0\n")
    monkeypatch.setattr(sandbox_module, "_SYSCTL", sysctl)
    fake_bwrap(tmp_path / "bin", APPARMOR_REFUSAL)
    _only(monkeypatch, tmp_path / "bin")
    assert bwrap_status().fix == "sudo sysctl -w kernel.unprivileged_userns_clone=1"


def test_the_real_bwrap_starts(bwrap: str) -> None:
    assert bwrap_status().usable and find_bwrap() == bwrap
