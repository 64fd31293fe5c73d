"""One ``async with`` behaviour for the MCP objects that own something to close."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Self


class ClosedOnExit(ABC):
    """``async with`` gives the object itself and awaits ``aclose()`` on the way out,
    whatever happened inside; a subclass that must start first overrides ``__aenter__``."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release what the object owns; safe to call more than once."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
