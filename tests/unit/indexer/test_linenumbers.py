"""Line numbers from memoised newline checkpoints equal a plain count."""

from __future__ import annotations

import random

from agentls.indexer.linenumbers import BLOCK, MIN_SIZE, LineNumbers


def test_line_of_equals_counting_from_the_top() -> None:
    rng = random.Random(7)
    data = b"".join(b"x" * rng.randrange(0, 300) + b"\n" for _ in range(3 * MIN_SIZE // 100))
    assert len(data) >= MIN_SIZE
    numbers = LineNumbers()
    offsets = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, len(data) - 1, len(data)]
    offsets += [rng.randrange(0, len(data) + 1) for _ in range(200)]
    for offset in offsets:
        assert numbers.line_of(data, offset) == data.count(b"\n", 0, offset) + 1
    small = b"a\nb\nc"
    assert numbers.line_of(small, 4) == 3


def test_memo_is_bounded_by_bytes_and_never_confuses_files() -> None:
    numbers = LineNumbers(max_bytes=3 * MIN_SIZE)
    files = [bytes([65 + i]) * (MIN_SIZE - 1) + b"\n" * (i + 1) for i in range(5)]
    for data in files:
        numbers.line_of(data, len(data))
    assert numbers._bytes <= 3 * MIN_SIZE
    assert len(numbers._memo) == 2  # the oldest were dropped
    for i, data in enumerate(files):  # evicted or not, the answer is right
        assert numbers.line_of(data, len(data)) == i + 2
