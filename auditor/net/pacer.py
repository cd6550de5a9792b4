"""Per-host politeness: `--rate` as a token bucket, and a host-wide slow-down on 429 and 503.

Every request to a host first asks `reserve()` how long to wait; a 429 or 503 answer calls
`throttled()`, which pauses that host for every worker and widens the gap between its
requests; answers that are fine narrow it again (multiplicative increase and decrease).
Pure: no I/O; the caller owns the clock and the sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass

# The smallest gap a throttled host gets, and the largest: a host that keeps answering 429
# is asked at most once per MAX_GAP_S by this run.
MIN_GAP_S = 0.05
MAX_GAP_S = 10.0
# Each answer that is fine shrinks the adaptive gap by this factor, until it is gone.
_RELAX = 0.9
# Hosts with state kept at once; idle ones are forgotten first (a sitemap may list many hosts).
MAX_HOSTS = 10_000


@dataclass(slots=True)
class _Host:
    next_at: float = 0.0  # earliest start of the next request (a bucket of one token)
    paused_until: float = 0.0
    gap_s: float = 0.0  # adaptive gap, added by throttles
    strikes: int = 0  # throttles in a row, for the pause's exponential growth


class Pacer:
    """Decides when each request to a host may start."""

    def __init__(self, *, rate: float | None, backoff_base_s: float, max_pause_s: float) -> None:
        self.interval_s = 1.0 / rate if rate else 0.0  # read, never change, from outside
        self._backoff_base_s = backoff_base_s
        self._max_pause_s = max_pause_s
        self.hosts: dict[str, _Host] = {}  # hosts with a pace of their own (read from outside)

    def paces(self, host: str) -> bool:
        """Whether `reserve` may ask requests to `host` to wait (a rate, or a throttle)."""
        return bool(self.interval_s) or host in self.hosts

    def reserve(self, host: str, now: float) -> float:
        """Seconds to wait before a request to `host` may start; the slot is then taken."""
        state = self.hosts.get(host)
        if state is None:
            if not self.interval_s:
                return 0.0  # no rate and never throttled: nothing to keep
            state = self._new(host, now)
        start = max(now, state.next_at, state.paused_until)
        state.next_at = start + max(self.interval_s, state.gap_s)
        return start - now

    def throttled(self, host: str, now: float, *, retry_after_s: float | None) -> float:
        """The host answered 429 or 503: pause it for everyone; the pause in seconds."""
        state = self.hosts.get(host) or self._new(host, now)
        state.strikes += 1
        state.gap_s = min(MAX_GAP_S, max(MIN_GAP_S, state.gap_s * 2))
        if retry_after_s is not None:  # RFC 9110 §10.2.3: the server said how long
            pause = min(retry_after_s, self._max_pause_s)
        else:
            pause = min(self._max_pause_s, self._backoff_base_s * 2.0 ** (state.strikes - 1))
        state.paused_until = max(state.paused_until, now + pause)
        return pause

    def answered(self, host: str) -> None:
        """The host answered without asking us to slow down."""
        state = self.hosts.get(host)
        if state is None or not (state.strikes or state.gap_s):
            return
        state.strikes = 0
        state.gap_s = state.gap_s * _RELAX if state.gap_s * _RELAX >= MIN_GAP_S else 0.0

    def gap_s(self, host: str) -> float:
        """The current gap between requests to `host` (for reports and tests)."""
        state = self.hosts.get(host)
        return max(self.interval_s, state.gap_s) if state else self.interval_s

    def _new(self, host: str, now: float) -> _Host:
        if len(self.hosts) >= MAX_HOSTS:
            self._forget_idle(now)
        state = self.hosts[host] = _Host()
        return state

    def _forget_idle(self, now: float) -> None:
        """Drop hosts with nothing pending: their next request may start at once anyway."""
        idle = [
            host
            for host, state in self.hosts.items()
            if state.next_at <= now and state.paused_until <= now and not state.gap_s
        ]
        for host in idle:
            del self.hosts[host]
