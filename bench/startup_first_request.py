"""Start → first model request, and answer → exit, for ``bench/startup.py first-request``.

Contenders, each started ``runs`` times, interleaved (a busy moment of a shared machine
hits them alike), against one in-process scripted model server that answers "Hello!":

- the floor: ``python`` posting the very body agentls sent (its first request, ~4.8k
  tokens) with ``urllib``, reading the stream to its end;
- ``agentls run "Say hello."`` (``python -m agentls``, yolo mode, the generated workspace);
- ``agentls acp`` driven over stdio: ``initialize``, ``session/new``, ``session/prompt``,
  then stdin closed;
- the editor: the model worker as the language server starts it again after its idle stop
  (``ModelWorker`` + ``ProcessLLM``, the server's own classes), the run's ``check`` then
  its first streamed call;
- aider, codex and opencode when on PATH (their own defaults; skipped with a note when not);
- for reference, ``python -c "import acp"`` from spawn to exit: the ACP SDK's import alone,
  which an ACP agent built on it pays before it can answer ``initialize``.

Every contender is started once before the timed rounds, with ``PYTHONDONTWRITEBYTECODE``
taken out of the environment: the bytecode caches are then there, as in an install.

"to the model" is from spawning (or, for the worker, from the run's first need of it) to
the request's arrival at the server (its clock, same machine). "exit after the answer" is
from the prompt's answer (ACP: the ``session/prompt`` response; run: the request, whose
"Hello!" stream takes a millisecond) to the process's end.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentls.agent.config.models import LLMConfig
from agentls.agent.llm.scripted_server import ScriptedModelServer, text

PROMPT = "Say hello."
MODEL = "bench"
GOAL_RATIO = 10.0
GOAL_EXIT_SECONDS = 0.5

FLOOR = """
import sys, urllib.request
url, body = sys.argv[1], open(sys.argv[2], "rb").read()
request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
with urllib.request.urlopen(request) as response:
    while response.read(65536):
        pass
