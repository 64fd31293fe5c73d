"""Edits never write the mask back over a secret.

The model reads files through the outward pass (``agent.secrets``): a key in ``.env`` or a
password in a database URL reaches it as ``***``. An edit it then makes from that text
(``write_file`` with the whole file, an ``edit_file`` or a patch that rewrites the line)
would replace the user's secret with ``***``. So a change is refused, with a message the
model can act on, when the file it changes holds something the pass masks and the new
text has more ``***`` than the file had: the model can only have copied them from what it
was shown. Edits around a secret (other lines, the rest of the line quoted without the
secret) go through: the file's real bytes are never in the model's hands, and they are
never changed by what it did not see.

The price: adding a literal ``***`` (Markdown's rule, say) to a file that holds a secret is
refused too; the message says so, and the user can make that edit.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentls.agent.errors import AgentError
from agentls.agent.secrets import MASK, Masker
from agentls.agent.workspace import FileChange


class MaskedSecretEdit(AgentError):
    """A change would write the mask over a secret the model was shown masked."""


def check_no_mask_written(changes: Sequence[FileChange], masker: Masker | None = None) -> None:
    """Raise ``MaskedSecretEdit`` when a change would put ``***`` where its file holds a
    secret (see the module's docstring)."""
    masker = masker or Masker.current()
    for change in changes:
        base, new = change.base_text, change.new_text
        if base is None or new is None or new.count(MASK) <= base.count(MASK):
            continue
        if masker.hides_secret(base):
            raise MaskedSecretEdit(
                f"Not changed: {change.path} holds a secret (a key, a token, a password) "
                f"that you were shown as `{MASK}`, and this edit would write `{MASK}` into "
                "the file in its place. Nothing was written. Change only the text around "
                f"the secret: quote lines without `{MASK}` in them, and do not rewrite the "
                "whole file. If the file really needs a literal "
                f"`{MASK}`, ask the user to add it."
            )


def masked_hint(text_quoted: str, file_text: str, masker: Masker | None = None) -> str:
    """A sentence for a "text not found" error when the model quoted ``***`` from a file
    whose secret it was shown masked; empty otherwise."""
    if MASK not in text_quoted:
        return ""
    if not (masker or Masker.current()).hides_secret(file_text):
        return ""
    return (
        f" The file holds a secret you were shown as `{MASK}`: the file itself does not "
        f"contain `{MASK}` there. Quote only text without `{MASK}` (the lines or the part of "
        "the line around the secret)."
    )
