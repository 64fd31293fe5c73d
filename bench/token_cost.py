"""What a long session costs under provider prompt caching, and how often the cache hits.

A scripted 45-step session (reads of files of realistic sizes, searches, listings, a
plan, a written file) runs through the real AgentLoop, ContextBuilder and
ContextManager against the local scripted model server, which records every request.
The same script runs twice: with the context manager as configured (limit
``--limit`` tokens) and without any compaction (the minimum a cache can give, ignoring
the limit). It prints:

- the share of model calls whose messages extend the previous call's messages
  unchanged (byte-identical prefix), which is what provider prompt caches reuse;
- the total prompt cost with caching (the prefix shared with the previous call billed
  at 10 %), against the no-compaction run;
- the peak context size against the limit.

Goals: ≥ 95 % extending calls, cost ≤ 1.1x the no-compaction minimum, peak ≤ limit.
Tokens are counted the same way for both runs (the context manager's counter).

``--instructions`` runs every session through ``run_agent`` (as the front ends do) in a
workspace with instruction files: an ``AGENTS.md`` at the root, in the system prompt, and
one in ``pkg/``, which joins the conversation when the session first reads a file there.
The goals are the same: instruction files must not break the cached prefix.

    python bench/token_cost.py [--steps 45] [--limit 32000] [--instructions]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentls.agent.config.models import AgentConfig, AppConfig, LLMConfig
from agentls.agent.context import SUMMARY_REQUEST, ContextBuilder, ContextManager
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm._litellm import import_litellm_sync
from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, text, tool_call
from agentls.agent.loop import AgentLoop
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess

CACHED_SHARE = 0.10
SUMMARY = (
    "Task: document every module. Done: read the modules listed above, found the "
    "public functions; plan: write docs/modules.md then check each module. Files: "
    "docs/modules.md written. Remaining: the last modules."
)


def make_workspace(root: Path, files: int) -> None:
    """Python modules of 40 to 400 lines, like a small real project."""
    for index in range(files):
        lines = 40 + (index * 97) % 360
        body = [f'"""Module {index}: helpers for part {index}."""', "", "import os", ""]
        for n in range(lines):
            if n % 8 == 0:
                body.append(f"def helper_{index}_{n}(value: int) -> int:")
            elif n % 8 == 7:
                body.append("")
            else:
                body.append(f"    value = value * {n} + len(os.sep)  # step {n} of {index}")
        (root / f"mod_{index:02d}.py").write_text("\n".join(body) + "\n")


ROOT_RULES = (
    """# Agent instructions

