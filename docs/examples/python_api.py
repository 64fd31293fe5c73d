"""Run agentls from Python: follow a run's events, answer its questions, read its result.

    python docs/examples/python_api.py WORKSPACE [MODEL] [API_BASE]

The test suite runs this file as it is, against its scripted model server.
"""

from __future__ import annotations

import asyncio
import sys

from agentls.agent.events import StreamText, ToolFinished, ToolStarted
from agentls.api import Agent, Question


def approve(question: Question) -> bool:
    """Confirm edits to Python files, and nothing else."""
    print(f"asked: {question.kind} {question.text}")
    return question.kind == "edit" and all(p.endswith(".py") for p in question.paths)


async def main(workspace: str, model: str | None, api_base: str | None) -> int:
    async with Agent(workspace, model=model, api_base=api_base, approve=approve) as agent:
        run = agent.run("Add a docstring to greet() in app.py.")
        async for event in run:
            if isinstance(event, ToolStarted):
                print(f"tool: {event.tool} {event.args}")
            elif isinstance(event, ToolFinished):
                print(f"  {'ok' if event.success else 'failed'}: {event.summary}")
            elif isinstance(event, StreamText):
                print(event.text, end="")
        result = await run.result()
        print(f"\nstatus: {result['status']}; session: {result['sessionId']}")
        return 0 if result["status"] == "success" else 1


if __name__ == "__main__":
    workspace, *rest = sys.argv[1:]
    model = rest[0] if rest else None
    api_base = rest[1] if len(rest) > 1 else None
    sys.exit(asyncio.run(main(workspace, model, api_base)))
