"""``agentls demo``: the product on a fresh copy of the sample workspace.

With ``--model`` (or ``AGENTLS_MODEL``) it uses that real model; otherwise it starts
the local scripted model server and says plainly that the replies are scripted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from agentls.cli.demo import DEMO_MODEL, DEMO_PROMPT, demo_turns, fresh_workspace


def add_demo_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    demo = sub.add_parser("demo", help="show the product on a sample workspace")
    demo.add_argument("--model", help="a real litellm model (default: scripted replies)")
    demo.add_argument("--api-base", help="API base URL for --model")
    demo.add_argument("--headless", action="store_true", help="run the loop without the server")
    demo.set_defaults(func=demo_command)


def demo_command(args: argparse.Namespace) -> int:
    return run_demo(model=args.model, api_base=args.api_base, headless=args.headless)


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def run_demo(model: str | None = None, api_base: str | None = None, headless: bool = False) -> int:
    """Run the demo: through the language server, started as an editor starts it
    (``lsp_client``), or with ``headless`` the loop in this process."""
    model = model or os.environ.get("AGENTLS_MODEL")
    api_base = api_base or os.environ.get("AGENTLS_API_BASE")
    workspace = fresh_workspace()
    with ExitStack() as stack:
        if model is None:
            from agentls.agent.llm.scripted_server import ScriptedModelServer

            server = stack.enter_context(ScriptedModelServer())
            server.add(DEMO_MODEL, *demo_turns())
            model, api_base = f"openai/{DEMO_MODEL}", server.api_base
            _say(
                "agentls demo: no model configured (set AGENTLS_MODEL or pass --model), so the "
                "model's replies are SCRIPTED by a local server; everything else is real."
            )
        else:
            _say(f"agentls demo: using model {model}")
        _say(f"Workspace: {workspace}\nTask: {DEMO_PROMPT}\n")
        overrides: dict[str, Any] = {"llm": {"model": model}}
        if api_base:
            overrides["llm"]["api_base"] = api_base
        if not headless:
            from agentls.cli.demo.lsp_client import run_lsp_demo

            return asyncio.run(run_lsp_demo(workspace, overrides, DEMO_PROMPT))
        return asyncio.run(_headless(workspace, overrides))


async def _headless(workspace: Path, overrides: dict[str, Any]) -> int:
    from agentls.agent.folder.settings import FolderSettings
    from agentls.agent.llm import adapter_for
    from agentls.agent.run import FrontEnd, RunRequest, run_agent
    from agentls.agent.workspace import DiskFileAccess
    from agentls.cli.terminal import TerminalApprover, TerminalAsker, TerminalObserver

    config = FolderSettings(workspace, flags=overrides).load().config
    asker = TerminalAsker()
    confirmer = asker.confirm_edit if asker.interactive else None
    files = DiskFileAccess(workspace, confirmer=confirmer)
    # Without a terminal nobody can accept the edits: the demo then accepts them itself.
    mode = "confirm-sensitive" if asker.interactive else "yolo"
    outcome = await run_agent(
        RunRequest(prompt=DEMO_PROMPT, confirm_mode=mode),
        FrontEnd(files, TerminalApprover(asker), observer=TerminalObserver()),
        config=config,
        llm=adapter_for(config.llm),
    )
    _say(f"\n\nStatus: {outcome.state.status}")
    print(outcome.state.final_output or "")
    return 0 if outcome.state.status == "success" else 1
