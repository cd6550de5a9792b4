"""HostGate: per-host slots, handed to waiters in order, never lost to a cancellation."""

from __future__ import annotations

import asyncio

from auditor.clock import SystemClock
from auditor.net.host_gate import HostGate
from auditor.net.pacer import Pacer


def _gate(per_host: int) -> HostGate:
    pacer = Pacer(rate=None, backoff_base_s=0.1, max_pause_s=1.0)
    return HostGate(pacer, per_host=per_host, clock=SystemClock())


async def test_at_most_per_host_at_once_and_hosts_are_independent() -> None:
    gate = _gate(2)
    in_flight: dict[str, int] = {"a": 0, "b": 0}
    peak: dict[str, int] = {"a": 0, "b": 0}

    async def request(host: str) -> None:
        await gate.acquire(host)
        try:
            in_flight[host] += 1
            peak[host] = max(peak[host], in_flight[host])
            await asyncio.sleep(0.001)
            in_flight[host] -= 1
        finally:
            gate.release(host)

    await asyncio.gather(*(request(host) for host in "ab" * 20))
    assert peak == {"a": 2, "b": 2}
    assert not gate._hosts  # every host forgotten once idle


async def test_a_freed_slot_goes_to_the_oldest_waiter() -> None:
    gate = _gate(1)
    await gate.acquire("a")
    order: list[int] = []

    async def waiter(n: int) -> None:
        await gate.acquire("a")
        order.append(n)
        gate.release("a")

    tasks = [asyncio.create_task(waiter(n)) for n in range(5)]
    await asyncio.sleep(0)
    gate.release("a")
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2, 3, 4]
    assert not gate._hosts


async def test_a_cancelled_waiter_neither_keeps_nor_loses_a_slot() -> None:
    gate = _gate(1)
    await gate.acquire("a")
    cancelled = asyncio.create_task(gate.acquire("a"))
    second = asyncio.create_task(gate.acquire("a"))
    await asyncio.sleep(0)
    cancelled.cancel()
    await asyncio.sleep(0)
    gate.release("a")  # goes past the cancelled waiter to the second one
    await asyncio.wait_for(second, 1)
    gate.release("a")
    assert not gate._hosts


async def test_a_slot_handed_over_as_the_waiter_is_cancelled_is_passed_on() -> None:
    gate = _gate(1)
    await gate.acquire("a")
    first = asyncio.create_task(gate.acquire("a"))
    second = asyncio.create_task(gate.acquire("a"))
    await asyncio.sleep(0)
    gate.release("a")  # the slot is now `first`'s ...
    first.cancel()  # ... which is cancelled before it runs: the slot must reach `second`
    await asyncio.gather(first, return_exceptions=True)
    assert first.cancelled()
    await asyncio.wait_for(second, 1)
    gate.release("a")
    assert not gate._hosts
