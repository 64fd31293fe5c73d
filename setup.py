"""Only what pyproject.toml cannot declare: the C extension of the search's per-hit work, and
a check that the layers are there to be packaged.

``optional``: where no C compiler is available the package still installs and the
search uses the Python reference in ``indexer/lines.py`` (same results, slower).
"""

import importlib.util
import os
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def links_problem() -> str | None:
    """What ``agentls._links`` finds wrong with ``src/agentls/`` (loaded by path: nothing of
    agentls is importable yet)."""
    spec = importlib.util.spec_from_file_location(
        "_agentls_links", os.path.join(HERE, "src", "agentls", "_links.py")
    )
    assert spec is not None and spec.loader is not None
    links = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(links)
    problem: str | None = links.problem(os.path.join(HERE, "src", "agentls"))
    return problem


# A checkout without symbolic links would otherwise give a wheel without agentls.agent,
# agentls.server, ... and no word about it.
_problem = links_problem()
if _problem is not None:
    sys.exit(f"error: {_problem}")

setup(
    ext_modules=[
        Extension(
            "agentls.indexer._lines",
            sources=["src/agentls/indexer/_lines.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
