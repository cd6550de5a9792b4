"""Open a URL as the auditor reads documents: retries with backoff, redirects hop by hop.

Orchestration over a transport (`auditor.net.transport`: aiohttp or libcurl, the same policy
for both); the decisions are the pure `retry` and `redirects` modules.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from auditor.clock import Clock
from auditor.codes import Code
from auditor.config import Method
from auditor.errors import FetchError, GivenUpError
from auditor.models import AlreadyRead, Finding, Redirect
from auditor.net.host_gate import HostGate
from auditor.net.pacer import MAX_HOSTS
from auditor.net.redirects import is_redirect, next_hop
from auditor.net.remap import NO_REMAP, Remap
from auditor.net.retry import RETRY_STATUSES, backoff_s, retry_after_s
from auditor.net.transport import Response, Timeouts, Transport
from auditor.urls import netloc_of, parse_http_url

log = logging.getLogger(__name__)
# A timeout or a reset before any byte of the answer is worth another try; a DNS miss is not.
RETRY_CODES = frozenset({Code.NET_TIMEOUT, Code.NET_CONNECT})
# No answer at all from the host: what the breaker counts (auditor.net.breaker).
FAILURE_CODES = frozenset({Code.NET_TIMEOUT, Code.NET_CONNECT, Code.NET_DNS})
# Answers by which a host says "too many requests": it slows down for every worker.
THROTTLE_STATUSES = frozenset({429, 503})
# RFC 9110 §15.5.6, §15.6.2: the server does not do HEAD; ask with GET, and keep asking so.
HEAD_REFUSED_STATUSES = frozenset({405, 501})


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """How hard to try one URL."""

    timeouts: Timeouts
    retries: int
    max_redirects: int
    backoff_base_s: float
    max_retry_after_s: float


@dataclass(slots=True)  # not frozen, as models.CheckResult: one per URL checked
class Opened:
    """The final response of a redirect chain, body unread (close it)."""

    response: Response
    redirects: tuple[Redirect, ...]
    final_url: str
    method: Method  # of the final answer: HEAD or GET
    elapsed_s: float  # waiting for the answers used (not for retries, backoff or pacing)


@dataclass(frozen=True, slots=True)
class Refused:
    """The chain stopped: a redirect problem, or a hop the caller refused."""

    reason: Finding | AlreadyRead
    redirects: tuple[Redirect, ...]
    elapsed_s: float


HopCheck = Callable[[str], Finding | AlreadyRead | None]  # next hop's key -> a reason to stop
# Awaited with the next hop's URL before it is opened, when no slot of any host is held: what
# the caller needs of that hop's host (its robots.txt) is fetched then, never while a response
# holds a slot that the fetch may need (a run whose checks all wait so would never end).
BeforeHop = Callable[[str], Awaitable[object]]


class Opener:
    """Opens URLs under one policy, with one clock, one source of jitter and one pacer."""

    def __init__(
        self,
        transport: Transport,
        policy: FetchPolicy,
        *,
        clock: Clock,
        rng: random.Random,
        gate: HostGate,
        hold_slots: bool = False,
        remap: Remap = NO_REMAP,
    ) -> None:
        """Open through `transport`, paced and limited by `gate`.

        `remap`: where each request goes (`--remap`), applied where a URL is handed to the
        transport; everything else (hosts' slots, redirects, findings) is of the URL as named.

        `hold_slots`: keep the host's slot until the response is closed (URL checks, so that
        --per-host counts whole requests); else until its headers arrive (sitemap bodies: their
        readers wait on the check stage, and must not hold the slots the checks need).
        """
        self._transport = transport
        self._policy = policy
        self._clock = clock
        self._rng = rng
        self._gate = gate
        self._hold_slots = hold_slots
        self._remap = remap
        self._head_refused: set[str] = set()  # hosts that answered HEAD with 405 or 501
        self._logged = log.isEnabledFor(logging.INFO)  # -v: every request, once a run

    async def open(
        self,
        url: str,
        *,
        on_hop: HopCheck | None = None,
        before_hop: BeforeHop | None = None,
        method: Method = Method.GET,
        headers: Mapping[str, str] | None = None,
        max_body: int | None = None,
    ) -> Opened | Refused:
        """Follow redirects from `url`; raises FetchError when no answer comes.

        Method.AUTO asks each hop with HEAD, and again with GET when HEAD is refused or the
        answer is an error a GET might not give (servers often mishandle HEAD). `headers` go
        with the request for `url` only: conditional ones are about that URL, not where it leads.
        `max_body`: bytes of a GET's body the caller reads at most (None: all, streamed).
        `before_hop`: awaited with each redirect's target before it is asked (see BeforeHop).
        """
        visited: set[str] = set()  # keys of the chain, made at its first redirect
        chain: list[Redirect] = []
        current = url
        elapsed_s = 0.0
        while True:
            try:
                own = headers if not chain else None
                response, used, waited_s = await self._ask(
                    current, method, headers=own, max_body=max_body
                )
            except FetchError as error:
                if not chain:
                    raise
                # The redirect was followed; where it leads gives no answer.
                problem = error.finding(url=current)
                return Refused(problem, tuple(chain), elapsed_s)
            elapsed_s += waited_s
            if not is_redirect(response.status):
                return Opened(response, tuple(chain), current, used, elapsed_s)
            location = response.headers.get("Location")
            response.close()
            if not chain:
                parsed = parse_http_url(url)
                visited.add(parsed.key if parsed else url)
            chain.append(Redirect(current, response.status))
            hop = next_hop(
                current,
                location,
                visited=visited,
                hops=len(chain) - 1,
                max_redirects=self._policy.max_redirects,
            )
            if isinstance(hop, Finding):
                return Refused(hop, tuple(chain), elapsed_s)
            veto = on_hop(hop.key) if on_hop is not None else None
            if veto is not None:
                return Refused(veto, tuple(chain), elapsed_s)
            visited.add(hop.key)
            current = hop.url
            if before_hop is not None:  # the last answer is closed: no slot is held here
                await before_hop(current)

    async def _ask(
        self,
        url: str,
        method: Method,
        *,
        headers: Mapping[str, str] | None = None,
        max_body: int | None = None,
    ) -> tuple[Response, Method, float]:
        """One hop's answer, the method that gave it, and the seconds it took."""
        if method is Method.AUTO:
            host = netloc_of(url)
            if host not in self._head_refused:
                response, elapsed_s = await self._open_retrying(
                    url, method=Method.HEAD, headers=headers, max_body=0
                )
                if response.status < 400 or response.status == 429:
                    return response, Method.HEAD, elapsed_s
                response.close()
                if response.status in HEAD_REFUSED_STATUSES and len(self._head_refused) < MAX_HOSTS:
                    self._head_refused.add(host)
            method = Method.GET
        if method is Method.HEAD:
            max_body = 0
        response, elapsed_s = await self._open_retrying(
            url, method=method, headers=headers, max_body=max_body
        )
        return response, method, elapsed_s

    async def _open_retrying(
        self,
        url: str,
        *,
        method: Method,
        headers: Mapping[str, str] | None = None,
        max_body: int | None = None,
    ) -> tuple[Response, float]:
        """The answer, after retries and the host's pacing; and how long that answer took."""
        policy, clock, host = self._policy, self._clock, netloc_of(url)
        verb, pacer, breaker = method.value.upper(), self._gate.pacer, self._gate.breaker
        requested = self._requested(url)
        attempt = 0
        tried: FetchError | None = None  # this URL's last failure, once it was requested
        while True:
            asked: float | None = None
            held = False  # the open response holds the slot: closing it releases it
            waited_s = await self._gate.acquire(host)
            try:
                started = clock.monotonic()
                self._refuse_given_up(host, started, tried=tried)
                response = await self._transport.open(
                    requested,
                    timeouts=policy.timeouts,
                    method=verb,
                    headers=headers,
                    max_body=max_body,
                )
                # The transport's own measure where it has one (libcurl's: no hand-over delay).
                elapsed_s = response.elapsed_s
                if elapsed_s is None:
                    elapsed_s = clock.monotonic() - started
            except FetchError as error:
                self._trace(
                    verb, url, _said(error), started=started, tries=attempt, waited_s=waited_s
                )
                if not self._retryable(host, error) or attempt >= policy.retries:
                    raise
                tried = error
            else:
                self._trace(
                    verb, url, response.status, started=started, tries=attempt, waited_s=waited_s
                )
                breaker.answered(host)
                if response.status in THROTTLE_STATUSES:
                    asked = retry_after_s(response.headers.get("Retry-After"), now=clock.now())
                    pacer.throttled(host, clock.monotonic(), retry_after_s=asked)
                else:
                    pacer.answered(host)
                if response.status not in RETRY_STATUSES or attempt >= policy.retries:
                    if self._hold_slots:
                        response.on_close = functools.partial(self._gate.release, host)
                        held = True
                    return response, elapsed_s
                response.close()
            finally:
                if not held:
                    self._gate.release(host)
            await asyncio.sleep(self._pause_s(attempt, asked_s=asked))
            attempt += 1

    def _requested(self, url: str) -> str:
        """Where the request for `url` goes (`--remap`); FetchError when a rule spoils it."""
        if not self._remap:
            return url
        try:
            return self._remap.requested(url)
        except ValueError as exc:
            raise FetchError(Code.LOC_INVALID, str(exc)) from None

    def _pause_s(self, attempt: int, *, asked_s: float | None) -> float:
        """How long to wait before try `attempt + 1` (backoff, or the server's Retry-After)."""
        policy = self._policy
        return backoff_s(
            attempt,
            base_s=policy.backoff_base_s,
            cap_s=policy.max_retry_after_s,
            retry_after=asked_s,
            jitter=self._rng.random(),
        )

    def _trace(
        self,
        verb: str,
        url: str,
        outcome: int | str,
        *,
        started: float,
        tries: int,
        waited_s: float,
    ) -> None:
        """-v: one line a request: its answer or failure, time, try, and wait for the host."""
        if self._logged:
            took_ms = round((self._clock.monotonic() - started) * 1000)
            line = "%s %s -> %s in %d ms (try %d, waited %.2f s for the host)"
            log.info(line, verb, url, outcome, took_ms, tries + 1, waited_s)

    def _refuse_given_up(self, host: str, now: float, *, tried: FetchError | None) -> None:
        """Raise GivenUpError when the breaker gave the host up (and this is no probe).

        `tried`: this URL's own failure, when an earlier try of it was sent.
        """
        given_up = self._gate.breaker.refuse(host, now)
        if given_up is not None:
            code, failures = given_up.code, given_up.failures
            raise GivenUpError(host, code=code, failures=failures, tried=tried)

    def _retryable(self, host: str, error: FetchError) -> bool:
        """Count a failure with no answer for the breaker; whether another try may help."""
        if isinstance(error, GivenUpError):
            return False
        if error.code in FAILURE_CODES:
            self._gate.breaker.failed(host, error.code, self._clock.monotonic())
        return error.code in RETRY_CODES


def _said(error: FetchError) -> str:
    """A failure as -v traces it: its code, and the library's own text where there is one."""
    return f"{error.code} ({error.message}; {error.library})" if error.library else error.code
