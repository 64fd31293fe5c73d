"""``agentls acp``: serve the Agent Client Protocol on stdin/stdout.

stdout carries protocol messages only: it is taken for the protocol before anything
else runs, and a stray print lands on stderr. Logs go to stderr and, with ``--log-file``,
to a file, secrets redacted as in the language server.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentls acp",
        description="Run agentls as an Agent Client Protocol agent on stdio "
        "(Zed, JetBrains, Neovim and Emacs ACP clients).",
    )
    parser.add_argument("--config", type=Path, help="config file (default: .agentls.yaml)")
    parser.add_argument("--model", help="model, e.g. openai/gpt-4.1 (overrides llm.model)")
    parser.add_argument("--api-base", help="the model API's base URL (llm.api_base)")
    parser.add_argument(
        "--mode",
        choices=["confirm-all", "confirm-sensitive", "yolo"],
        help="when to ask before a tool runs (default: the agent's confirm_mode)",
    )
    parser.add_argument(
        "--client-terminals",
        action="store_true",
        help="run commands in the editor's terminals when it offers them (not sandboxed); "
        "default: the same sandboxed child process as the CLI and the language server",
    )
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warn", "error"])
    parser.add_argument("--log-file", type=Path, help="also write logs to this file")
    return parser


async def serve(args: argparse.Namespace, protocol_out: BinaryIO) -> None:
    from agentls.acp_agent.agent import AgentlsAcpAgent
    from agentls.acp_agent.protocol.client import ClientConnection
    from agentls.acp_agent.protocol.connection import stdio_connection
    from agentls.acp_agent.protocol.router import AgentRouter
    from agentls.agent.folder.settings import command_line_overrides

    flags = command_line_overrides(
        model=args.model, api_base=args.api_base, stream=not getattr(args, "no_stream", False)
    )
    agent = AgentlsAcpAgent(
        flags,
        args.config,
        confirm_mode=args.mode,
        client_terminals=args.client_terminals,
    )
    connection = await stdio_connection(AgentRouter(agent), protocol_out)
    agent.on_connect(ClientConnection(connection))
    try:
        await connection.listen()
    finally:
        await asyncio.shield(connection.close())
        await agent.aclose()


def main(argv: Sequence[str]) -> int:
    from agentls.agent.stdout_guard import protect_stdout

    protocol_out = protect_stdout()
    args = build_parser().parse_args(list(argv))
    from agentls.logging_setup import configure_logging

    configure_logging(args.log_level, file=args.log_file)
    try:
        asyncio.run(serve(args, protocol_out))
    except KeyboardInterrupt:
        return 130
    return 0
