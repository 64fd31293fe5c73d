"""Argument models of the file and edit tools.

Each model's JSON schema is exactly what the model sees; ``extra="forbid"`` so an
argument the tool does not take is an error the model is told about.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadFileArgs(_Args):
    path: str = Field(description="File path relative to the workspace root.")


class WriteFileArgs(_Args):
    path: str = Field(description="File path relative to the workspace root.")
    content: str = Field(description="The text to write.")
    mode: Literal["overwrite", "append"] = Field(
        "overwrite", description="`overwrite` replaces the file; `append` adds to its end."
    )


class DeleteFileArgs(_Args):
    path: str = Field(description="File path relative to the workspace root.")


class ListFilesArgs(_Args):
    path: str = Field(".", description="Directory relative to the workspace root.")
    pattern: str | None = Field(None, description="Glob on file names, e.g. `*.py`.")
    recursive: bool = Field(False, description="Descend into subdirectories.")


class EditFileArgs(_Args):
    path: str = Field(description="File to modify, relative to the workspace root.")
    old_str: str = Field(
        description="Exact text to replace; must occur exactly once in the file "
        "(include surrounding lines to make it unique)."
    )
    new_str: str = Field(description="Replacement text.")


class ApplyPatchArgs(_Args):
    patch: str = Field(
        description="The patch: V4A (`*** Begin Patch` ... `*** End Patch`) or a unified "
        "diff (--- a/f, +++ b/f, @@ hunks)."
    )
    path: str | None = Field(
        None,
        description="The file a unified diff without ---/+++ headers modifies; not needed "
        "when the patch names its files.",
    )
