"""The scripted model server in its own process, driven over HTTP.

For tests where the model server must outlive or sit apart from the test process
(the demo, editor end-to-end tests)::

    with spawn_scripted_server() as remote:
        remote.add("alice", text("hello"), tool_call("read_file", {"path": "a.py"}))
        env = {**os.environ, "MODEL_BASE": remote.api_base}
        ...  # start the LSP server with model="openai/alice", api_base=remote.api_base
        assert remote.requests()[0]["body"]["messages"][-1]["content"] == "hi"
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentls.agent.llm.scripted_server import Turn


class RemoteScriptedServer:
    """A client for the control routes of a scripted server reached over HTTP."""

    def __init__(self, base_url: str, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    def _call(self, method: str, path: str, payload: Any = None) -> Any:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.loads(response.read() or b"null")

    def add(self, model: str | None, *turns: Turn) -> None:
        """Append turns to a model's queue (responders cannot cross a process boundary)."""
        body = {"model": model, "turns": [t.model_dump(exclude_defaults=True) for t in turns]}
        self._call("POST", "/_script", body)

    def requests(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call("GET", "/_requests")
        return result

    def reset(self) -> None:
        self._call("POST", "/_reset", {})

    def healthy(self) -> bool:
        try:
            return bool(self._call("GET", "/health"))
        except OSError:
            return False


@contextmanager
def spawn_scripted_server(
    script: Path | None = None,
    python: str = sys.executable,
    extra_args: Sequence[str] = (),
    startup_timeout: float = 20.0,
) -> Iterator[RemoteScriptedServer]:
    """Run ``python -m agentls.agent.llm.scripted_server`` and yield a client for it."""
    command = [python, "-P", "-m", "agentls.agent.llm.scripted_server", "--port", "0", *extra_args]
    if script is not None:
        command += ["--script", str(script)]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = _read_line(process, startup_timeout)
        if not line.startswith("LISTENING "):
            raise RuntimeError(f"scripted server did not start: {line!r}")
        yield RemoteScriptedServer(f"http://127.0.0.1:{int(line.split()[1])}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    import selectors

    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            raise RuntimeError(f"scripted server printed nothing within {timeout:g}s")
    return process.stdout.readline().strip()
