"""Open a URL as the auditor reads documents: retries with backoff, redirects hop by hop.

Orchestration over the fetch edge; the decisions are the pure `retry` and `redirects` modules.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass

from auditor.clock import Clock
from auditor.codes import Code
from auditor.fetch import FetchError, HttpClient, Response, Timeouts
from auditor.models import AlreadyRead, Finding, Redirect
from auditor.redirects import is_redirect, next_hop
from auditor.retry import RETRY_STATUSES, backoff_s, retry_after_s
from auditor.urls import parse_http_url

# A timeout or a reset before any byte of the answer is worth another try; a DNS miss is not.
RETRY_CODES = frozenset({Code.NET_TIMEOUT, Code.NET_CONNECT})


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """How hard to try one URL."""

    timeouts: Timeouts
    retries: int
    max_redirects: int
    backoff_base_s: float
    max_retry_after_s: float


@dataclass(frozen=True, slots=True)
class Opened:
    """The final response of a redirect chain, body unread (close it)."""

    response: Response
    redirects: tuple[Redirect, ...]
    final_url: str


@dataclass(frozen=True, slots=True)
class Refused:
    """The chain stopped: a redirect problem, or a hop the caller refused."""

    reason: Finding | AlreadyRead
    redirects: tuple[Redirect, ...]


HopCheck = Callable[[str], Finding | AlreadyRead | None]  # next hop's key -> a reason to stop


class Follower:
    """Opens URLs under one policy, with one clock and one source of jitter."""

    def __init__(
        self, client: HttpClient, policy: FetchPolicy, *, clock: Clock, rng: random.Random
    ) -> None:
        self._client = client
        self._policy = policy
        self._clock = clock
        self._rng = rng

    async def open(
        self, url: str, *, on_hop: HopCheck | None = None, method: str = "GET"
    ) -> Opened | Refused:
        """Follow redirects from `url`; raises FetchError when no answer comes."""
        parsed = parse_http_url(url)
        visited = {parsed.key if parsed else url}
        chain: list[Redirect] = []
        current = url
        while True:
            response = await self._open_retrying(current, method=method)
            if not is_redirect(response.status):
                return Opened(response, tuple(chain), current)
            location = response.headers.get("Location")
            response.close()
            chain.append(Redirect(current, response.status))
            hop = next_hop(
                current,
                location,
                visited=visited,
                hops=len(chain) - 1,
                max_redirects=self._policy.max_redirects,
            )
            if isinstance(hop, Finding):
                return Refused(hop, tuple(chain))
            veto = on_hop(hop.key) if on_hop is not None else None
            if veto is not None:
                return Refused(veto, tuple(chain))
            visited.add(hop.key)
            current = hop.url

    async def _open_retrying(self, url: str, *, method: str) -> Response:
        policy = self._policy
        attempt = 0
        while True:
            asked: float | None = None
            try:
                response = await self._client.open(url, timeouts=policy.timeouts, method=method)
            except FetchError as error:
                if attempt >= policy.retries or error.code not in RETRY_CODES:
                    raise
            else:
                if response.status not in RETRY_STATUSES or attempt >= policy.retries:
                    return response
                asked = retry_after_s(response.headers.get("Retry-After"), now=self._clock.now())
                response.close()
            delay = backoff_s(
                attempt,
                base_s=policy.backoff_base_s,
                cap_s=policy.max_retry_after_s,
                retry_after=asked,
                jitter=self._rng.random(),
            )
            await asyncio.sleep(delay)
            attempt += 1
