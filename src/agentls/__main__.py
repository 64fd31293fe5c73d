"""The ``agentls`` console script and ``python -m agentls``: the one place that knows the
three front ends, each of which knows only the engine.

The language server is dispatched before anything else is imported: an editor waits on
``initialize``, and the headless CLI's imports (argparse tables, the config models) would
only delay it. ``agentls acp`` (the Agent Client Protocol on stdio) is dispatched the same way.
Everything else is a subcommand of the terminal front end, ``agentls.cli``.

The terminal front end and ACP end the process as the server does, without tearing the
interpreter down (``exit_now``): once the answer is out, freeing every module's objects one
by one (seconds with litellm loaded, ~0.3 s without) is time the user waits for nothing.
Both also start with the garbage collector paused until their first model call
(``agent/startup_collector.py``), and with the methods of dataclasses compiled once per
installation (``dataclass_methods.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

#: Arguments that mean "serve LSP"; ``serve`` is the subcommand spelling of ``--stdio``.
_SERVER_FLAGS = ("--stdio", "--tcp")


def server_argv(argv: Sequence[str]) -> list[str] | None:
    """The language server's own arguments when ``argv`` asks for it, else None."""
    if argv and argv[0] == "serve":
        return ["--stdio", *argv[1:]]
    if any(flag in argv for flag in _SERVER_FLAGS):
        return list(argv)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line's front end; without ``argv`` (the console script, ``python -m
    agentls``) the process's own, which then ends at once (``exit_now``); with ``argv`` (a
    program, a test) the exit code is returned."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    ends_process = argv is None
    served = server_argv(arguments)
    if ends_process and served is None:
        from agentls import dataclass_methods
        from agentls.agent.startup_collector import pause_collection

        dataclass_methods.install()
        pause_collection()
    if arguments[:1] == ["acp"]:
        from agentls.acp_agent.main import main as acp_main

        code = acp_main(arguments[1:])
        return exit_now(code) if ends_process else code
    if served is not None:
        from agentls.server.__main__ import run

        run(served)  # never returns: it ends the process
    from agentls.cli.main import main as cli_main

    code = cli_main(arguments)
    return exit_now(code) if ends_process else code


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` as ``sys.exit`` would, less the interpreter's
    teardown: threads that are not daemons are waited for, the ``atexit`` handlers run
    (logging's flush, coverage's data), the standard streams are flushed; then the
    process ends without freeing what it holds, which the OS does at once."""
    import atexit
    import contextlib
    import os
    import threading

    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe or stream: nothing more can be said.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code if isinstance(code, int) else 1)


if __name__ == "__main__":
    sys.exit(main())
