"""A run that stops moving ends, and says what it waited for: never a hang.

A healthy run moves (a request starts or ends, the sink counts a record) at least once in the
longest pause it may take on purpose: a request's `--timeout`, a Retry-After pause, the gap
`--rate` or a throttled host's pacing sets. A run that does not move in STALL_FACTOR times that
is stuck (a check waiting for a slot only itself could free, say): the watchdog stops it, and
the run ends INCOMPLETE with exit 3 and its report written, rather than waiting for ever.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from auditor.clock import Clock
from auditor.config import AuditConfig
from auditor.net.pacer import MAX_GAP_S

log = logging.getLogger(__name__)
STALL_FACTOR = 5
_HOSTS_SAID = 3


class Stalled(Exception):  # noqa: N818 - a state, as asyncio's CancelledError
    """The run did not move for a whole window; the message says what it waited for."""


def stall_window_s(config: AuditConfig) -> float:
    """How long a run may stand still before it is stuck (`stall_s` overrides, for tests)."""
    if config.stall_s is not None:
        return config.stall_s
    pauses = [config.timeout_s, config.max_retry_after_s, MAX_GAP_S]
    if config.rate:
        pauses.append(1.0 / config.rate)
    return STALL_FACTOR * max(pauses)


def waits_text(rows: list[tuple[str, int, int]]) -> str:
    """`127.0.0.1:8080 (8 in flight, 32 waiting)`: the hosts the run waits on. Pure."""
    if not rows:
        return "no request in flight"
    said = [f"{host} ({busy} in flight, {queued} waiting)" for host, busy, queued in rows]
    more = len(said) - _HOSTS_SAID
    return ", ".join(said[:_HOSTS_SAID]) + (f" and {more} more hosts" if more > 0 else "")


async def watch(
    moves: Callable[[], int],
    *,
    window_s: float,
    clock: Clock,
    waits: Callable[[], str],
) -> None:
    """Raise Stalled once `moves()` stood still for `window_s` seconds; else run until cancelled.

    Looks a few times a window, so that a stall is caught within a fifth of a window of it.
    """
    seen, since = moves(), clock.monotonic()
    while True:
        await asyncio.sleep(window_s / STALL_FACTOR)
        now, moved = clock.monotonic(), moves()
        if moved != seen:
            seen, since = moved, now
        elif now - since >= window_s:
            said = f"no progress for {now - since:.0f} s; waiting for {waits()}"
            log.error("the run is stuck: %s", said)
            raise Stalled(said)
