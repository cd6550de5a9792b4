"""Per-host politeness at run time: `per_host` slots per host, each request paced.

At most `per_host` requests to a host at once, each started only when the pacer allows
(DESIGN §2 --per-host, --rate; the slow-down after 429/503).

The slot is taken before the pacer is asked, so a request already waiting for a slot still
sees a pause that a 429 set meanwhile. aiohttp's connector keeps the same limit as a backstop.
"""

from __future__ import annotations

import asyncio

from auditor.clock import Clock
from auditor.pacing import Pacer


class HostGate:
    """Slots and pacing per host, shared by every request of a run."""

    def __init__(self, pacer: Pacer, *, per_host: int, clock: Clock) -> None:
        self.pacer = pacer
        self._per_host = per_host
        self._clock = clock
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._users: dict[str, int] = {}  # holders and waiters: a host's entry goes with the last

    async def acquire(self, host: str) -> None:
        """Take one of the host's slots, then wait as long as the pacer says; `release` after."""
        slots = self._slots.get(host)
        if slots is None:
            slots = self._slots[host] = asyncio.Semaphore(self._per_host)
        self._users[host] = self._users.get(host, 0) + 1
        try:
            await slots.acquire()
        except BaseException:
            self._leave(host)
            raise
        try:
            wait_s = self.pacer.reserve(host, self._clock.monotonic())
            if wait_s > 0:
                await asyncio.sleep(wait_s)
        except BaseException:
            self.release(host)
            raise

    def release(self, host: str) -> None:
        """Give back the slot `acquire` took."""
        self._slots[host].release()
        self._leave(host)

    def _leave(self, host: str) -> None:
        self._users[host] -= 1
        if not self._users[host]:
            del self._users[host], self._slots[host]
