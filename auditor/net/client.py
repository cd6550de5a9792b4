"""The aiohttp transport (auditor.net.transport), and the only module that imports aiohttp.

`--engine aiohttp` (and runs without pycurl): sitemaps, robots.txt and URL checks. One shared
session; bodies are read chunk by chunk as they arrive; redirects are never followed here
(callers decide each hop with `auditor.net.redirects`); a document's body is never
decompressed here (`auditor.net.decompress` does it with a size cap); every foreign exception
becomes a FetchError carrying a finding code, once, in `translate_error`. A URL check's `send`
is a task of the client's, which reads the body's first bytes and hands its Answer on.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Coroutine, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from auditor.clock import SystemClock
from auditor.codes import Code
from auditor.errors import BlockedAddressError, FetchError
from auditor.net import causes
from auditor.net.address_guard import Reach, address_allowed, ip_literal
from auditor.net.aiohttp_response import TRANSLATED, AiohttpResponse, translate_error
from auditor.net.body_pace import floored
from auditor.net.decompress import decoded_prefix
from auditor.net.transport import (
    Answer,
    Began,
    ConnectionPolicy,
    Done,
    Timeouts,
)
from auditor.urls import dns_name_problem, parse_http_url

__all__ = ["AiohttpResponse", "HttpClient", "Timeouts", "translate_error"]

# Encodings `auditor.net.decompress` undoes; never "br", which would need another library.
ACCEPT_ENCODING = "gzip, deflate"


class _Resolver(AbstractResolver):
    """aiohttp's resolver, with two rules of ours.

    `.invalid` names never resolve (RFC 6761 §6.4), so such lookups never leave the machine.
    Addresses the run's reach refuses are dropped from the answer, and a host left with none
    is refused: the check is on the resolved IP, so a public name for 127.0.0.1 does not pass.
    """

    def __init__(self, *, reach: Reach, inner: AbstractResolver | None = None) -> None:
        """`inner` answers the look-ups (default: aiohttp's; tests give fixed answers)."""
        self._inner = inner if inner is not None else DefaultResolver()
        self._reach = reach

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        name = host.rstrip(".").lower()
        if name == "invalid" or name.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, f"{host} cannot resolve (RFC 6761)")
        problem = dns_name_problem(host)
        if problem is not None:  # getaddrinfo would raise UnicodeError (its idna codec)
            raise socket.gaierror(socket.EAI_NONAME, f"{host} cannot resolve: {problem}")
        found = await self._inner.resolve(host, port, family)
        if self._reach is Reach.ANY:
            return found
        allowed = [result for result in found if address_allowed(result["host"], self._reach)]
        if not allowed:
            raise BlockedAddressError(f"{host} resolves to a private address only")
        return allowed

    async def close(self) -> None:
        await self._inner.close()


def _tls_context(ca_file: Path | None) -> ssl.SSLContext:
    context = ssl.create_default_context()  # the system's CAs; `cafile=` would replace them
    if ca_file is not None:
        context.load_verify_locations(cafile=ca_file)
    return context


