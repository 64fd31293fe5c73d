"""Which patch format ``apply_patch``'s description leads with (a module of its own so
that the tool list can say it without importing the patch machinery)."""

from __future__ import annotations

import re
from typing import Literal

PatchFormat = Literal["unified", "v4a"]

# Model families trained on V4A patches (OpenAI's prompting guides and Codex).
_V4A_MODELS = re.compile(r"^(gpt-4\.1|gpt-5|o\d|codex)", re.IGNORECASE)


def lead_patch_format(setting: str, model: str) -> PatchFormat:
    """The format apply_patch's description leads with: the setting, or for ``auto`` the
    one the model family was trained on (``openai/gpt-5-mini`` → V4A)."""
    if setting in ("unified", "v4a"):
        return setting  # type: ignore[return-value]
    name = model.rsplit("/", 1)[-1]
    return "v4a" if _V4A_MODELS.match(name) else "unified"