"""


def make_workspace(root: Path, files: int) -> None:
    """A small Python project of ``files`` files (the size of the peers' comparison)."""
    (root / "README.md").write_text("# bench\n\nA workspace for the start-up benchmark.\n")
    for i in range(files - 1):
        package = root / "src" / f"pkg{i // 20:02}"
        package.mkdir(parents=True, exist_ok=True)
        body = "".join(
            f"def f{i}_{j}(x: int) -> int:\n    return x * {j} + {i}\n\n" for j in range(8)
        )
        (package / f"mod{i:03}.py").write_text(f'"""Module {i}."""\n\n{body}')


class Bench:
    def __init__(
        self,
        server: ScriptedModelServer,
        root: Path,
        env: dict[str, str],
        source: Path | None = None,
    ) -> None:
        self.server = server
        self.root = root
        self.env = env
        self.body_file = root.parent / "first_request.json"
        #: Another checkout's src/ whose agentls this bench starts (None: this one's).
        self.source = source
        if source is not None:
            self.env = {**env, "PYTHONPATH": str(source)}

    def _answer_next(self) -> int:
        self.server.add(MODEL, text("Hello!"))
        return len(self.server.requests_for(MODEL))

    def _arrival(self, before: int) -> float:
        requests = self.server.requests_for(MODEL)
        if len(requests) <= before:
            raise RuntimeError("no request reached the model server")
        return requests[before].time

    # -- contenders: each returns (seconds to the model, seconds from answer to exit)

    def floor(self) -> tuple[float, float]:
        before = self._answer_next()
        url = self.server.api_base + "/chat/completions"
        start = time.time()
        subprocess.run(
            [sys.executable, "-c", FLOOR, url, str(self.body_file)], check=True, env=self.env
        )
        ended = time.time()
        arrived = self._arrival(before)
        return arrived - start, ended - arrived

    def run(self) -> tuple[float, float]:
        before = self._answer_next()
        command = [sys.executable, "-m", "agentls", "run", PROMPT, "--model", f"openai/{MODEL}"]
        command += ["--api-base", self.server.api_base, "--mode", "yolo"]
        start = time.time()
        done = subprocess.run(
            command, cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )
        ended = time.time()
        if done.returncode != 0 or "Hello!" not in done.stdout:
            raise RuntimeError(f"agentls run failed ({done.returncode}): {done.stderr[-1500:]}")
        arrived = self._arrival(before)
        if not self.body_file.exists():
            body = self.server.requests_for(MODEL)[before].body
            self.body_file.write_text(json.dumps(body))
        return arrived - start, ended - arrived

    def acp(self) -> tuple[float, float]:
        before = self._answer_next()
        command = [sys.executable, "-m", "agentls", "acp", "--model", f"openai/{MODEL}"]
        command += ["--api-base", self.server.api_base]
        start = time.time()
        process = subprocess.Popen(
            command,
            cwd=self.root,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None

        def send(message: dict[str, Any]) -> None:
            assert process.stdin is not None
            process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            process.stdin.flush()

        def answer(ident: int) -> dict[str, Any]:
            assert process.stdout is not None
            for line in process.stdout:
                message = json.loads(line)
                if message.get("id") == ident and "method" not in message:
                    if "error" in message:
                        raise RuntimeError(f"agentls acp: {message['error']}")
                    return dict(message.get("result") or {})
            raise RuntimeError("agentls acp ended before answering")

        capabilities = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
        send(
            {
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": 1, "clientCapabilities": capabilities},
            }
        )
        answer(1)
        send(
            {"id": 2, "method": "session/new", "params": {"cwd": str(self.root), "mcpServers": []}}
        )
        session = answer(2)["sessionId"]
        prompt = [{"type": "text", "text": PROMPT}]
        send(
            {
                "id": 3,
                "method": "session/prompt",
                "params": {"sessionId": session, "prompt": prompt},
            }
        )
        answer(3)
        answered = time.time()
        process.stdin.close()
        process.wait(timeout=60)
        ended = time.time()
        return self._arrival(before) - start, ended - answered

    def acp_sdk(self) -> tuple[float, float]:
        """Not a contender: ``python -c "import acp"``, from spawn to exit: what any ACP
        agent built on the ACP SDK pays before it can answer ``initialize``."""
        start = time.time()
        subprocess.run([sys.executable, "-c", "import acp"], check=True, env=self.env)
        return time.time() - start, math.nan

    def editor_worker(self) -> tuple[float, float]:
        return asyncio.run(self._editor_worker())

    async def _editor_worker(self) -> tuple[float, float]:
        from agentls.agent.llm.worker_client import ModelWorker, ProcessLLM

        before = self._answer_next()
        body = json.loads(self.body_file.read_text())
        config = LLMConfig(model=f"openai/{MODEL}", api_base=self.server.api_base)
        command = None
        if self.source is not None:  # that checkout's worker (the server puts ours first)
            code = (
                f"import sys; sys.path.insert(0, {str(self.source)!r}); "
                "from agentls.agent.llm.worker import main; sys.exit(main(sys.argv[1:]))"
            )
            command = [sys.executable, "-P", "-c", code]
        worker = ModelWorker(command)
        llm = ProcessLLM(config, worker)
        try:
            start = time.time()
            await llm.check()
            async for _ in llm.completion_stream(body["messages"], body.get("tools")):
                pass
            answered = time.time()
        finally:
            await worker.close()
        return self._arrival(before) - start, time.time() - answered


def peer_commands(api_base: str) -> dict[str, list[str] | None]:
    """How each peer CLI is pointed at the local server (None: not on PATH)."""
    found = {name: shutil.which(name) for name in ("aider", "codex", "opencode")}
    commands: dict[str, list[str] | None] = {}
    aider = found["aider"]
    commands["aider"] = None
    if aider:
        commands["aider"] = [aider, "--model", f"openai/{MODEL}", "--openai-api-base", api_base]
        commands["aider"] += ["--openai-api-key", "sk-bench", "--message", PROMPT, "--yes-always"]
        commands["aider"] += ["--no-git", "--no-check-update", "--no-show-model-warnings"]
    codex = found["codex"]
    commands["codex"] = None
    if codex:
        commands["codex"] = [codex, "exec", "--skip-git-repo-check", "-c", f'model="{MODEL}"']
        commands["codex"] += [
            "-c",
            'model_provider="bench"',
            "-c",
            'model_providers.bench.name="b"',
        ]
        commands["codex"] += ["-c", f'model_providers.bench.base_url="{api_base}"']
        commands["codex"] += ["-c", 'model_providers.bench.wire_api="chat"', PROMPT]
    opencode = found["opencode"]
    commands["opencode"] = (
        [opencode, "run", "--model", f"bench/{MODEL}", PROMPT] if opencode else None
    )
    return commands


def peer(bench: Bench, command: list[str]) -> Callable[[], tuple[float, float]]:
    def start() -> tuple[float, float]:
        before = bench._answer_next()
        config = {
            "provider": {
                "bench": {
                    "npm": "@ai-sdk/openai-compatible",
                    "options": {"baseURL": bench.server.api_base},
                    "models": {MODEL: {}},
                }
            }
        }
        env = {**bench.env, "OPENCODE_CONFIG_CONTENT": json.dumps(config)}
        begun = time.time()
        subprocess.run(command, cwd=bench.root, env=env, capture_output=True, timeout=120)
        ended = time.time()
        arrived = bench._arrival(before)
        return arrived - begun, ended - arrived

    return start


def first_request_tables(runs: int, files: int, compare: Path | None = None) -> None:
    with tempfile.TemporaryDirectory() as directory, ScriptedModelServer() as server:
        root = Path(directory) / "ws"
        root.mkdir()
        make_workspace(root, files)
        home = Path(directory) / "home"
        home.mkdir()
        env = {
            **os.environ,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "NO_COLOR": "1",
        }
        # Bytecode caches written as an install has them (pip compiles at install): with
        # PYTHONDONTWRITEBYTECODE set, a source checkout compiles every module at each start.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        bench = Bench(server, root, env)
        bench.run()  # warm-up (the OS file cache), and the body the floor will send
        tokens = len(bench.body_file.read_text()) // 4
        contenders: dict[str, Callable[[], tuple[float, float]]] = {
            "floor: python + urllib POST": bench.floor,
            "agentls run": bench.run,
            "agentls acp": bench.acp,
            "editor: model worker restarted after its idle stop": bench.editor_worker,
        }
        if compare is not None:
            other = Bench(server, root, env, compare)
            contenders["agentls run (before)"] = other.run
            contenders["agentls acp (before)"] = other.acp
            contenders["editor: model worker restarted (before)"] = other.editor_worker
        contenders["`import acp` alone (the ACP SDK; spawn → exit)"] = bench.acp_sdk
        for warm_up in list(contenders.values())[1:]:  # every other one, once
            warm_up()
        skipped = []
        for name, command in peer_commands(server.api_base).items():
            if command is None:
                skipped.append(name)
            else:
                contenders[name] = peer(bench, command)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
        for _ in range(runs):
            for name, start in contenders.items():
                try:
                    times[name].append(start())
                except Exception as exc:  # a peer that cannot be driven: said, not fatal
                    print(f"{name}: {exc}", file=sys.stderr)
    print(
        f"start → first model request, and answer → exit: median of {runs}, interleaved; "
        f'"{PROMPT}", {files}-file workspace, first request ~{tokens} tokens (chars/4)'
    )
    print()
    print("| contender | to the model, s | ratio to the floor | answer → exit, s |")
    print("| --- | ---: | ---: | ---: |")
    floor = statistics.median(t for t, _ in times["floor: python + urllib POST"])
    for name, samples in times.items():
        if not samples:
            print(f"| {name} | failed | | |")
            continue
        reach = statistics.median(t for t, _ in samples)
        leave = statistics.median(e for _, e in samples)
        exit_text = "—" if math.isnan(leave) else f"{leave:.2f}"
        print(f"| {name} | {reach:.2f} | {reach / floor:.1f} | {exit_text} |")
    if skipped:
        print()
        print(f"not on PATH, skipped: {', '.join(skipped)}")
    print()
    print(
        f"goals: to the model within {GOAL_RATIO:g}× the floor, exit within "
        f"{GOAL_EXIT_SECONDS} s of the answer"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (wall times mean little above ~2)")
