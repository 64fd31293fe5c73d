"""What handing an exploration to a subagent saves the parent's context.

One scripted task runs twice through ``run_agent`` against the local scripted model
server, which records every request:

- **inline**: the agent explores itself (it reads ``--reads`` modules of 40–400 lines and
  greps), then does the rest of the task (``--rest`` more steps: searches and a file
  written);
- **delegated**: the agent hands the exploration to the built-in ``explore`` agent
  (``delegate``), which makes the same reads in its own conversation and reports in a
  paragraph; then the agent does the same rest of the task.

It prints, for each of the parent's model calls after the exploration, its prompt tokens
in both runs, then the totals: the parent's prompt tokens over the rest of the run (the
goal: delegated at most half of inline) and, to be honest about the cost, every request's
tokens (the child's included). Tokens: litellm's ``token_counter`` on the recorded
messages and tool schemas.

    python bench/delegation.py [--reads 8] [--rest 6]
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

# The same modules as the token-cost bench (run as a script: bench/ is on the path).
from token_cost import make_workspace

from agentls.agent.config.models import AppConfig
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm._litellm import import_litellm_sync
from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, text, tool_call
from agentls.agent.policy.approval import DenyingApprover
from agentls.agent.run import FrontEnd, RunRequest, run_agent
from agentls.agent.workspace import DiskFileAccess

REPORT = (
    "Found it. `helper_3_8` is defined in mod_03.py:5 and called from mod_05.py (lines "
    "12, 40) and mod_07.py:88; every caller passes an int and uses the result as a count. "
    "The other modules only define their own helpers. To rename it, change the three "
    "files; nothing else refers to it."
)


def exploration(reads: int) -> list[Turn]:
    turns = [tool_call("grep", {"pattern": "helper_3_8"})]
    turns += [tool_call("read_file", {"path": f"mod_{i:02d}.py"}) for i in range(reads)]
    return turns


def rest_of_task(steps: int) -> list[Turn]:
    turns = [tool_call("grep", {"pattern": f"helper_{i}_0\\b"}) for i in range(steps - 1)]
    turns.append(tool_call("write_file", {"path": "NOTES.md", "content": REPORT + "\n"}))
    return [*turns, text("Done: the notes are in NOTES.md.")]


def tokens(request: Any) -> int:
    litellm = import_litellm_sync()
    counted = int(litellm.token_counter(model="gpt-4o", messages=request.messages))
    tools = request.body.get("tools") or []
    return counted + int(litellm.token_counter(model="gpt-4o", text=json.dumps(tools)))


async def one_run(root: Path, server: ScriptedModelServer, parent: str) -> None:
    config = AppConfig.model_validate(
        {
            "workspace": {"root": str(root)},
            "llm": {"model": f"openai/{parent}", "api_base": server.api_base},
            "subagents": {"explore_model": "openai/explorer"},
        }
    )
    outcome = await run_agent(
        RunRequest(
            prompt="Find every use of helper_3_8, then write notes.",
            confirm_mode="yolo",
            max_steps=60,
        ),
        FrontEnd(
            DiskFileAccess(root),
            DenyingApprover("nobody asks in a benchmark"),
            llm_for=lambda other: LiteLLMAdapter(other.llm),
        ),
        config=config,
        llm=LiteLLMAdapter(config.llm),
    )
    if outcome.state.status != "success":
        raise SystemExit(
            f"the {parent} run ended {outcome.state.status}: {outcome.state.final_output}"
        )


async def main(reads: int, rest: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer() as server:
        root = Path(tmp)
        make_workspace(root, max(reads, 12))
        server.add("inline", *exploration(reads), *rest_of_task(rest))
        server.add(
            "delegating",
            tool_call("delegate", {"agent": "explore", "task": "Find every use of helper_3_8."}),
            *rest_of_task(rest),
        )
        server.add("explorer", *exploration(reads), text(REPORT))
        await one_run(root, server, "inline")
        (root / "NOTES.md").unlink()
        await one_run(root, server, "delegating")
        inline = [tokens(r) for r in server.requests_for("inline")]
        delegating = [tokens(r) for r in server.requests_for("delegating")]
        child = [tokens(r) for r in server.requests_for("explorer")]
    # The rest of the run: the parent's calls after the exploration (inline: after its
    # reads; delegated: after the delegate call).
    inline_rest = inline[reads + 1 :]
    delegated_rest = delegating[1:]
    print(f"{reads} reads explored, then {rest} more steps\n")
    print("| parent's call after the exploration | inline | delegated | ratio |")
    print("| ---: | ---: | ---: | ---: |")
    for n, (a, b) in enumerate(zip(inline_rest, delegated_rest, strict=True), start=1):
        print(f"| {n} | {a} | {b} | {b / a:.2f} |")
    total_a, total_b = sum(inline_rest), sum(delegated_rest)
    ratio = total_b / total_a
    verdict = "met" if ratio <= 0.5 else "NOT met"
    print(f"| **rest of the run** | **{total_a}** | **{total_b}** | **{ratio:.2f}** ({verdict}) |")
    every_a, every_b = sum(inline), sum(delegating) + sum(child)
    print(
        f"\nEvery request's prompt tokens: inline {every_a}, delegated {every_b} "
        f"(parent {sum(delegating)} + explore {sum(child)}): {every_b / every_a:.2f}x"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=8)
    parser.add_argument("--rest", type=int, default=6)
    options = parser.parse_args()
    asyncio.run(main(options.reads, options.rest))
