"""Per-host circuit breaker: a host that only fails at the network level is given up.

After GIVE_UP_AFTER network failures in a row (timeouts, refused or reset connections, names
that do not resolve) with no answer between them, requests to the host fail at once with the
last failure's code; one request per PROBE_INTERVAL_S still goes, and any answer, whatever
its status, brings the host back. A dead host then costs a run GIVE_UP_AFTER timeouts, not one
per URL or sitemap it holds (50,000 children of an index on a black-holed host).
Pure: no I/O; the caller owns the clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.codes import Code

# Failures in a row before a host is given up, at least (HostGate asks for twice --per-host
# when that is more): above the requests to one host that can fail together in one burst, so
# a busy host having a bad moment keeps being asked; any answer in between starts again.
GIVE_UP_AFTER = 20
# A given-up host still gets one request this often: the first answer brings it back.
PROBE_INTERVAL_S = 5.0
# Hosts with failures kept at once (a sitemap may list many dead hosts).
MAX_HOSTS = 10_000


@dataclass(slots=True)
class _Failing:
    count: int  # network failures in a row
    code: Code  # the last one's
    probe_at: float = 0.0  # when a given-up host may be asked again


@dataclass(frozen=True, slots=True)
class GivenUp:
    """Why a request to a host is not sent: its last failure's code, and how many in a row."""

    code: Code
    failures: int


class Breaker:
    """Counts each host's network failures in a row; says which hosts are given up."""

    __slots__ = ("_probe_interval_s", "_threshold", "failing_hosts")

    def __init__(
        self, *, threshold: int = GIVE_UP_AFTER, probe_interval_s: float = PROBE_INTERVAL_S
    ) -> None:
        self._threshold = threshold
        self._probe_interval_s = probe_interval_s
        # Hosts with failures in a row. Empty while every host answers: the hot path tests its
        # truth, never looks up (read it, never change it, from outside).
        self.failing_hosts: dict[str, _Failing] = {}

    @property
    def failing(self) -> bool:
        """Whether some host failed lately (else `refuse` refuses nothing)."""
        return bool(self.failing_hosts)

    def refuse(self, host: str, now: float) -> GivenUp | None:
        """None when a request to `host` may go now (the host's probe included)."""
        if not self.failing_hosts:
            return None
        state = self.failing_hosts.get(host)
        if state is None or state.count < self._threshold:
            return None
        if now >= state.probe_at:
            state.probe_at = now + self._probe_interval_s
            return None
        return GivenUp(state.code, state.count)

    def failed(self, host: str, code: Code, now: float) -> None:
        """A request to `host` got no answer at all (`code`: net.timeout, net.connect, ...)."""
        state = self.failing_hosts.get(host)
        if state is None:
            if len(self.failing_hosts) >= MAX_HOSTS:
                self._forget_below_threshold()
            state = self.failing_hosts[host] = _Failing(0, code)
        state.count += 1
        state.code = code
        if state.count == self._threshold:
            state.probe_at = now + self._probe_interval_s

    def answered(self, host: str) -> None:
        """`host` answered (any status): it is not given up, and its count starts again."""
        if self.failing_hosts:
            self.failing_hosts.pop(host, None)

    def _forget_below_threshold(self) -> None:
        """Make room: hosts not given up go first, then every host (they get asked again)."""
        kept = {h: s for h, s in self.failing_hosts.items() if s.count >= self._threshold}
        self.failing_hosts = kept if len(kept) < MAX_HOSTS else {}