- Build with `make build`; run `make check` (ruff, mypy, pytest) before you finish.
- Modules are small and named after what they do; every function has type hints.
- Documentation lives in docs/, one page per part, written for a newcomer.
- Never edit generated files under build/; never commit secrets.
"""
    * 4
)

PKG_RULES = "# pkg\n\nThe pkg package is public API: document each function's arguments.\n" * 3


def add_instructions(root: Path) -> None:
    """A root AGENTS.md (~1.5 KB) and pkg/AGENTS.md with the module the session reads."""
    (root / "AGENTS.md").write_text(ROOT_RULES)
    (root / "pkg").mkdir(exist_ok=True)
    (root / "pkg" / "AGENTS.md").write_text(PKG_RULES)
    (root / "pkg" / "api.py").write_text("def public(value: int) -> int:\n    return value\n")


def script(steps: int, files: int, *, reads_pkg: bool = False) -> list[Turn]:
    turns: list[Turn] = [
        tool_call(
            "update_plan",
            {"plan": [{"step": "read every module", "status": "in_progress"}]},
            text="I will read each module. ",
        ),
        tool_call("list_files", {"path": "."}),
    ]
    step = 0
    while len(turns) < steps - 2:
        kind = step % 5
        if reads_pkg and step == 10:
            turns.append(tool_call("read_file", {"path": "pkg/api.py"}))
        elif kind == 3:
            turns.append(tool_call("grep", {"pattern": f"helper_{step % files}_8", "path": "."}))
        else:
            turns.append(tool_call("read_file", {"path": f"mod_{step % files:02d}.py"}))
        step += 1
    turns.append(
        tool_call(
            "write_file",
            {"path": "docs/modules.md", "content": "# Modules\n\n" + "- module\n" * 40},
        )
    )
    turns.append(text("Documented every module in docs/modules.md."))
    return turns


class Model:
    """Answers the scripted steps in order, and any summary request with SUMMARY."""

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)

    def __call__(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages") or []
        if messages and messages[-1].get("content") == SUMMARY_REQUEST:
            return text(SUMMARY)
        if messages and "The steps to summarise" in str(messages[-1].get("content")):
            return text(SUMMARY)
        return self.turns.pop(0)


def tokens(messages: list[dict[str, Any]]) -> int:
    return int(import_litellm_sync().token_counter(model="gpt-4o", messages=messages))


def analyse(requests: list[list[dict[str, Any]]]) -> dict[str, float]:
    extending = 0
    cost = 0.0
    peak = 0
    previous: list[str] = []
    for index, messages in enumerate(requests):
        encoded = [json.dumps(m, sort_keys=True) for m in messages]
        common = 0
        for a, b in zip(previous, encoded, strict=False):
            if a != b:
                break
            common += 1
        if index and common == len(previous):
            extending += 1
        shared = tokens(messages[:common]) if common else 0
        total = tokens(messages)
        cost += CACHED_SHARE * shared + (total - shared)
        peak = max(peak, total)
        previous = encoded
    calls = len(requests)
    return {
        "calls": calls,
        "extending": extending / max(calls - 1, 1),
        "cost": cost,
        "peak": peak,
    }


async def session(
    server: ScriptedModelServer,
    ws: Path,
    model: str,
    steps: int,
    files: int,
    limit: int,
    instructions: bool = False,
    **context: Any,
) -> dict[str, float]:
    context["max_context_tokens"] = limit
    if limit == 0:
        context["compact_at"] = 0
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}, "context": context})
    server.add(model, *([Model(script(steps, files, reads_pkg=instructions))] * (steps + 20)))
    llm = LiteLLMAdapter(LLMConfig(model=f"openai/{model}", api_base=server.api_base))
    if instructions:
        return await session_through_run_agent(server, ws, model, steps, config, llm)
    agent = AgentConfig(
        system_prompt="You document code.", confirm_mode="yolo", max_steps=steps + 5
    )
    engine = ExecutionEngine(build_registry(), RunContext(DiskFileAccess(ws), config))
    loop = AgentLoop(
        llm,
        engine,
        agent,
        ContextBuilder(config.context),
        context_manager=ContextManager(config.context, llm.count_tokens) if limit else None,
        model_name=model,
    )
    state = await loop.run("Document every module of this project in docs/modules.md.")
    assert state.status == "success", state.final_output
    requests = [r.messages for r in server.requests_for(model)]
    return analyse(requests)


async def session_through_run_agent(
    server: ScriptedModelServer,
    ws: Path,
    model: str,
    steps: int,
    config: AppConfig,
    llm: LiteLLMAdapter,
) -> dict[str, float]:
    """The same session as a front end runs it: instruction files, session file and all."""
    config = config.model_copy(update={"llm": llm.config})
    request = RunRequest(
        prompt="Document every module of this project in docs/modules.md.",
        confirm_mode="yolo",
        max_steps=steps + 5,
        stream=False,
        session_id=model,
    )
    front_end = FrontEnd(DiskFileAccess(ws), DenyingApprover("the bench asks nobody"))
    outcome = await run_agent(request, front_end, config=config, llm=llm)
    assert outcome.state.status == "success", outcome.state.final_output
    assert outcome.instructions == ["AGENTS.md", "pkg/AGENTS.md"], outcome.instructions
    requests = [r.messages for r in server.requests_for(model)]
    return analyse(requests)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=45)
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--limit", type=int, default=32000)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    ws = Path(tempfile.mkdtemp())
    make_workspace(ws, args.files)
    extra = args.instructions
    if extra:
        add_instructions(ws)
    with ScriptedModelServer() as server:
        ours = await session(server, ws, "managed", args.steps, args.files, args.limit, extra)
        (ws / "docs" / "modules.md").unlink()
        base = await session(server, ws, "unmanaged", args.steps, args.files, 0, extra)
        (ws / "docs" / "modules.md").unlink()
        # The policy before: summarise after 8 steps keeping 4, drop to the limit.
        per_step = await session(
            server,
            ws,
            "per-step",
            args.steps,
            args.files,
            args.limit,
            extra,
            summarize_after_steps=8,
            keep_recent_steps=4,
            compact_at=0,
            compact_to=0,
        )
    ratio = ours["cost"] / base["cost"]
    how = " through run_agent, with instruction files" if extra else ""
    print(f"{args.steps}-step scripted session{how}, context limit {args.limit} tokens")
    print("| run | model calls | extend previous | cost (cached prefix at 10 %) | peak context |")
    print("| --- | --- | --- | --- | --- |")
    rows = (
        ("no compaction (minimum)", base),
        ("per-step compaction (summarise after 8 steps)", per_step),
        ("agentls context manager (high/low-water marks)", ours),
    )
    for name, row in rows:
        print(
            f"| {name} | {row['calls']:.0f} | {row['extending']:.1%} | "
            f"{row['cost']:.0f} | {row['peak']:.0f} |"
        )
    print(
        f"ratio: cost {ratio:.2f}x the no-compaction minimum (goal ≤ 1.10); "
        f"{ours['extending']:.1%} of calls extend the previous one (goal ≥ 95 %); "
        f"peak {ours['peak']:.0f} / limit {args.limit} = {ours['peak'] / args.limit:.2f} "
        "(goal ≤ 1.00)"
    )


if __name__ == "__main__":
    asyncio.run(main())
