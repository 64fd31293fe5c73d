"""A repository that keeps its git hooks in the working tree, and a spy on every git that
agentls starts on the host.

The hooks (``core.hooksPath=.githooks``, or husky's ``.husky/_`` calling ``.husky/``'s
scripts) only touch a marker outside the repository when they run: agentls's own git must
never run them, neither as the repository ships them nor after a sandboxed command of the
run tried to rewrite them. ``GitSpy`` puts a ``git`` first on agentls's PATH that writes
its environment to a log (outside the workspace) and then runs the real git: no secret of
the user's may be in it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: Secrets in agentls's environment: one whose name says so, one whose name does not (an
#: ``llm.api_key_env`` may name anything).
SECRETS = {
    "OPENAI_API_KEY": "sk-hooked-test-key-0123456789abcdef",
    "ACME_LLM": "innocently-named-secret-0123456789",
}

#: Hook styles: where ``core.hooksPath`` points, and the script a sandboxed command would
#: rewrite (the one the hook runs).
STYLES = {
    "githooks": (".githooks", ".githooks/pre-commit"),
    "husky": (".husky/_", ".husky/pre-commit"),
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)


@dataclass(frozen=True)
class HookedRepo:
    root: Path
    #: Touched by a hook as the repository ships it.
    shipped_marker: Path
    #: Touched by the hook a sandboxed command tried to write.
    planted_marker: Path
    #: The script the hook runs, which the run's command rewrites.
    script: str

    def rewrite_command(self) -> str:
        """The shell command a run's sandboxed step runs to take the hook over."""
        body = f"#!/bin/sh\\ntouch {self.planted_marker}\\n"
        return f"printf '{body}' > {shlex.quote(self.script)}; chmod +x {self.script}"

    def hooks_ran(self) -> list[str]:
        return [p.name for p in (self.shipped_marker, self.planted_marker) if p.exists()]


def make_hooked_repo(root: Path, style: str, markers: Path) -> HookedRepo:
    """``root`` (existing or not) as a repository with ``style``'s hooks committed."""
    hooks_path, script = STYLES[style]
    root.mkdir(parents=True, exist_ok=True)
    markers.mkdir(parents=True, exist_ok=True)
    shipped = markers / "shipped-hook-ran"
    if style == "husky":
        # husky 9: core.hooksPath=.husky/_, whose hooks run the user's scripts in .husky/.
        for hook in ("pre-commit", "commit-msg", "post-commit"):
            _script(
                root / hooks_path / hook, f"if [ -f .husky/{hook} ]; then sh .husky/{hook}; fi\n"
            )
        _script(root / script, f"touch {shipped}\n")
    else:
        for hook in ("pre-commit", "commit-msg", "post-commit", "post-checkout"):
            _script(root / hooks_path / hook, f"touch {shipped}\n")
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hooks", "--no-verify")
    git(root, "config", "core.hooksPath", hooks_path)
    assert not shipped.exists()
    return HookedRepo(root, shipped, markers / "planted-hook-ran", script)


@dataclass(frozen=True)
class GitSpy:
    bin: Path
    log: Path

    def env(self, path: str) -> dict[str, str]:
        """agentls's environment additions: the spy first on PATH, and the secrets."""
        return {"PATH": f"{self.bin}:{path}", **SECRETS}

    def calls(self) -> list[str]:
        """The environment of each git agentls ran (one text each)."""
        if not self.log.exists():
            return []
        return [c for c in self.log.read_text(errors="replace").split("\0---\0") if c.strip()]

    def leaked(self) -> list[str]:
        return [name for name, value in SECRETS.items() if any(value in c for c in self.calls())]


def git_spy(base: Path) -> GitSpy:
    real = shutil.which("git")
    assert real, "the tests need git"
    spy = base / "spy-bin"
    spy.mkdir(parents=True)
    log = base / "git-environments"
    wrapper = spy / "git"
    # Inside the sandbox the log's folder is not writable (or not there): skipped quietly.
    wrapper.write_text(
        "#!/bin/sh\n"
        f"{{ env -0; printf '\\0---\\0'; }} >> {shlex.quote(str(log))} 2>/dev/null || true\n"
        f'exec {shlex.quote(real)} "$@"\n'
    )
    wrapper.chmod(0o755)
    return GitSpy(spy, log)
