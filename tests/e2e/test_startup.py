"""initialize answers at once, and requests while the model worker starts; stdout carries
only LSP; the server process itself never imports litellm or a tokenizer."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentls_e2e import LspFactory, plain, server_command, server_env

from agentls.agent.llm.scripted_server import ScriptedModelServer, text, tool_call
from agentls.agent.tools.catalog import LAZY_TOOLS


def held_worker(go: Path) -> str:
    """A model worker command that starts only once ``go`` exists: a worker as slow to
    start as the test wants, whatever the machine's load."""
    code = (
        "import os, sys, time\n"
        f"while not os.path.exists({str(go)!r}):\n"
        "    time.sleep(0.02)\n"
        "from agentls.agent.llm.worker import main\n"
        "sys.exit(main(sys.argv[1:]))"
    )
    return shlex.join([sys.executable, "-P", "-c", code])


@pytest.mark.usefixtures("worker_started_by_the_server")  # its start must take its time
async def test_requests_answered_while_the_model_worker_starts(
    lsp: LspFactory, scripted: ScriptedModelServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    monkeypatch.setenv("AGENTLS_MODEL_WORKER_COMMAND", held_worker(go))
    client = await lsp()
    # The panel opened: the model worker starts (held until ``go``); the server must
    # answer meanwhile: answers that say the worker is not ready yet can only have come
    # while it was starting, not after the server waited for it.
    client.protocol.notify("agent/prepare", {})
    for _ in range(3):
        pong = plain(await client.request("agent/ping", {}))
        assert pong["pong"] is True
        assert pong["llmReady"] is False
    go.touch()
    await client.ping_until(lambda pong: pong["llmReady"], "the model worker")


async def test_first_run_works(lsp: LspFactory, scripted: ScriptedModelServer) -> None:
    scripted.add("alice", text("hello"))
    client = await lsp()
    result = plain(await client.run(prompt="hi", runId="st1"))
    assert result["output"] == "hello"
    assert client.error is None


async def test_the_server_process_never_imports_litellm(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    # Enough text that the context manager counts tokens on the way.
    scripted.add("alice", tool_call("read_file", {"path": "src/app.py"}), text("It greets " * 50))
    client = await lsp()
    result = plain(await client.run(prompt="what does app.py do?", runId="st2"))
    assert result["status"] == "success"
    pong = await client.ping_until(lambda pong: pong["llmReady"], "llmReady")
    assert pong["litellmLoaded"] is False
    assert pong["tokenizerLoaded"] is False


def test_stdout_is_protected() -> None:
    """After protect_stdout() only the returned stream reaches fd 1 of the process."""
    code = (
        "import os, sys\n"
        "from agentls.agent.stdout_guard import protect_stdout\n"
        "out = protect_stdout()\n"
        "print('stray print')\n"
        "os.write(1, b'raw fd write')\n"
        "sys.__stdout__.write('dunder stdout'); sys.__stdout__.flush()\n"
        "out.write(b'LSP-ONLY'); out.flush()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=server_env(), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"LSP-ONLY"
    assert b"stray print" in done.stderr and b"raw fd write" in done.stderr


def _framed(*messages: dict[str, object]) -> bytes:
    out = b""
    for message in messages:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def _responses(stdout: bytes) -> dict[int, dict[str, object]]:
    found: dict[int, dict[str, object]] = {}
    while stdout:
        header, _, rest = stdout.partition(b"\r\n\r\n")
        fields = dict(line.split(b": ", 1) for line in header.split(b"\r\n"))
        length = int(fields[b"Content-Length"])
        message = json.loads(rest[:length])
        stdout = rest[length:]
        if "id" in message and "method" not in message:
            found[message["id"]] = message
    return found


def _opening(root: Path) -> bytes:
    return _framed(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "agent/ping", "params": {}},
    )


def test_stdin_from_a_pipe_is_read_by_the_event_loop(tmp_path: Path) -> None:
    """A pipe (how editors spawn servers) is read by the loop itself, with messages
    split across reads; shutdown then exit ends the process with 0."""
    errors = (tmp_path / "stderr.log").open("wb")  # a file: a full pipe could block the server
    proc = subprocess.Popen(
        [*server_command(), "--log-level", "debug"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        env=server_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    opening = _opening(tmp_path) + _framed({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    for at in range(0, len(opening), 7):
        proc.stdin.write(opening[at : at + 7])
        proc.stdin.flush()
    seen = b""
    while 3 not in _responses(seen):  # exit only after the shutdown answer, as LSP says
        chunk = proc.stdout.read1(65536)
        assert chunk, seen[:500]
        seen += chunk
    rest, _ = proc.communicate(_framed({"jsonrpc": "2.0", "method": "exit"}), timeout=60)
    answers = _responses(seen + rest)
    assert sorted(answers) == [1, 2, 3]
    assert "capabilities" in answers[1]["result"]  # type: ignore[operator]
    assert answers[2]["result"]["pong"] is True  # type: ignore[index]
    assert proc.returncode == 0
    errors.close()
    assert "stdin is a pipe: the event loop reads it" in (tmp_path / "stderr.log").read_text()


def test_stdin_that_is_not_a_pipe_is_read_by_pygls(tmp_path: Path) -> None:
    """A regular file (or a terminal, or a socket shared with stdout) keeps pygls's
    own reader: the same answers; the input ends without shutdown, so the exit code is 1."""
    (tmp_path / "in.bin").write_bytes(_opening(tmp_path))
    with (tmp_path / "in.bin").open("rb") as stdin:
        done = subprocess.run(
            [*server_command(), "--log-level", "debug"],
            stdin=stdin,
            capture_output=True,
            env=server_env(),
            timeout=60,
        )
    answers = _responses(done.stdout)
    assert sorted(answers) == [1, 2], done.stdout[:500]
    assert answers[2]["result"]["pong"] is True  # type: ignore[index]
    assert done.returncode == 1
    assert b"stdin is not a pipe: pygls's reader reads it" in done.stderr


def test_before_initialize_the_server_imports_only_what_answering_it_needs(
    tmp_path: Path,
) -> None:
    """The editor waits on ``initialize``: the heavy libraries (models, validation, MCP,
    tokenizers, parsers) are imported later, on first use or by the warm-up."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-P", "-m", "agentls", "--stdio"],
        input=b"",
        capture_output=True,
        cwd=tmp_path,
        env=server_env(),
        timeout=60,
    )
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.decode("utf-8", "replace").splitlines()
        if line.startswith("import time:")
    }
    assert "agentls.server.app" in imported  # the server did start
    heavy = {"pydantic", "litellm", "mcp", "tiktoken", "tree_sitter", "acp", "yaml"}
    assert not heavy & imported, sorted(heavy & imported)


def _imported(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` says it imported."""
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:")
    }


#: What a run that calls no tool, in a folder without config, hook or ignore files, at
#: an OpenAI-compatible endpoint, never imports: each is loaded where it is first needed.
NOT_FOR_A_HELLO = {
    # The built-in tools' machinery: shown to the model from agent/tools/catalog.json.
    *(module for module, _ in LAZY_TOOLS),
    "agentls.indexer.search",
    "agentls.agent.patch",
    # Parsers of files this folder does not have.
    "yaml",
    "ruamel.yaml",
    "pathspec",
    # The model list, litellm, the other front ends' protocols, the shell parser.
    "agentls.agent.llm.available",
    "litellm",
    "acp",
    "lsprotocol.types",
    "bashlex",
    # The HTTP client's parts an HTTP/1.1 call never uses: its command line, HTTP/2.
    "rich",
    "click",
    "h2",
    "hpack",
}


def test_a_run_that_calls_no_tool_imports_only_what_its_first_request_needs(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    (tmp_path / "app.py").write_text("def greet() -> str:\n    return 'hi'\n")
    scripted.add("hello", text("Hello!"))
    model = ["--model", "openai/hello", "--api-base", scripted.api_base, "--mode", "yolo"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-P", "-m", "agentls", "run", "Say hello.", *model],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=server_env(),
        timeout=150,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Hello!" in done.stdout
    imported = _imported(done.stderr)
    assert "agentls.agent.run" in imported  # the run did start
    assert not NOT_FOR_A_HELLO & imported, sorted(NOT_FOR_A_HELLO & imported)
    # The model was shown every tool all the same.
    sent = scripted.requests_for("hello")[0].body
    assert len(sent["tools"]) == len(LAZY_TOOLS) + 1  # and delegate


def test_parsing_the_command_line_imports_no_engine(tmp_path: Path) -> None:
    """The parser is built from every subcommand's module; what a command runs is
    imported by its function, after the arguments are read."""
    code = (
        "import json, sys\n"
        "from agentls.cli.main import build_parser\n"
        "build_parser().parse_args(['run', 'Say hello.'])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    imported = set(json.loads(done.stdout))
    engine = {"agentls.agent.run", "agentls.agent.loop", "agentls.agent.tools.base", "httpx"}
    assert not engine & imported, sorted(engine & imported)


class RawAcpClient:
    """``agentls acp`` under ``-X importtime``, spoken to in raw JSON-RPC frames (no SDK
    in this process either); stderr goes to a file, read at the end."""

    def __init__(self, tmp_path: Path, scripted: ScriptedModelServer, model: str) -> None:
        command = [sys.executable, "-X", "importtime", "-P", "-m", "agentls", "acp"]
        command += ["--model", f"openai/{model}", "--api-base", scripted.api_base]
        self.errors = tmp_path / "acp-stderr.txt"
        with self.errors.open("wb") as stderr:
            self.process = subprocess.Popen(
                [*command, "--mode", "yolo"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=tmp_path,
                env=server_env(),
            )
        self.frames: list[dict[str, Any]] = []
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The answer to the request (every frame before it is kept in ``frames``)."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        request_id, self.next_id = self.next_id, self.next_id + 1
        frame = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        stdin.write((json.dumps(frame) + "\n").encode())
        stdin.flush()
        while line := stdout.readline():
            self.frames.append(json.loads(line))
            if self.frames[-1].get("id") == request_id and "method" not in self.frames[-1]:
                return self.frames[-1]
        raise AssertionError(self.errors.read_text()[-3000:])

    def close(self) -> str:
        """Ends the agent (end of its input) and answers its stderr."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            assert self.process.wait(timeout=60) == 0
        finally:
            self.process.kill()
            assert self.process.stdout is not None
            self.process.stdout.close()
        return self.errors.read_text()


def test_acp_through_a_first_prompt_never_imports_the_acp_sdk(
    tmp_path: Path, scripted: ScriptedModelServer
) -> None:
    """The agent side of ACP is agentls's own: the SDK (whose import alone takes longer
    than the rest of the start) is the tests' client only."""
    (tmp_path / "app.py").write_text("def greet() -> str:\n    return 'hi'\n")
    scripted.add("acp-hello", text("Hello!"))
    agent = RawAcpClient(tmp_path, scripted, "acp-hello")
    agent.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    new = agent.request("session/new", {"cwd": str(tmp_path), "mcpServers": []})
    prompt = [{"type": "text", "text": "Say hello."}]
    answer = agent.request(
        "session/prompt", {"sessionId": new["result"]["sessionId"], "prompt": prompt}
    )
    stderr = agent.close()
    assert answer["result"] == {"stopReason": "end_turn"}, stderr[-3000:]
    imported = _imported(stderr)
    assert "agentls.acp_agent.turn" in imported  # the prompt did run
    sdk = {module for module in imported if module == "acp" or module.startswith("acp.")}
    assert not sdk, sorted(sdk)
