"""The libcurl transport (auditor.net.transport), on pycurl: the default engine.

With `auditor.net.curl_handle` and `auditor.net.curl_loop`, the only modules that import pycurl.
One multi handle runs in the event loop's own thread (`curl_loop`); easy handles are reused, their
options set once. A URL check's request is `send`: its Answer (at most `max_body` decoded bytes
of the body) goes to a callback. A document's is `begin`: its Response streams the body as it
comes, the transfer paused while the reader is behind. libcurl follows no redirect (the policy
judges each hop), keeps and reuses connections, speaks HTTP/2 where a TLS server offers it
(ALPN), and reads proxies from the environment as libcurl does (http_proxy, https_proxy,
all_proxy, no_proxy).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import pycurl

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net.address_guard import Reach
from auditor.net.curl_handle import (
    ACCEPT_ENCODING,
    E_WRITE_ERROR,
    RESPONSE_CODE,
    STREAM_BUFFER_BYTES,
    TOTAL_TIME_T,
    Handle,
    Stream,
    refused,
)
from auditor.net.curl_loop import CurlLoop
from auditor.net.redirects import encoded_url
from auditor.net.transport import (
    Answer,
    Began,
    BufferedResponse,
    ClosingResponse,
    Done,
    Headers,
    Response,
    Timeouts,
    check_fields,
    head_over_bounds,
    parse_head,
)
from auditor.net.transport import answer as new_answer
from auditor.urls import authority_of, dns_name_problem, needs_escaping, parse_http_url

__all__ = ["ACCEPT_ENCODING", "CurlResponse", "CurlTransport"]

log = logging.getLogger("auditor.net.curl_handle")  # -vv names libcurl's phases there
# A document's bytes handed to its reader at once (about, at most), as aiohttp's pieces.
READ_BYTES = 64 * 1024
MAX_AUTHORITIES = 1024  # hosts whose header decision is kept (most runs check a few)
_MESSAGE_CHARS = 300
_TLS_ERRORS = frozenset(
    getattr(pycurl, name)
    for name in dir(pycurl)
    if name.startswith("E_SSL") or name == "E_PEER_FAILED_VERIFICATION"
)
Resolve = Callable[[str], Sequence[str] | None]  # a test's name -> addresses (no DNS)


class CurlResponse(ClosingResponse):
    """A document's answer: its head read, its body streamed as it comes (`read`)."""

    __slots__ = ("_error", "_handle", "_transport", "headers", "status")

    streamed = True  # read as it comes: the reader bounds the body's pace
    elapsed_s = None  # the policy times the head itself

    def __init__(self, transport: CurlTransport, handle: Handle) -> None:
        super().__init__()
        self._transport = transport
        self._handle: Handle | None = handle
        self.status = int(handle.curl.getinfo(pycurl.RESPONSE_CODE))
        self.headers = Headers(parse_head(handle.head.getvalue()))
        self._error: FetchError | None = None  # how the body broke off, once read to there

    @property
    def body_encoding(self) -> str | None:
        """The Content-Encoding on the body: libcurl hands a document's bytes on as they came."""
        return self.headers.get("Content-Encoding")

    def header_values(self, name: str) -> list[str]:
        """Every value of a header that may repeat."""
        return self.headers.getall(name)

    def get(self, name: str) -> str | None:
        """A header's first value, or None."""
        return self.headers.get(name)

    def ended(self, error: FetchError | None) -> None:
        """The transfer is over; `error`: how its body broke off (raised after its bytes)."""
        self._error = error

    async def read(self) -> bytes:
        """The bytes that came since the last read; b"" at the end; FetchError if it broke."""
        handle = self._handle
        if handle is None:
            return b""
        stream = handle.stream
        assert stream is not None
        while True:
            if stream.chunks:
                chunks = stream.chunks
                data = chunks.popleft()
                if chunks and len(data) < READ_BYTES:  # a few small pieces at once, as aiohttp
                    pieces = [data]
                    size = len(data)
                    while chunks and size < READ_BYTES:
                        pieces.append(chunks.popleft())
                        size += len(pieces[-1])
                    data = b"".join(pieces)
                stream.size -= len(data)
                if stream.paused and not stream.ended and stream.size < STREAM_BUFFER_BYTES:
                    stream.paused = False
                    self._transport.resume(handle)
                return data
            if stream.ended:
                error, self._error = self._error, None
                if error is not None:
                    raise error
                return b""
            waiter = asyncio.get_running_loop().create_future()
            stream.wake = functools.partial(_wake, waiter)
            await waiter

    def close(self) -> None:
        """Stop the transfer if it still runs, and give the handle back."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._transport.finish_stream(handle)
        super().close()


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class CurlTransport:
    """libcurl's multi interface in the loop: connection limits, our headers, no cookies."""

    def __init__(
        self,
        *,
        user_agent: str,
        headers: Sequence[tuple[str, str]] = (),
        header_hosts: frozenset[str] | None = None,
        origin_headers: Mapping[str, Sequence[tuple[str, str]]] | None = None,
        concurrency: int = 128,
        per_host: int = 8,
        spare: int = 0,
        reach: Reach = Reach.ANY,
        ca_file: Path | None = None,
        insecure: bool = False,
        resolve: Resolve | None = None,
    ) -> None:
        """The user's `headers` (cookies, tokens) go to `header_hosts` only (None: every host).

        `origin_headers` (a target's basic auth) go to the origin (`HttpUrl.origin`) they name.

        `spare`: connections beyond `concurrency` and `per_host` (the sitemap readers', robots.txt).

        `ca_file`: a PEM bundle that replaces libcurl's (CURLOPT_CAINFO): give the system's CAs
        and the extra one together (auditor.http_stack builds it). `insecure`: certificates
        are not verified (--insecure). `resolve`: a test's answers for some names, pinned with
        CURLOPT_RESOLVE (an empty answer: the name does not resolve); the guard judges them
        all the same.
        """
        self._user_agent = user_agent
        self._lines = _header_lines(headers)
        self._header_hosts = header_hosts
        self._by_origin = {o: _header_lines(own) for o, own in (origin_headers or {}).items()}
        self._reach = reach
        self._ca_file = ca_file
        self._insecure = insecure
        self._resolve = resolve
        self._limits = (per_host + spare, concurrency + spare)
        self._free: list[Handle] = []
        self._handles: list[Handle] = []
        # Per `scheme://authority` as written: the header lines its requests get, or why none go.
        self._by_authority: dict[str, list[str] | FetchError] = {}
        self._last_lines: tuple[str, list[str]] = ("\0", [])  # (`scheme://authority/`, lines)
        self._curl: CurlLoop | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._phases = log.isEnabledFor(logging.DEBUG)  # -vv: libcurl's phases, said once a run
        self._streams: set[CurlResponse] = set()  # documents handed over and not closed
        self._waiting: set[asyncio.Future[Any]] = set()  # `open` callers (tests, certificates)

    async def __aenter__(self) -> Self:
        per_host, concurrency = self._limits
        self._curl = CurlLoop(per_host=per_host, concurrency=concurrency)
        self._loop = asyncio.get_running_loop()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Every transfer removed, every connection closed, every waiting caller cancelled."""
        curl, self._curl = self._curl, None
        for future in self._waiting:
            future.cancel()
        self._waiting.clear()
        if curl is not None:
            curl.close()
        for handle in self._handles:
            if handle.stream is not None:
                handle.stream.ended = True
                wake, handle.stream.wake = handle.stream.wake, None
                if wake is not None:
                    wake()
            handle.curl.close()
        self._handles.clear()
        self._free.clear()

    @property
    def running(self) -> int:
        """Transfers under way."""
        return self._curl.running if self._curl is not None else 0

    # --- a URL check's request: its Answer to a callback ---------------------------------

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
        """Send one request (no redirect followed); `done` gets its Answer or its FetchError."""
        curl = self._curl
        prefix, lines = self._last_lines
        free = self._free
        if curl is None or headers or not free or not url.startswith(prefix) or self._resolve:
            self._send(
                url, verb=verb, headers=headers, max_body=max_body, timeouts=timeouts, done=done
            )
            return
        # The usual request: where the last one went, no headers of its own, a handle free.
        handle = free.pop()
        try:
            handle.prepare(_sendable(url), verb, lines, timeouts, max_body)
        except (pycurl.error, ValueError, UnicodeError) as exc:
            free.append(handle)
            asyncio.get_running_loop().call_soon(done, refused(exc))
            return
        curl.add(handle.curl, functools.partial(self._sent, handle, done))

    def _send(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        max_body: int,
        timeouts: Timeouts,
        done: Done,
    ) -> Handle | None:
        curl = self._curl
        if curl is None:
            return None  # closed: the run is over, nobody waits
        handle = self._ready(
            url,
            verb=verb,
            headers=headers,
            timeouts=timeouts,
            max_body=max_body,
            stream=None,
            done=done,
        )
        if handle is not None:
            curl.add(handle.curl, functools.partial(self._sent, handle, done))
        return handle

    def _sent(self, handle: Handle, done: Done, code: int, message: str) -> None:
        if self._phases:
            handle.finish(code, message, trace=True)
        else:  # `finish`, one frame fewer on every request
            curl = handle.curl
            handle.code, handle.message = code, message
            handle.status = curl.getinfo(RESPONSE_CODE)
            handle.elapsed_s = curl.getinfo(TOTAL_TIME_T) / 1e6
        answer: Answer | FetchError
        if not code or (code == E_WRITE_ERROR and handle.truncated):  # a whole answer
            fields = check_fields(handle.head.getvalue())
            if fields is None:
                answer = FetchError(Code.NET_PROTOCOL, "an answer head over aiohttp's bounds")
            else:
                chunks = handle.body
                body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
                more = 0 < handle.max_body <= handle.size
                first, repeated = fields
                answer = new_answer(
                    (handle.status, first, repeated, body, more, handle.elapsed_s, None)
                )
        else:
            answer = self._answer(handle)
        handle.body = []
        self._free.append(handle)
        done(answer)

    @staticmethod
    def _answer(handle: Handle) -> Answer | FetchError:
        """What a transfer that ended with an error left: an answer whose body broke, or none."""
        error = handle.outcome()
        if error is not None:
            return error
        fields = check_fields(handle.head.getvalue())
        if fields is None:
            return FetchError(Code.NET_PROTOCOL, "an answer head over aiohttp's bounds")
        broke = handle.body_error()
        chunks = handle.body
        body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        more = 0 < handle.max_body <= handle.size
        first, repeated = fields
        return Answer(handle.status, first, repeated, body, more, handle.elapsed_s, broke)

    # --- a document's request: its Response, streamed ------------------------------------

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
        self._begin(url, verb=verb, headers=headers, timeouts=timeouts, done=done)

    def _begin(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
        done: Began,
    ) -> Handle | None:
        curl = self._curl
        if curl is None:
            return None
        stream = Stream()
        handle = self._ready(
            url, verb=verb, headers=headers, timeouts=timeouts, max_body=0, stream=stream, done=done
        )
        if handle is None:
            return None
        handed: list[CurlResponse] = []  # the response, once handed over
        loop = asyncio.get_running_loop()
        # The first bytes of the body: the head is whole. Inside libcurl's callback, so the
        # answer is handed over at the loop's next turn.
        stream.wake = functools.partial(_soon, loop, self._head_came, handle, handed, done)
        curl.add(handle.curl, functools.partial(self._stream_ended, handle, handed, done))
        return handle

    def _head_came(self, handle: Handle, handed: list[CurlResponse], done: Began) -> None:
        if handed or handle.stream is None:
            return
        if head_over_bounds(handle.head.getvalue()):
            self.finish_stream(handle)
            done(FetchError(Code.NET_PROTOCOL, "an answer head over aiohttp's bounds"))
            return
        response = CurlResponse(self, handle)
        handed.append(response)
        self._streams.add(response)
        response.on_close = functools.partial(self._streams.discard, response)
        done(response)

    def _stream_ended(
        self, handle: Handle, handed: list[CurlResponse], done: Began, code: int, message: str
    ) -> None:
        handle.finish(code, message, trace=self._phases)
        stream = handle.stream
        assert stream is not None
        stream.ended = True
        if handed:
            handed[0].ended(handle.body_error())
            wake, stream.wake = stream.wake, None
            if wake is not None:
                wake()
            return
        stream.wake = None
        error = handle.outcome()
        if error is None and head_over_bounds(handle.head.getvalue()):
            error = FetchError(Code.NET_PROTOCOL, "an answer head over aiohttp's bounds")
        if error is not None:
            self._release(handle)
            done(error)
            return
        response = CurlResponse(self, handle)
        response.ended(handle.body_error())
        handed.append(response)
        self._streams.add(response)
        response.on_close = functools.partial(self._streams.discard, response)
        done(response)

    def resume(self, handle: Handle) -> None:
        """A paused document's reader caught up: let its transfer go on."""
        if self._curl is not None:
            self._curl.resume(handle.curl)

    def finish_stream(self, handle: Handle) -> None:
        """A document's response closed: stop its transfer if it runs; the handle is free."""
        if self._curl is None:
            return
        stream = handle.stream
        if stream is not None and not stream.ended:
            self._curl.remove(handle.curl)
        self._release(handle)

    def _stop(self, handle: Handle) -> None:
        """Stop a transfer nobody waits for any more; its handle is free again."""
        if self._curl is not None and self._curl.remove(handle.curl):
            self._release(handle)

    def _release(self, handle: Handle) -> None:
        handle.stream = None
        handle.body = []
        self._free.append(handle)

    # --- awaiting one answer: tests and the certificate check -----------------------------

    async def open(
        self,
        url: str,
        *,
        timeouts: Timeouts,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        max_body: int | None = None,
    ) -> Response:
        """One request's answer: streamed (no `max_body`), else at most `max_body` bytes read."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.add(future)

        def answered(answer: object) -> None:
            if future.cancelled():
                if isinstance(answer, ClosingResponse):
                    answer.close()
                return
            future.set_result(answer)

        if max_body is None:
            handle = self._begin(
                url, verb=method, headers=headers, timeouts=timeouts, done=answered
            )
        else:
            handle = self._send(
                url,
                verb=method,
                headers=headers,
                max_body=max_body,
                timeouts=timeouts,
                done=answered,
            )
        try:
            answer = await future
        except asyncio.CancelledError:
            if handle is not None and not future.done():  # its transfer still runs: stopped
                self._stop(handle)
            raise
        finally:
            self._waiting.discard(future)
        if isinstance(answer, FetchError):
            raise answer
        if isinstance(answer, Answer):
            return BufferedResponse(
                answer.status,
                Headers(list(answer.headers.items())),
                answer.body,
                elapsed_s=answer.elapsed_s,
                error=answer.error,
            )
        assert isinstance(answer, CurlResponse)
        return answer

    async def certificate_problem(self, url: str, *, timeout_s: float) -> str | None:
        """Why `url`'s certificate fails verification (None: it passes, or no TLS answer).

        One HEAD request on a handle of its own, verified as a run without --insecure would,
        through the same guard.
        """
        assert self._curl is not None, "use the transport as an async context manager"
        handle = Handle(user_agent=self._user_agent, reach=self._reach, ca_file=self._ca_file)
        future: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
        try:
            timeouts = Timeouts(total_s=timeout_s, idle_s=timeout_s)
            handle.prepare(_sendable(url), "HEAD", [], timeouts, 0)
            self._curl.add(handle.curl, lambda code, text: _settle(future, (code, text)))
            code, message = await future
        except (pycurl.error, ValueError, UnicodeError):
            return None
        finally:
            if not future.done():
                self._curl.remove(handle.curl)
            handle.curl.close()
        if code in _TLS_ERRORS:
            return (message or pycurl.easy_strerror(code))[:_MESSAGE_CHARS]
        return None

    # --- a request made ready --------------------------------------------------------------

    def _ready(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
        max_body: int,
        stream: Stream | None,
        done: Callable[[Any], None],
    ) -> Handle | None:
        """A handle with this request's options; None when it cannot go (`done` told)."""
        loop = self._loop
        assert loop is not None
        try:
            lines = self._lines_for(url, headers)
        except FetchError as error:
            loop.call_soon(done, error)
            return None
        handle = self._free.pop() if self._free else self._new_handle()
        if self._resolve is not None and not self._pin(handle, url):
            self._free.append(handle)
            host = urlsplit(url).hostname
            loop.call_soon(done, FetchError(Code.NET_DNS, f"{host} cannot resolve"))
            return None
        try:
            handle.prepare(_sendable(url), verb, lines, timeouts, max_body, stream=stream)
        except (pycurl.error, ValueError, UnicodeError) as exc:
            self._free.append(handle)
            loop.call_soon(done, refused(exc))
            return None
        return handle

    def _lines_for(self, url: str, own: Mapping[str, str] | None) -> list[str]:
        """The user's header lines when `url` is on a target's host; this request's own after."""
        prefix, for_host = self._last_lines
        if not url.startswith(prefix):  # most requests go where the last one went
            authority = authority_of(url)
            known = self._by_authority.get(authority)
            said = known if known is not None else self._host_lines(url, authority)
            if isinstance(said, FetchError):
                raise said
            for_host = said
            self._last_lines = (f"{authority}/", for_host)
        if own:
            return [*for_host, *(f"{name}: {value}" for name, value in own.items())]
        return for_host

    def _host_lines(self, url: str, authority: str) -> list[str] | FetchError:
        for_host = self._lines_for_host(url)
        if len(self._by_authority) >= MAX_AUTHORITIES:
            self._by_authority.clear()
        self._by_authority[authority] = for_host
        return for_host

    def _lines_for_host(self, url: str) -> list[str] | FetchError:
        host = urlsplit(url).hostname or ""
        if host == "invalid" or host.endswith(".invalid"):  # RFC 6761 §6.4: never looked up
            return FetchError(Code.NET_DNS, f"{host} cannot resolve (RFC 6761)")
        problem = dns_name_problem(host) if host else None
        if problem is not None:  # as aiohttp's transport says it: no resolver takes it
            return FetchError(Code.NET_DNS, f"{host} cannot resolve: {problem}")
        hosts = self._header_hosts
        lines = self._lines if self._lines and (hosts is None or host in hosts) else []
        if self._by_origin:
            parsed = parse_http_url(url)
            own = self._by_origin.get(parsed.origin) if parsed is not None else None
            lines = [*lines, *own] if own else lines
        return lines

    def _pin(self, handle: Handle, url: str) -> bool:
        """The test seam: `host` answered by `resolve` (CURLOPT_RESOLVE), no DNS asked.

        False when it answers no address at all: the name does not resolve.
        """
        assert self._resolve is not None
        parts = urlsplit(url)
        host = parts.hostname or ""
        addresses = self._resolve(host)
        if addresses is not None and not addresses:
            return False
        entries = []
        if addresses:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            shown = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
            # The entry goes into the multi's DNS cache: "-" drops an earlier answer first.
            entries = [f"-{host}:{port}", f"{host}:{port}:{shown}"]
        handle.curl.setopt(pycurl.RESOLVE, entries)
        return True

    def _new_handle(self) -> Handle:
        handle = Handle(
            user_agent=self._user_agent,
            reach=self._reach,
            ca_file=self._ca_file,
            insecure=self._insecure,
        )
        self._handles.append(handle)
        return handle


def _soon(loop: asyncio.AbstractEventLoop, call: Callable[..., None], *args: object) -> None:
    loop.call_soon(call, *args)


def _settle(future: asyncio.Future[tuple[int, str]], value: tuple[int, str]) -> None:
    if not future.done():
        future.set_result(value)


def _header_lines(headers: Sequence[tuple[str, str]]) -> list[str]:
    # curl(1): "Name;" sends an empty header, "Name:" would remove it.
    return [f"{name}: {value}" if value else f"{name};" for name, value in headers]


def _sendable(url: str) -> str:
    """The URL as libcurl must get it: percent-encoded (aiohttp encodes what sitemaps leave raw)."""
    return encoded_url(url) if needs_escaping(url) else url
