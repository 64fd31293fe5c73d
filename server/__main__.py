"""``python -P -m agentls --stdio`` (default) or ``--tcp --host H --port P`` (debugging).

``main(argv)`` is importable so the ``agentls`` CLI can delegate ``agentls --stdio``
and ``agentls serve`` to it. In stdio mode stdout is protected before anything else
runs: the LSP stream gets a private duplicate of fd 1, then fd 1 and ``sys.stdout``
are pointed at stderr, so a stray ``print`` (or a library's banner) can never corrupt
the stream.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import signal
import sys
from collections.abc import Sequence

from agentls.agent.stdout_guard import protect_stdout
from agentls.logging_setup import configure_logging

#: See ``main``: how long a busy thread may keep the GIL from the event loop.
SWITCH_INTERVAL_SECONDS = 0.0005


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="agentls", description="agentls language server")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (default)")
    mode.add_argument("--tcp", action="store_true", help="listen on a TCP port (debugging)")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warn", "error"],
        default="info",
        help="log level until the configuration is read (logs go to stderr)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if hasattr(signal, "SIGUSR1"):  # `kill -USR1 <pid>` dumps every thread's stack to stderr
        faulthandler.register(signal.SIGUSR1, file=sys.stderr)
    lsp_out = None if args.tcp else protect_stdout()
    # The model calls run in a worker process, but threads still run Python next to the
    # event loop: the index build and search, the file watcher, warm-up imports, session
    # writes. When the loop wakes up for a request while one of them holds the GIL,
    # CPython makes it wait up to the switch interval (5 ms by default), once per loop
    # iteration: 15-50 ms for a trivial request. A shorter interval bounds that wait.
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    configure_logging(args.log_level)

    from agentls.server.app import build_server
    from agentls.server.stdio import start_io

    server = build_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        assert lsp_out is not None
        start_io(server, sys.stdin.buffer, lsp_out)
    # LSP: exit code 0 after shutdown + exit, 1 when the client went away without.
    return 0 if getattr(server.protocol, "_shutdown", False) else 1


def run(argv: Sequence[str] | None = None) -> None:
    """Entry point that never lingers: daemon threads (a litellm import in progress)
    and pending background work must not keep an exited server alive."""
    code = main(argv)
    # A client that went away without `shutdown` never closed the MCP pool: end the
    # local MCP servers (and what they started) here, since os._exit skips every cleanup.
    stdio = sys.modules.get("agentls.agent.mcp.stdio")
    if stdio is not None:
        stdio.end_all_groups()
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
