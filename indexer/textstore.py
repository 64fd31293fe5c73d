"""The text of indexed files, held once as bytes, under a memory cap."""

from __future__ import annotations


class TextStore:
    """Path → file bytes. Past ``max_bytes`` further files are refused (searched on disk)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.total_bytes = 0
        self._data: dict[str, bytes] = {}

    def put(self, path: str, data: bytes) -> bool:
        """Hold ``data`` for ``path``; False (and nothing held) when over the cap."""
        self.discard(path)
        if self.total_bytes + len(data) > self.max_bytes:
            return False
        self._data[path] = data
        self.total_bytes += len(data)
        return True

    def put_many(self, paths: list[str], datas: list[bytes]) -> None:
        """``put`` for each pair, in order; in one step when the store is empty and all fit."""
        size = sum(map(len, datas))
        if not self._data and size <= self.max_bytes:
            self._data.update(zip(paths, datas, strict=True))
            self.total_bytes += size
            return
        for path, data in zip(paths, datas, strict=True):
            self.put(path, data)

    def get(self, path: str) -> bytes | None:
        return self._data.get(path)

    def discard(self, path: str) -> None:
        old = self._data.pop(path, None)
        if old is not None:
            self.total_bytes -= len(old)

    def clear(self) -> None:
        self._data.clear()
        self.total_bytes = 0

    def __contains__(self, path: object) -> bool:
        return path in self._data

    def __len__(self) -> int:
        return len(self._data)
