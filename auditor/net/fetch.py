"""One URL opened under the run's policy, step by step in the loop: no task, no future per URL.

Retries with backoff, HEAD then GET (`--method auto`), redirects hop by hop, the per-host gate,
the pacer and the breaker, written once for every transport (auditor.net.transport). Each step
is a callback: a free slot, the pacer's pause, the transport's answer, a backoff, the next hop.
The decisions are the pure `retry`, `redirects`, `pacer` and `breaker` modules. URL checks
(auditor.checks.engine) read buffered Answers; documents (auditor.net.opener) stream.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, cast

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
from auditor.net.transport import Answer, Began, Done, Response, Timeouts, Transport
from auditor.urls import netloc_of, parse_http_url

# -v logs every request under this name (docs/reference/options.md, `--verbose`).
log = logging.getLogger("auditor.net.opener")
# A timeout or a reset before any byte of the answer is worth another try; a DNS miss is not.
RETRY_CODES = frozenset({Code.NET_TIMEOUT, Code.NET_CONNECT})
# No answer at all from the host: what the breaker counts (auditor.net.breaker).
FAILURE_CODES = frozenset({Code.NET_TIMEOUT, Code.NET_CONNECT, Code.NET_DNS})
# Answers by which a host says "too many requests": it slows down for every request.
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


class Reply(Protocol):
    """What the policy reads of an answer: a buffered Answer or a streamed Response."""

    @property
    def status(self) -> int: ...

    @property
    def elapsed_s(self) -> float | None: ...

    def get(self, name: str) -> str | None:
        """A header's first value (lower-case name)."""

    def close(self) -> None:
        """Let it go."""


R = TypeVar("R", Answer, Response)
HopCheck = Callable[[str], Finding | AlreadyRead | None]  # next hop's key -> a reason to stop
# Called with the next hop's URL before it is opened, when no slot of any host is held, and
# with what to call once ready: what the caller needs of that hop's host (its robots.txt) is
# learnt then, never while a response holds a slot that learning it may need (a run whose
# checks all waited so would never end).
BeforeHop = Callable[[str, Callable[[], None]], None]


@dataclass(slots=True)
class Requests:
    """What every fetch of a run (or of one policy) shares: transport, gate, clock, jitter."""

    transport: Transport
    policy: FetchPolicy
    gate: HostGate
    clock: Clock
    rng: random.Random
    # Where each request goes (`--remap`), applied where a URL is handed to the transport;
    # everything else (hosts' slots, redirects, findings) is of the URL as named.
    remap: Remap = NO_REMAP
    head_refused: set[str] = field(default_factory=set)  # hosts that answered HEAD 405 or 501
    logged: bool = field(default_factory=lambda: log.isEnabledFor(logging.INFO))  # -v, once