class HttpClient:
    """The run's one aiohttp session: connection limits, our headers, no cookies kept."""

    def __init__(
        self, policy: ConnectionPolicy, *, resolver: AbstractResolver | None = None
    ) -> None:
        """`policy`: limits, headers and their hosts, TLS, reach (auditor.net.transport).

        `resolver` answers name look-ups (default: aiohttp's); the guard judges its answers all
        the same.
        """
        self._headers = {"User-Agent": policy.user_agent, "Accept-Encoding": ACCEPT_ENCODING}
        self._custom = dict(policy.headers)
        self._header_hosts = policy.header_hosts
        self._by_origin = {origin: dict(own) for origin, own in policy.origin_headers.items()}
        self._concurrency = policy.concurrency
        self._per_host = policy.per_host
        self._spare = policy.spare
        self._reach = policy.reach
        self._ca_file = policy.ca_file
        self._insecure = policy.insecure
        self._resolver = resolver
        self._session: aiohttp.ClientSession | None = None
        self._timeouts: dict[Timeouts, aiohttp.ClientTimeout] = {}  # a few policies a run
        self._tasks: set[asyncio.Task[None]] = set()  # requests sent and not answered yet

    async def __aenter__(self) -> Self:
        connector = aiohttp.TCPConnector(
            ssl=await self._tls_context(),
            # A backstop above the run's own limits (HostGate, the workers), never the one that
            # makes a request wait: aiohttp hands a freed connection to whoever asks first, so
            # a request queued in its pool may wait until its timeout. `spare`: connections the
            # sitemap readers hold outside the check stage's limits.
            limit=self._concurrency + self._spare,
            limit_per_host=self._per_host + self._spare,
            resolver=_Resolver(reach=self._reach, inner=self._resolver),
            ttl_dns_cache=300,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers=self._headers,
            auto_decompress=False,  # auditor.net.decompress caps the output; aiohttp would not
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,
        )
        return self

    async def _tls_context(self) -> ssl.SSLContext | bool:
        """The system's CAs, plus `ca_file` when given (True: aiohttp's default context).

        False with `insecure`: certificates are not verified (certificate_problem says why
        they would fail).
        """
        if self._insecure:
            return False
        if self._ca_file is None:
            return True
        # Reading CA files is blocking I/O: off the event loop.
        return await asyncio.to_thread(_tls_context, self._ca_file)

    async def certificate_problem(self, url: str, *, timeout_s: float) -> str | None:
        """Why `url`'s certificate fails verification (None: it passes, or no TLS answer).

        One HEAD request, verified as a run without --insecure would, through the same guard.
        """
        assert self._session is not None, "use the client as an async context manager"
        timeout = aiohttp.ClientTimeout(total=timeout_s)
        # A context of its own: a request's ssl=True would take the session's (unverified).
        ssl_context = await asyncio.to_thread(_tls_context, self._ca_file)
        try:
            async with self._session.head(
                url, ssl=ssl_context, timeout=timeout, allow_redirects=False
            ):
                return None
        except aiohttp.ClientConnectorCertificateError as exc:
            return translate_error(exc).message
        except aiohttp.ClientSSLError as exc:
            return causes.tls_words(str(exc))
        except (aiohttp.ClientError, OSError, TimeoutError):
            return None  # no certificate problem to speak of: the run's requests say what is

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        tasks, self._tasks = self._tasks, set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._session is not None:
            await self._session.close()

    def send(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        max_body: int,
        timeouts: Timeouts,
        done: Done,
    ) -> None:
        """Send one request; `done` gets its Answer or its FetchError.

        At most `max_body` decoded bytes of the body, read within the body floor.
        """
        work = self._send(
            url, verb=verb, headers=headers, max_body=max_body, timeouts=timeouts, done=done
        )
        self._spawn(work)

    def begin(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
        done: Began,
    ) -> None:
        """Send one request; `done` gets its Response (body streamed) or its FetchError."""
        self._spawn(self._begin(url, verb=verb, headers=headers, timeouts=timeouts, done=done))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _begin(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
        done: Began,
    ) -> None:
        try:
            response = await self.open(url, timeouts=timeouts, method=verb, headers=headers)
        except FetchError as error:
            done(error)
            return
        done(response)

    async def _send(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        max_body: int,
        timeouts: Timeouts,
        done: Done,
    ) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            response = await self.open(url, timeouts=timeouts, method=verb, headers=headers)
        except FetchError as error:
            done(error)
            return
        elapsed_s = loop.time() - started  # the answer's head: as libcurl's time to it
        try:
            body, more, broke = await _prefix(response, max_body, timeouts)
            fields = response.check_fields()
        finally:
            response.close()
        first, repeated = fields
        done(Answer(response.status, first, repeated, body, more, elapsed_s, broke))

    async def open(
        self,
        url: str,
        *,
        timeouts: Timeouts,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        max_body: int | None = None,  # noqa: ARG002 - bodies are streamed: the reader stops
    ) -> AiohttpResponse:
        """Send one request (no redirect followed) and return the response, body unread.

        `headers` are this request's own (conditional ones), over the user's.
        """
        assert self._session is not None, "use HttpClient in `async with`"
        host = urlsplit(url).hostname
        problem = dns_name_problem(host) if host else None
        if problem is not None:  # aiohttp would fail it before its resolver is asked
            raise FetchError(Code.NET_DNS, f"{causes.dns_words(host)} ({problem})")
        self._refuse_private_literal(host)
        timeout = self._timeouts.get(timeouts)
        if timeout is None:
            timeout = self._timeouts[timeouts] = aiohttp.ClientTimeout(
                total=timeouts.total_s, sock_connect=timeouts.idle_s, sock_read=timeouts.idle_s
            )
        hosts = self._header_hosts
        extra = self._custom if self._custom and (hosts is None or host in hosts) else None
        if self._by_origin:
            parsed = parse_http_url(url)
            own = self._by_origin.get(parsed.origin) if parsed is not None else None
            extra = {**(extra or {}), **own} if own else extra
        if headers:
            extra = {**(extra or {}), **headers}
        request = self._session.request(
            method, url, allow_redirects=False, timeout=timeout, headers=extra
        )
        try:
            if timeouts.idle_s is None:
                raw = await request
            else:  # a head trickling in byte by byte never falls silent: bound it as a whole
                async with asyncio.timeout(timeouts.idle_s):
                    raw = await request
        except TRANSLATED as exc:
            waited = timeouts.idle_s if timeouts.idle_s is not None else timeouts.total_s
            raise translate_error(exc, host=host, timeout_s=waited) from exc
        return AiohttpResponse(raw, timeout_s=timeouts.idle_s or timeouts.total_s)

    def _refuse_private_literal(self, host: str | None) -> None:
        """Aiohttp never resolves an IP literal: the guard checks it here."""
        if self._reach is Reach.ANY:
            return
        literal = ip_literal(host) if host else None
        if literal is not None and not address_allowed(literal, self._reach):
            raise FetchError(Code.NET_BLOCKED_ADDRESS, f"{literal} is a private address")


async def _prefix(
    response: AiohttpResponse, max_body: int, timeouts: Timeouts
) -> tuple[bytes, bool, FetchError | None]:
    """At most `max_body` bytes of the body, decoded; whether more may follow; how it broke.

    Read within the body floor (1 KiB/s over the check's timeout): a short body is read to its
    end, so the connection goes back to the pool; a longer one is dropped with its connection.
    """
    if max_body <= 0:
        return b"", False, None
    window_s = timeouts.idle_s or timeouts.total_s
    read = floored(response.read, window_s=window_s, clock=SystemClock())
    raw = bytearray()
    try:
        while len(raw) < max_body:
            chunk = await read()
            if not chunk:
                break
            raw += chunk
    except FetchError as error:  # the answer came; its body broke off
        return b"", False, error
    body, more = decoded_prefix(bytes(raw), response.body_encoding, limit=max_body)
    return body, more, None
