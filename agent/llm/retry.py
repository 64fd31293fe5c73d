"""Exponential backoff with full jitter, for transient model errors only."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RetryPolicy:
    """How long to wait before retry ``n`` (0-based).

    Full jitter (a uniform draw between zero and the exponential ceiling) keeps several
    agents that hit the same rate limit from retrying in lockstep.
    """

    base_delay: float = 0.5
    max_delay: float = 20.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        ceiling = min(self.max_delay, self.base_delay * (2**retry))
        wait = self.rng.uniform(0.0, ceiling)
        if retry_after is not None and retry_after > 0:
            # The provider said when it will take us back; never wait past our own cap.
            wait = max(wait, min(retry_after, self.max_delay))
        return wait
