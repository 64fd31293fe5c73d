"""The settings an untrusted folder may move only towards a cheaper run, and which way that is.

A repository describes itself through ``indexer``, ``context`` and ``diagnostics``: what to
index, how much context to keep, how problems are reported. The same keys decide how many
tokens every request carries, how much memory the server holds and how long a run waits, so
a folder the user has not trusted may only lower them below what the user (or the default)
chose. Every key of those sections is listed here with the way it may move, so a key added
to one of them later is refused from an untrusted folder until it is listed.

Keys where 0 means "no limit" count 0 as the highest value: ``max_context_tokens: 0`` is
a raise, not a cut. The steps of ``agents`` (``max_steps``, ``command_timeout``) are judged
with the rest of an agent's reach (``agent.config.agent_bounds``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

#: Why a value would make the run dearer than ``current``, or None when it may stay.
Rule = Callable[[Any, Any], "str | None"]


def at_most(value: Any, current: Any) -> str | None:
    """A size or a wait: the folder may make it smaller."""
    return None if value <= current else f"{value} is more than {current}"


def at_most_unbounded_zero(value: Any, current: Any) -> str | None:
    """A limit where 0 means none: 0 is the highest value there is."""
    if current == 0 or (value != 0 and value <= current):
        return None
    shown = "0 (no limit)" if value == 0 else str(value)
    return f"{shown} is more than {current}"


def off_only(value: Any, current: Any) -> str | None:
    """Work the user may have turned off: the folder may turn it off, not on."""
    return None if value is False or current is True else "would turn it on"


def no_more_often(value: Any, current: Any) -> str | None:
    """``summarize_after_steps``: each summary is a model call, 0 means never by count."""
    if value == 0 or (current != 0 and value >= current):
        return None
    now = "never" if current == 0 else f"every {current}"
    return f"a summary every {value} steps instead of {now}"


def free(value: Any, current: Any) -> str | None:
    """Neither way costs the user more (``parallel_tools``, ``use_cache``)."""
    return None


#: Lists the folder's entries are added to, never replace: excluding more is cheaper,
#: and dropping one of the user's excludes would index more.
ADDED_LISTS = frozenset({("indexer", "exclude_dirs"), ("indexer", "exclude_patterns")})

#: Every key of the sections an untrusted folder may set, with the way it may move.
#: ``diagnostics.servers`` is missing on purpose: which programs start is not a cost.
RULES: dict[tuple[str, str], Rule] = {
    ("indexer", "enabled"): off_only,
    ("indexer", "max_file_size"): at_most,
    ("indexer", "use_cache"): free,
    ("indexer", "hold_text"): off_only,
    ("indexer", "max_text_bytes"): at_most,
    ("indexer", "map_tokens"): at_most,
    ("indexer", "symbols_idle_seconds"): at_most_unbounded_zero,
    ("context", "max_tool_result_tokens"): at_most_unbounded_zero,
    ("context", "summarize_after_steps"): no_more_often,
    ("context", "keep_recent_steps"): at_most,
    ("context", "max_context_tokens"): at_most_unbounded_zero,
    ("context", "compact_at"): at_most_unbounded_zero,
    ("context", "compact_to"): at_most_unbounded_zero,
    ("context", "parallel_tools"): free,
    ("context", "instructions_bytes"): at_most,
    ("diagnostics", "enabled"): off_only,
    ("diagnostics", "wait_ms"): at_most,
    ("diagnostics", "max_problems"): at_most,
}

#: The sections whose keys ``RULES`` (and ``ADDED_LISTS``) cover.
SECTIONS = frozenset(section for section, _ in RULES)


def bound_section(
    section: str, value: Any, current: BaseModel, ignored: list[str]
) -> dict[str, Any]:
    """What of ``section: value`` (from an untrusted folder) applies over ``current`` (the
    section as the user's layers set it); each key that would raise a cost is left out and
    named in ``ignored`` with why."""
    kept: dict[str, Any] = {}
    # Read as the model reads them ("10" is 10), over the user's values for what is unset.
    typed = type(current).model_validate({**current.model_dump(), **value})
    for key in value:
        where = f"{section}.{key}"
        # The workspace file was validated: every key is a field of the section.
        wanted: Any = getattr(typed, str(key))
        have: Any = getattr(current, str(key))
        if (section, key) in ADDED_LISTS:
            kept[key] = [*have, *(item for item in wanted if item not in have)]
            continue
        rule = RULES.get((section, str(key)))
        why = "not settable by an untrusted folder" if rule is None else rule(wanted, have)
        if why is None:
            kept[key] = value[key]
        else:
            ignored.append(f"{where} ({why})")
    return kept
