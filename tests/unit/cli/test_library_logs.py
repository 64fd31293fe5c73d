"""The CLI's terminal gets agentls's warnings and anyone's errors, not the libraries'
warnings; and ``agentls --version``."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from agentls import __version__


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_librarys_warning_stays_off_the_terminal_and_ours_and_errors_reach_it() -> None:
    done = run_python(
        """
        import logging
        from agentls.cli.library_logs import quiet_library_logs

        quiet_library_logs()
        logging.getLogger("pygls.protocol").warning("Ignoring notification for x")
        logging.getLogger("httpx").info("a request")
        logging.getLogger("agentls.agent.llm.adapter").warning("model call failed, retrying")
        logging.getLogger("pygls.protocol").error("the server died")
        logging.getLogger("agentlsx").warning("not ours either")
        """
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == ["model call failed, retrying", "the server died"]


def test_logging_set_up_elsewhere_is_left_alone() -> None:
    done = run_python(
        """
        import logging
        logging.basicConfig(format="%(name)s %(message)s", level=logging.INFO)
        from agentls.cli.library_logs import quiet_library_logs

        quiet_library_logs()
        logging.getLogger("httpx").info("a request")
        """
    )

    assert done.stderr.strip() == "httpx a request"


def test_version() -> None:
    for flag in ("--version", "-V"):
        done = subprocess.run(
            [sys.executable, "-P", "-m", "agentls", flag],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"agentls {__version__}"
