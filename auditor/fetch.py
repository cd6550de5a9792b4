"""The HTTP edge, and the only module that imports aiohttp.

One shared session; bodies are read chunk by chunk as they arrive; redirects are never followed
here (callers decide each hop with `auditor.redirects`); the body is never decompressed here
(`auditor.decompress` does it with a size cap); every foreign exception becomes a FetchError
carrying a finding code, once, in `translate_error`.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Self

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from auditor.codes import Code

# Encodings `auditor.decompress` undoes; never "br", which would need another library.
ACCEPT_ENCODING = "gzip, deflate"
_MESSAGE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long a request may take.

    `total_s` bounds the whole request, body included; `idle_s` bounds connecting and each
    silence while reading (a server that stalls).
    """

    total_s: float
    idle_s: float


class FetchError(Exception):
    """A request that got no usable answer; `code` is the finding to report (net.*)."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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


def translate_error(exc: BaseException) -> FetchError:
    """Map an aiohttp/OS exception to the most specific finding code."""
    text = f"{type(exc).__name__}: {exc}"[:_MESSAGE_CHARS]
    for classes, code in _ERROR_CODES:
        if isinstance(exc, classes):
            return FetchError(code, text)
    return FetchError(Code.NET_PROTOCOL, text)


_TRANSLATED = (aiohttp.ClientError, OSError, TimeoutError, ValueError)


class Response:
    """An open response; read it with `read()`, then close it (`async with response:`)."""

    def __init__(self, raw: aiohttp.ClientResponse) -> None:
        self._raw = raw
        self.status = raw.status
        self.url = str(raw.url)
        self.headers: Mapping[str, str] = raw.headers

    async def read(self) -> bytes:
        """The next piece of the body as it arrives; b"" at its end."""
        try:
            return await self._raw.content.readany()
        except _TRANSLATED as exc:
            raise translate_error(exc) from exc

    def close(self) -> None:
        """Give the connection back when the body was read, else drop it."""
        if self._raw.content.at_eof():
            self._raw.release()
        else:
            self._raw.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class _Resolver(AbstractResolver):
    """aiohttp's resolver, except that `.invalid` names never resolve (RFC 6761 §6.4).

    Short-circuiting them keeps such lookups off the network entirely.
    """

    def __init__(self) -> None:
        self._inner = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        name = host.rstrip(".").lower()
        if name == "invalid" or name.endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, f"{host} cannot resolve (RFC 6761)")
        return await self._inner.resolve(host, port, family)

    async def close(self) -> None:
        await self._inner.close()


class HttpClient:
    """The run's one aiohttp session: connection limits, our headers, no cookies kept."""

    def __init__(
        self,
        *,
        user_agent: str,
        headers: Sequence[tuple[str, str]] = (),
        concurrency: int = 128,
        per_host: int = 8,
    ) -> None:
        self._headers = {"User-Agent": user_agent, "Accept-Encoding": ACCEPT_ENCODING}
        self._headers.update(headers)
        self._concurrency = concurrency
        self._per_host = per_host
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        connector = aiohttp.TCPConnector(
            limit=self._concurrency,
            limit_per_host=self._per_host,
            resolver=_Resolver(),
            ttl_dns_cache=300,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers=self._headers,
            auto_decompress=False,  # auditor.decompress caps the output; aiohttp would not
            cookie_jar=aiohttp.DummyCookieJar(),
            trust_env=False,
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._session is not None:
            await self._session.close()

    async def open(self, url: str, *, timeouts: Timeouts, method: str = "GET") -> Response:
        """Send one request (no redirect followed) and return the response, body unread."""
        assert self._session is not None, "use HttpClient in `async with`"
        timeout = aiohttp.ClientTimeout(
            total=timeouts.total_s, sock_connect=timeouts.idle_s, sock_read=timeouts.idle_s
        )
        try:
            raw = await self._session.request(method, url, allow_redirects=False, timeout=timeout)
        except _TRANSLATED as exc:
            raise translate_error(exc) from exc
        return Response(raw)
