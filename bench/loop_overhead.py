"""Per-step overhead of AgentLoop over a bare litellm call loop, same server, same run.

Both loops talk to the local scripted model server through litellm's real code path:
the baseline calls ``litellm.acompletion`` (streaming, with the same tool schemas) and
appends messages itself; ours runs the full AgentLoop (context builder, engine,
read_file on a real file, observer, three context levels). Goal: ours ≤ 5 ms per
step above the baseline.

    python bench/loop_overhead.py [--steps 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentls.agent.config.models import AgentConfig, AppConfig, LLMConfig
from agentls.agent.context import ContextBuilder, ContextManager
from agentls.agent.llm import LiteLLMAdapter
from agentls.agent.llm.scripted_server import ScriptedModelServer, Turn, text, tool_call
from agentls.agent.loop import AgentLoop
from agentls.agent.tools import build_registry
from agentls.agent.tools.base import RunContext
from agentls.agent.tools.engine import ExecutionEngine
from agentls.agent.workspace import DiskFileAccess


def script(steps: int) -> list[Turn]:
    turns = [tool_call("read_file", {"path": "a.py"}, text="Reading. ") for _ in range(steps - 1)]
    return [*turns, text("Done.")]


async def bare_litellm(server: ScriptedModelServer, model: str, steps: int, tools: Any) -> float:
    import litellm

    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    start = time.perf_counter()
    for _ in range(steps):
        stream = await litellm.acompletion(
            model=f"openai/{model}",
            api_base=server.api_base,
            api_key="x",
            messages=messages,
            tools=tools,
            stream=True,
        )
        calls: dict[int, dict[str, str]] = {}
        async for chunk in stream:
            delta = chunk.choices[0].delta
            for tc in getattr(delta, "tool_calls", None) or []:
                slot = calls.setdefault(tc.index, {"id": "", "name": "", "args": ""})
                slot["id"] = tc.id or slot["id"]
                slot["name"] = (tc.function.name or "") or slot["name"]
                slot["args"] += tc.function.arguments or ""
        if not calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["args"]},
                    }
                    for c in calls.values()
                ],
            }
        )
        for c in calls.values():
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": "x = 1\n"})
    return time.perf_counter() - start


async def ours(server: ScriptedModelServer, model: str, steps: int, ws: Path) -> float:
    config = AppConfig.model_validate({"workspace": {"root": str(ws)}})
    llm = LiteLLMAdapter(LLMConfig(model=f"openai/{model}", api_base=server.api_base))
    agent = AgentConfig(system_prompt="bench", confirm_mode="yolo", max_steps=steps + 1)
    engine = ExecutionEngine(build_registry(), RunContext(DiskFileAccess(ws), config))
    loop = AgentLoop(
        llm,
        engine,
        agent,
        ContextBuilder(config.context),
        context_manager=ContextManager(config.context),
        model_name=model,
    )
    start = time.perf_counter()
    state = await loop.run("go")
    elapsed = time.perf_counter() - start
    assert state.status == "success", state.final_output
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ws = Path(tempfile.mkdtemp())
    (ws / "a.py").write_text("x = 1\n")
    tools = build_registry().get_schemas()
    base_times, our_times = [], []
    with ScriptedModelServer() as server:
        server.add("warm", *script(2))
        await ours(server, "warm", 2, ws)  # import litellm and warm both paths
        for i in range(args.repeat):
            server.add(f"b{i}", *script(args.steps))
            base_times.append(await bare_litellm(server, f"b{i}", args.steps, tools) / args.steps)
            server.add(f"o{i}", *script(args.steps))
            our_times.append(await ours(server, f"o{i}", args.steps, ws) / args.steps)
    base, our = statistics.median(base_times) * 1000, statistics.median(our_times) * 1000
    print(f"{args.steps}-step scripted run, median of {args.repeat} (ms per step)")
    print("| loop | ms/step | ratio |")
    print("| --- | --- | --- |")
    print(f"| bare litellm acompletion loop | {base:.2f} | 1.00 |")
    print(f"| agentls AgentLoop | {our:.2f} | {our / base:.2f} |")
    verdict = "meets" if our - base <= 5 else "misses"
    print(f"overhead per step: {our - base:+.2f} ms ({verdict} the ≤ 5 ms goal)")


if __name__ == "__main__":
    asyncio.run(main())
