"""Per-host politeness at run time: `per_host` slots per host, each request paced.

At most `per_host` requests to a host at once, each started only when the pacer allows
(docs/reference/options.md#politeness: --per-host, --rate; the slow-down after 429/503); the breaker
gives up hosts that only fail (`auditor.net.breaker`).

The slot is taken before the pacer is asked, so a request already waiting for a slot still
sees a pause that a 429 set meanwhile. aiohttp's connector keeps the same limit as a backstop.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from auditor.clock import Clock
from auditor.net.breaker import GIVE_UP_AFTER, Breaker
from auditor.net.pacer import Pacer

log = logging.getLogger(__name__)


class _Slots:
    """One host's requests in flight, and the requests waiting for one of its slots."""

    __slots__ = ("busy", "waiters")

    def __init__(self) -> None:
        self.busy = 0
        self.waiters: deque[asyncio.Future[None]] = deque()


class HostGate:
    """Slots and pacing per host, shared by every request of a run.

    Its own slot counter rather than one asyncio.Semaphore per host: taking a free slot is a
    dict look-up and an increment, once per request (the semaphore's costs several calls).
    A freed slot goes straight to the oldest waiter, so waiters are served in order.
    """

    def __init__(self, pacer: Pacer, *, per_host: int, clock: Clock) -> None:
        self.pacer = pacer
        # Twice the slots: every request in flight failing at once, retried, is no reason.
        self.breaker = Breaker(threshold=max(GIVE_UP_AFTER, 2 * per_host))
        self._per_host = per_host
        self._clock = clock
        self._hosts: dict[str, _Slots] = {}  # a host's entry goes when its last slot is freed
        # Slots taken and given back so far: a run whose count stands still is not moving
        # (auditor.processes.watchdog).
        self.moves = 0

    async def acquire(self, host: str) -> float:
        """Take one of the host's slots, then wait as long as the pacer says; `release` after.

        Returns the seconds waited, for a slot and for the pacer (0.0 when none).
        """
        slots = self._hosts.get(host)
        if slots is None:
            slots = self._hosts[host] = _Slots()
        waited_s = 0.0
        if slots.busy < self._per_host and not slots.waiters:
            slots.busy += 1
        else:
            log.debug("waiting for a slot of %s (%d in flight, %d waiting)", host, slots.busy,
                      len(slots.waiters))  # fmt: skip
            began = self._clock.monotonic()
            await self._wait_for_slot(host, slots)
            waited_s = self._clock.monotonic() - began
        self.moves += 1
        try:
            wait_s = self.pacer.reserve(host, self._clock.monotonic())
            if wait_s > 0:
                await asyncio.sleep(wait_s)
                waited_s += wait_s
        except BaseException:
            self.release(host)
            raise
        return waited_s

    def waiting(self) -> list[tuple[str, int, int]]:
        """(host, requests in flight, requests waiting for a slot), busiest hosts first."""
        rows = [(host, slots.busy, len(slots.waiters)) for host, slots in self._hosts.items()]
        return sorted(rows, key=lambda row: (-row[2], -row[1], row[0]))

    async def _wait_for_slot(self, host: str, slots: _Slots) -> None:
        waiter = asyncio.get_running_loop().create_future()
        slots.waiters.append(waiter)
        try:
            await waiter  # `release` hands its slot over: `busy` stays as it is
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.release(host)  # the slot came as we were cancelled: pass it on
            else:
                if waiter in slots.waiters:  # `release` may have dropped it already
                    slots.waiters.remove(waiter)
                self._forget_if_idle(host, slots)
            raise

    def release(self, host: str) -> None:
        """Give back the slot `acquire` took: to the oldest waiter, if any."""
        self.moves += 1
        slots = self._hosts[host]
        while slots.waiters:
            waiter = slots.waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        slots.busy -= 1
        self._forget_if_idle(host, slots)

    def _forget_if_idle(self, host: str, slots: _Slots) -> None:
        if not slots.busy and not slots.waiters and self._hosts.get(host) is slots:
            del self._hosts[host]
