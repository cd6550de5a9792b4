"""The aiohttp transport (auditor.net.transport), and the only module that imports aiohttp.

Sitemaps, robots.txt and, with `--engine aiohttp`, URL checks. One shared session; bodies are
read chunk by chunk as they arrive; redirects are never followed
here (callers decide each hop with `auditor.net.redirects`); the body is never decompressed here
(`auditor.net.decompress` does it with a size cap); every foreign exception becomes a FetchError
carrying a finding code, once, in `translate_error`.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.client_proto import ResponseHandler
from aiohttp.resolver import DefaultResolver

from auditor.codes import Code
from auditor.errors import BlockedAddressError, FetchError
from auditor.net import causes
from auditor.net.address_guard import Reach, address_allowed, ip_literal, is_public_address
from auditor.net.transport import ClosingResponse, ConnectionPolicy, Timeouts
from auditor.urls import dns_name_problem, parse_http_url

__all__ = ["AiohttpResponse", "HttpClient", "Timeouts", "is_private_host", "translate_error"]

# Encodings `auditor.net.decompress` undoes; never "br", which would need another library.
ACCEPT_ENCODING = "gzip, deflate"
_MESSAGE_CHARS = 300


# Foreign exceptions -> finding codes, most specific class first (several are subclasses of
# the later ones: a DNS error is a connector error is an OSError).
_ERROR_CODES: tuple[tuple[tuple[type[BaseException], ...], Code], ...] = (
    ((aiohttp.ClientConnectorDNSError,), Code.NET_DNS),
    ((aiohttp.ClientConnectorCertificateError, aiohttp.ClientSSLError, ssl.SSLError), Code.NET_TLS),
    ((TimeoutError,), Code.NET_TIMEOUT),  # aiohttp's ServerTimeoutError and asyncio's alike
    ((aiohttp.InvalidURL,), Code.LOC_INVALID),
    ((aiohttp.ClientPayloadError, aiohttp.ClientResponseError), Code.NET_PROTOCOL),
    ((aiohttp.ClientConnectionError, OSError), Code.NET_CONNECT),
)


def translate_error(
    exc: BaseException, *, host: str | None = None, timeout_s: float | None = None
) -> FetchError:
    """Map an aiohttp/OS exception to the most specific finding code, its cause in words.

    `host`: the request's; `timeout_s`: the window a timeout ran out of (auditor.net.causes).
    """
    if isinstance(exc, aiohttp.ClientConnectorError) and isinstance(
        exc.os_error, BlockedAddressError
    ):
        return FetchError(Code.NET_BLOCKED_ADDRESS, str(exc.os_error))
    code = next((code for kinds, code in _ERROR_CODES if isinstance(exc, kinds)), Code.NET_PROTOCOL)
    number = getattr(getattr(exc, "os_error", exc), "errno", None)  # a connection's OS error
    broken = isinstance(exc, aiohttp.ClientPayloadError)
    number = number if isinstance(number, int) else None
    said = causes.cause_words(
        code, str(exc), number=number, host=host, timeout_s=timeout_s, broken_body=broken
    )
    error = FetchError(code, said)
    error.library = f"aiohttp: {type(exc).__name__}: {exc}"[:_MESSAGE_CHARS]
    return error


_TRANSLATED = (aiohttp.ClientError, OSError, TimeoutError, ValueError)


class _BodyWatch:
    """Fails the body a connection carries if the connection closes and aiohttp left it open.

    On a broken chunk size after the body's first piece, aiohttp's C parser closes the
    connection without failing the body (aiohttp 3.14; its pure-Python parser does fail it):
    a read waiting then would wait until its timeout, one called later says only "Connection
    closed.". One watch per connection, told which body the connection carries now.
    """

    __slots__ = ("body",)

    def __init__(self) -> None:
        self.body: aiohttp.StreamReader | None = None

    def on_closed(self, closed: asyncio.Future[None]) -> None:
        if not closed.cancelled():
            closed.exception()  # retrieved here: the body's own error says what broke
        self.fail_unfinished()

    def fail_unfinished(self) -> None:
        body = self.body
        if body is not None and not body.is_eof() and body.exception() is None:
            body.set_exception(aiohttp.ClientPayloadError("the connection closed mid-body"))


_WATCHES: weakref.WeakKeyDictionary[ResponseHandler, _BodyWatch] = weakref.WeakKeyDictionary()


def _watch(raw: aiohttp.ClientResponse) -> _BodyWatch | None:
    """The watch on `raw`'s connection, now carrying `raw`'s body (None: the body is all in)."""
    connection = raw.connection
    if connection is None or connection.protocol is None:
        return None
    protocol = connection.protocol
    watch = _WATCHES.get(protocol)
    if watch is None:
        watch = _WATCHES[protocol] = _BodyWatch()
        closed = protocol.closed
        if closed is not None:
            closed.add_done_callback(watch.on_closed)
    watch.body = raw.content
    if connection.closed:  # closed before the watch began
        watch.fail_unfinished()
    return watch


class AiohttpResponse(ClosingResponse):
    """An open response; read it with `read()`, then close it (`async with response:`)."""

    def __init__(self, raw: aiohttp.ClientResponse, *, timeout_s: float | None = None) -> None:
        """`timeout_s`: the window a read waits at most (a timeout says it)."""
        self._raw = raw
        self._timeout_s = timeout_s
        self.status = raw.status
        self.headers: Mapping[str, str] = raw.headers
        self._watch = _watch(raw)
        super().__init__()

    @property
    def body_encoding(self) -> str | None:
        """The Content-Encoding on the body: the client never decodes (auditor.net.decompress)."""
        return self.headers.get("Content-Encoding")

    @property
    def streamed(self) -> bool:
        """The body arrives as it is read."""
        return True

    @property
    def elapsed_s(self) -> None:
        """Not measured here: the opener times the answer's head."""
        return

    def header_values(self, name: str) -> list[str]:
        """Every value of a header that may repeat (X-Robots-Tag)."""
        return self._raw.headers.getall(name, [])

    async def read(self) -> bytes:
        """The next piece of the body as it arrives; b"" at its end."""
        try:
            return await self._raw.content.readany()
        except _TRANSLATED as exc:
            raise translate_error(exc, timeout_s=self._timeout_s) from exc
        except RuntimeError as exc:
            # A body that breaks after its first piece was read (a bad chunk size, say) closes
            # the connection without marking the body failed; aiohttp's StreamReader then says
            # only "Connection closed." (streams.StreamReader._wait).
            connection = self._raw.connection
            if connection is not None and not connection.closed:
                raise  # not a broken body: our own misuse, which must show
            raise FetchError(Code.NET_PROTOCOL, "the body broke off") from exc

    def close(self) -> None:
        """Give the connection back when the body was read, else drop it."""
        if self._watch is not None:
            self._watch.body = None
        if self._raw.content.at_eof():
            self._raw.release()
        else:
            self._raw.close()
        super().close()


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


async def is_private_host(host: str) -> bool:
    """Whether a host is, or resolves to, a private address (a staging site).

    A name that does not resolve is not private: its requests will fail on their own.

    See docs/explanation/design.md#private-addresses.
    """
    literal = ip_literal(host)
    if literal is not None:
        return not is_public_address(literal)
    if host.rstrip(".").lower().endswith(".invalid"):
        return False
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):  # UnicodeError: a label idna refuses (empty, too long)
        return False
    return any(not is_public_address(str(info[4][0])) for info in infos)


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
        if self._session is not None:
            await self._session.close()

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
        except _TRANSLATED as exc:
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
