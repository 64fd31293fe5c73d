"""File extension (or well-known file name) to language name."""

from __future__ import annotations

import sys

_BY_EXT: dict[str, str] = {
    ".py": "Python",
    ".pyi": "Python",
    ".pyx": "Cython",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".jsx": "JavaScript",
    ".ts": "TypeScript",
    ".mts": "TypeScript",
    ".cts": "TypeScript",
    ".tsx": "TypeScript",
    ".java": "Java",
    ".kt": "Kotlin",
    ".kts": "Kotlin",
    ".scala": "Scala",
    ".go": "Go",
    ".rs": "Rust",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".cxx": "C++",
    ".hpp": "C++",
    ".hh": "C++",
    ".cs": "C#",
    ".rb": "Ruby",
    ".php": "PHP",
    ".swift": "Swift",
    ".m": "Objective-C",
    ".lua": "Lua",
    ".pl": "Perl",
    ".r": "R",
    ".jl": "Julia",
    ".dart": "Dart",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".erl": "Erlang",
    ".hs": "Haskell",
    ".ml": "OCaml",
    ".clj": "Clojure",
    ".el": "Emacs Lisp",
    ".vim": "Vim script",
    ".sh": "Shell",
    ".bash": "Shell",
    ".zsh": "Shell",
    ".fish": "Shell",
    ".ps1": "PowerShell",
    ".bat": "Batch",
    ".sql": "SQL",
    ".html": "HTML",
    ".htm": "HTML",
    ".css": "CSS",
    ".scss": "SCSS",
    ".sass": "Sass",
    ".less": "Less",
    ".vue": "Vue",
    ".svelte": "Svelte",
    ".json": "JSON",
    ".jsonc": "JSON",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".toml": "TOML",
    ".ini": "INI",
    ".cfg": "INI",
    ".xml": "XML",
    ".md": "Markdown",
    ".markdown": "Markdown",
    ".rst": "reStructuredText",
    ".txt": "Text",
    ".tex": "TeX",
    ".proto": "Protocol Buffers",
    ".graphql": "GraphQL",
    ".tf": "Terraform",
    ".nix": "Nix",
    ".zig": "Zig",
    ".csv": "CSV",
}

_BY_NAME: dict[str, str] = {
    "Makefile": "Makefile",
    "GNUmakefile": "Makefile",
    "Dockerfile": "Dockerfile",
    "CMakeLists.txt": "CMake",
    "Jenkinsfile": "Groovy",
    "Rakefile": "Ruby",
    "Gemfile": "Ruby",
}

OTHER = "Other"


def split_ext(name: str) -> str:
    """The lower-cased extension of a file name (``""`` for dot-files and no extension).

    Interned: a few dozen extensions are shared by tens of thousands of indexed files,
    which would otherwise hold a string each (~2.6 MB on 50k files)."""
    dot = name.rfind(".")
    if dot <= 0:
        return ""
    return sys.intern(name[dot:].lower())


def language_of(name: str, ext: str) -> str:
    """The language of a file from its base name and extension; ``Other`` when unknown."""
    return _BY_NAME.get(name) or _BY_EXT.get(ext, OTHER)
