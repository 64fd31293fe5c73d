"""Only what pyproject.toml cannot declare: the C extension of the search's per-hit work.

``optional``: where no C compiler is available the package still installs and the
search uses the Python reference in ``indexer/lines.py`` (same results, slower).
"""

from setuptools import Extension, setup

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