class Fetch(Generic[R]):
    """One URL's requests, from the first to its final answer; `then` hears how it ended.

    Ended: `reply` is the final answer (not a redirect: the caller reads and closes it), or
    `refused` says why the chain stopped (a redirect problem, a hop vetoed, a hop without an
    answer), or `error` why the first request got no answer at all.
    """

    __slots__ = (
        "_before_hop", "_headers", "_host", "_max_body", "_on_hop", "_started", "_then",
        "_tried", "_verb", "_visited", "attempt", "chain", "elapsed_s", "error", "method",
        "refused", "reply", "requests", "stream", "url", "used", "waited_s",
    )  # fmt: skip

    def __init__(
        self,
        requests: Requests,
        url: str,
        then: Callable[[Fetch[R]], None],
        *,
        method: Method = Method.GET,
        headers: Mapping[str, str] | None = None,
        max_body: int = 0,
        stream: bool = False,
        on_hop: HopCheck | None = None,
        before_hop: BeforeHop | None = None,
    ) -> None:
        """`headers` go with the request for `url` only (conditional ones are about it).

        `stream`: the answer is a streamed Response (documents); else an Answer with at most
        `max_body` bytes of a GET's body.
        """
        self.requests = requests
        self.url = url  # the hop being asked
        self._then: Callable[[Fetch[R]], None] = then
        self.method = method
        self._headers = headers
        self._max_body = max_body
        self.stream = stream
        self._on_hop = on_hop
        self._before_hop = before_hop
        self.chain: tuple[Redirect, ...] = ()
        self._visited: set[str] | None = None  # keys of the chain, made at its first redirect
        self.elapsed_s = 0.0  # waiting for the answers used (not retries, backoff, pacing)
        self.reply: R | None = None
        self.refused: Finding | AlreadyRead | None = None
        self.error: FetchError | None = None
        self.used = Method.GET  # the method of the final answer
        self._verb = "GET"
        self._host = ""
        self.attempt = 0
        self._tried: FetchError | None = None
        self._started = 0.0
        self.waited_s = 0.0

    def start(self) -> None:
        """Ask the first URL."""
        self._ask()

    def take_over(self, host: str, used: Method, reply: R | FetchError) -> None:
        """Go on from the first request's answer, sent already for this fetch (its slot held).

        The check engine sends a plain request itself (auditor.checks.check_run) and hands over
        what it will not judge alone: an error, a redirect, a status to retry, a rare page.
        """
        self._host = host
        self.used = used
        self._verb = "HEAD" if used is Method.HEAD else "GET"
        self._started = self.requests.clock.monotonic()
        self._answered(reply)

    # --- one hop: HEAD or GET -------------------------------------------------------------

    def _ask(self) -> None:
        """Method.AUTO asks with HEAD, and again with GET where HEAD is refused or errs."""
        method = self.method
        self._host = netloc_of(self.url)
        if method is Method.AUTO:
            if self._host not in self.requests.head_refused:
                self._send_as(Method.HEAD)
                return
            method = Method.GET
        self._send_as(method)

    def _send_as(self, method: Method) -> None:
        self.used = method
        self._verb = "HEAD" if method is Method.HEAD else "GET"
        self.attempt = 0
        self._tried = None
        self._try()

    def _try(self) -> None:
        """Take a slot of the host (or wait for one), then the pacer's word."""
        host = self._host
        gate = self.requests.gate
        if gate.take(host):
            self._slotted(0.0)
        else:
            gate.wait(host, self._given)

    def _given(self, waited_s: float) -> bool:
        self._slotted(waited_s)
        return True

    def _slotted(self, waited_s: float) -> None:
        requests = self.requests
        pacer = requests.gate.pacer
        try:
            pause_s = 0.0
            if pacer.paces(self._host):
                pause_s = pacer.reserve(self._host, requests.clock.monotonic())
        except BaseException:
            requests.gate.release(self._host)
            raise
        self.waited_s = waited_s + pause_s
        if pause_s > 0:
            asyncio.get_running_loop().call_later(pause_s, self._go)
        else:
            self._go()

    def _go(self) -> None:
        """Send the request (its slot held), unless the breaker gave the host up."""
        requests = self.requests
        self._started = requests.clock.monotonic()
        breaker = requests.gate.breaker
        given_up = breaker.refuse(self._host, self._started) if breaker.failing else None
        if given_up is not None:
            error = GivenUpError(
                self._host, code=given_up.code, failures=given_up.failures, tried=self._tried
            )
            self._failed(error)
            return
        url = self.url
        if requests.remap:
            try:
                url = requests.remap.requested(url)
            except ValueError as exc:  # a rule made it no URL: the request cannot go
                self._failed(FetchError(Code.LOC_INVALID, str(exc)))
                return
        headers = self._headers if not self.chain else None
        transport, timeouts = requests.transport, requests.policy.timeouts
        if self.stream:
            began = cast("Began", self._answered)
            transport.begin(url, verb=self._verb, headers=headers, timeouts=timeouts, done=began)
        else:
            max_body = self._max_body if self._verb == "GET" else 0
            transport.send(
                url,
                verb=self._verb,
                headers=headers,
                max_body=max_body,
                timeouts=timeouts,
                done=cast("Done", self._answered),
            )

    # --- the answer -----------------------------------------------------------------------

    def _answered(self, reply: R | FetchError) -> None:
        if isinstance(reply, FetchError):
            self._failed(reply)
            return
        requests, host = self.requests, self._host
        clock, gate = requests.clock, requests.gate
        elapsed_s = reply.elapsed_s
        if elapsed_s is None:
            elapsed_s = clock.monotonic() - self._started
        status = reply.status
        self._trace(status)
        gate.breaker.answered(host)
        if status in THROTTLE_STATUSES:
            asked = retry_after_s(reply.get("retry-after"), now=clock.now())
            gate.pacer.throttled(host, clock.monotonic(), retry_after_s=asked)
        else:
            asked = None
            gate.pacer.answered(host)
        gate.release(host)
        if status in RETRY_STATUSES and self.attempt < requests.policy.retries:
            reply.close()
            self._back_off(asked)
            return
        self._hop_answered(reply, elapsed_s)

    def _failed(self, error: FetchError) -> None:
        """No answer: another try when it may help, else the end of this fetch."""
        requests = self.requests
        self._trace(_said(error))
        requests.gate.release(self._host)
        retry = not isinstance(error, GivenUpError)
        if retry and error.code in FAILURE_CODES:
            requests.gate.breaker.failed(self._host, error.code, requests.clock.monotonic())
        if retry and error.code in RETRY_CODES and self.attempt < requests.policy.retries:
            self._tried = error
            self._back_off(None)
            return
        if not self.chain:
            self.error = error
        else:  # the redirect was followed; where it leads gives no answer
            self.refused = error.finding(url=self.url)
        self._then(self)

    def _back_off(self, asked: float | None) -> None:
        policy = self.requests.policy
        delay = backoff_s(
            self.attempt,
            base_s=policy.backoff_base_s,
            cap_s=policy.max_retry_after_s,
            retry_after=asked,
            jitter=self.requests.rng.random(),
        )
        self.attempt += 1
        asyncio.get_running_loop().call_later(delay, self._try)

    def _hop_answered(self, reply: R, elapsed_s: float) -> None:
        status = reply.status
        erring = status >= 400 and status != 429  # a GET may not have failed
        if erring and self.used is Method.HEAD and self.method is Method.AUTO:
            reply.close()  # ask again with GET
            refused = self.requests.head_refused
            if status in HEAD_REFUSED_STATUSES and len(refused) < MAX_HOSTS:
                refused.add(self._host)
            self._send_as(Method.GET)
            return
        self.elapsed_s += elapsed_s
        if not is_redirect(status):
            self.reply = reply
            self._then(self)
            return
        location = reply.get("location")
        reply.close()
        self._redirected(status, location)

    def _redirected(self, status: int, location: str | None) -> None:
        """Follow the redirect when the policy and `on_hop` allow; else the chain stops."""
        visited = self._visited
        if visited is None:
            parsed = parse_http_url(self.url)
            visited = self._visited = {parsed.key if parsed else self.url}
        self.chain = (*self.chain, Redirect(self.url, status))
        hop = next_hop(
            self.url,
            location,
            visited=visited,
            hops=len(self.chain) - 1,
            max_redirects=self.requests.policy.max_redirects,
        )
        if isinstance(hop, Finding):
            self.refused = hop
            self._then(self)
            return
        veto = self._on_hop(hop.key) if self._on_hop is not None else None
        if veto is not None:
            self.refused = veto
            self._then(self)
            return
        visited.add(hop.key)
        self.url = hop.url
        if self._before_hop is not None:  # the last answer is closed: no slot is held here
            self._before_hop(hop.url, self._ask)
        else:
            self._ask()

    def _trace(self, outcome: int | str) -> None:
        """-v: one line a request: its answer or failure, time, try, and wait for the host."""
        requests = self.requests
        if requests.logged:
            took_ms = round((requests.clock.monotonic() - self._started) * 1000)
            line = "%s %s -> %s in %d ms (try %d, waited %.2f s for the host)"
            log.info(line, self._verb, self.url, outcome, took_ms, self.attempt + 1, self.waited_s)


def _said(error: FetchError) -> str:
    """A failure as -v traces it: its code, and the library's own text where there is one."""
    return f"{error.code} ({error.message}; {error.library})" if error.library else error.code
