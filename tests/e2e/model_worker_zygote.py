"""Model workers forked from one process that imported litellm, for the end-to-end tests.

Every language-server test starts a server, and the server's model worker imports litellm
(4-6 s of CPU here) before its first call: over a hundred tests, that import was the
largest part of the suite's time. Here one process per test process imports litellm once
and forks a worker for each server. The worker's code, litellm and the HTTP path to the
scripted model are the product's; only how the process begins differs:

- the server starts ``python model_worker_zygote.py launch SOCKET ARGS`` (its
  ``AGENTLS_MODEL_WORKER_COMMAND``) instead of ``python -m agentls.agent.llm.worker ARGS``;
- the launcher hands its stdin, stdout and stderr, its arguments, environment and folder to
  the zygote over a Unix socket, and waits;
- the zygote forks; the child takes those as its own and runs the worker's ``main``;
- the launcher exits with the worker's exit code, and the worker exits at once when its
  launcher dies (killed included), so a test that kills "the worker" kills it.

Without the zygote (its socket gone) the launcher becomes the ordinary worker.
tests/e2e/test_model_worker.py, about the worker process itself, starts it as the product
does.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import signal
import socket
import sys
import threading
from typing import Any

LAUNCH_TIMEOUT_S = 30.0
PR_SET_PDEATHSIG = 1


def serve(path: str) -> None:
    """Import litellm, then fork a worker for each launcher that connects (forever)."""
    # Ended with the test process that started it, even one that dies without tearing down
    # (Linux's parent-death signal; its forks do not inherit it).
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from agentls.agent.llm import _litellm, worker

    _litellm.import_litellm_sync()
    gc.collect()
    gc.freeze()
    # Forked workers are reaped by the kernel: the zygote never waits for them.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    print("READY", flush=True)
    while True:
        conn, _ = listener.accept()
        try:
            message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
        except OSError:
            conn.close()
            continue
        if len(fds) != 3:
            conn.close()
            for fd in fds:
                os.close(fd)
            continue
        if os.fork() == 0:
            listener.close()
            _become_worker(worker.main, conn, fds, json.loads(message))
        conn.close()
        for fd in fds:
            os.close(fd)


def _become_worker(main: Any, conn: socket.socket, fds: list[int], launch: dict[str, Any]) -> None:
    """In the forked child: the launcher's stdio, environment and folder, then the worker."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in zip((0, 1, 2), fds, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        os.environ.clear()
        os.environ.update(launch["env"])
        os.chdir(launch["cwd"])
        threading.Thread(target=_exit_with_launcher, args=(conn,), daemon=True).start()
        code = int(main(launch["argv"]) or 0)
        with contextlib.suppress(OSError):  # the launcher is gone: nobody to tell
            conn.send(str(code).encode())
    finally:
        sys.stderr.flush()
        os._exit(code)


def _exit_with_launcher(conn: socket.socket) -> None:
    # The launcher sends nothing more: any return is its end.
    try:
        conn.recv(16)
    finally:
        os._exit(1)


def launch(path: str, argv: list[str]) -> None:
    """Hand this process's stdio to the zygote's new worker; exit with its exit code."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        conn.settimeout(LAUNCH_TIMEOUT_S)
        conn.connect(path)
        message = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()})
        socket.send_fds(conn, [message.encode()], [0, 1, 2])
        conn.settimeout(None)
    except OSError:
        conn.close()
        worker = [sys.executable, "-P", "-m", "agentls.agent.llm.worker", *argv]
        os.execv(sys.executable, worker)
    reply = conn.recv(16)
    os._exit(int(reply) if reply.strip() else 1)


def command(path: str) -> str:
    """The ``AGENTLS_MODEL_WORKER_COMMAND`` that starts workers from the zygote at ``path``."""
    return f"{sys.executable} -P {os.path.abspath(__file__)} launch {path}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2])
    elif sys.argv[1:2] == ["launch"]:
        launch(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(f"usage: {sys.argv[0]} serve SOCKET | launch SOCKET [WORKER ARGS]")
