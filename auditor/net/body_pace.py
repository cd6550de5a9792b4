"""A floor under a body's pace: a body slower than 1 KiB/s, over each `--timeout`, ends there.

A body that trickles (a byte a second) never falls silent, so no idle timeout ends it, and a
whole-download timeout (`--sitemap-timeout`, 300 s) holds the run that long. Each window of
`window_s` seconds must bring FLOOR_BYTES_PER_S x window_s bytes; a window that does starts
the next one, and one that does not ends the body as `net.timeout` (detail `kind: too_slow`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from auditor.clock import Clock
from auditor.codes import Code
from auditor.errors import FetchError

FLOOR_BYTES_PER_S = 1024

Read = Callable[[], Awaitable[bytes]]


class PaceFloor:
    """Bytes against time for one body, window by window. Pure: the caller owns the clock."""

    __slots__ = ("_due", "_got", "_start", "_window_s")

    def __init__(self, *, window_s: float, start: float) -> None:
        self._window_s = window_s
        self._due = FLOOR_BYTES_PER_S * window_s
        self._start = start
        self._got = 0

    @property
    def deadline(self) -> float:
        """When the current window ends: its bytes must have come by then."""
        return self._start + self._window_s

    def add(self, count: int, now: float) -> None:
        """`count` bytes came at `now`; a window's worth starts a new window."""
        self._got += count
        if self._got >= self._due:
            self._start, self._got = now, 0


def floored(read: Read, *, window_s: float, clock: Clock) -> Read:
    """`read`, raising FetchError(net.timeout, kind too_slow) once the body is below the floor."""
    pace = PaceFloor(window_s=window_s, start=clock.monotonic())

    async def read_paced() -> bytes:
        left_s = max(0.0, pace.deadline - clock.monotonic())
        try:
            async with asyncio.timeout(left_s):
                chunk = await read()
        except TimeoutError:
            message = f"Body slower than {FLOOR_BYTES_PER_S} bytes/s over {window_s:g} s"
            raise FetchError(Code.NET_TIMEOUT, message, kind="too_slow") from None
        pace.add(len(chunk), clock.monotonic())
        return chunk

    return read_paced
