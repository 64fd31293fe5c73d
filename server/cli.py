"""The ``agentls`` console script: the language server, the demo, and the headless CLI.

``agentls --stdio`` (or ``serve``) starts the server, ``agentls demo`` drives the
server from a terminal client; every other command is the headless CLI of
``agent.cli``, which knows nothing of LSP.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from agent import cli as agent_cli


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = agent_cli.build_parser().parse_args(arguments)
    if args.stdio or args.tcp or args.command == "serve":
        from server.__main__ import run as serve

        # run() never returns: it ends the process so no stray thread keeps it alive.
        if args.tcp:
            serve(["--tcp", "--host", args.host, "--port", str(args.port)])
        serve(["--stdio"])
    if args.command == "demo" and not args.headless:
        from agent.demo.runner import run_demo
        from server.demo import run_lsp_demo

        return run_demo(model=args.model, api_base=args.api_base, lsp_runner=run_lsp_demo)
    return agent_cli.main(arguments)


if __name__ == "__main__":
    sys.exit(main())
