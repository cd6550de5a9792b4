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
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import pycurl

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net import causes
from auditor.net.answer_head import check_fields, head_over_bounds
from auditor.net.curl_handle import (
    ACCEPT_ENCODING,
    E_WRITE_ERROR,
    RESPONSE_CODE,
    TOTAL_TIME_T,
    Handle,
    Stream,
    refused,
)
from auditor.net.curl_lines import HeaderLines, pin, sendable
from auditor.net.curl_loop import CurlLoop
from auditor.net.curl_open import certificate_problem, opened
from auditor.net.curl_response import CurlResponse
from auditor.net.transport import (
    Answer,
    Began,
    ConnectionPolicy,
    Done,
    Response,
    Timeouts,
)
from auditor.net.transport import answer as new_answer

__all__ = ["ACCEPT_ENCODING", "CurlResponse", "CurlTransport"]

log = logging.getLogger("auditor.net.curl_handle")  # -vv names libcurl's phases there
Resolve = Callable[[str], Sequence[str] | None]  # a test's name -> addresses (no DNS)


class CurlTransport:
    """libcurl's multi interface in the loop: connection limits, our headers, no cookies."""

    def __init__(self, policy: ConnectionPolicy, *, resolve: Resolve | None = None) -> None:
        """`policy`: limits, headers and their hosts, TLS, reach (auditor.net.transport).

        Its `ca_file` replaces libcurl's CAs (CURLOPT_CAINFO): the system's and the extra one
        together (auditor.http_stack builds it). `resolve`: a test's answers for some names,
        pinned with CURLOPT_RESOLVE; the guard judges them all the same.
        """
        self._user_agent = policy.user_agent
        self._header = HeaderLines(policy)
        self._reach = policy.reach
        self._ca_file = policy.ca_file
        self._insecure = policy.insecure
        self._resolve = resolve
        self._limits = (policy.per_host + policy.spare, policy.concurrency + policy.spare)
        self._free: list[Handle] = []
        self._handles: list[Handle] = []
        self._curl: CurlLoop | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._phases = log.isEnabledFor(logging.DEBUG)  # -vv: libcurl's phases, said once a run
        self._streams: set[CurlResponse] = set()  # documents handed over and not closed
        self.waiting: set[asyncio.Future[Any]] = set()  # `open` callers (tests, certificates)

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
        for future in self.waiting:
            future.cancel()
        self.waiting.clear()
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
        prefix, lines = self._header.last
        free = self._free
        if curl is None or headers or not free or not url.startswith(prefix) or self._resolve:
            self.send_with(
                url, verb=verb, headers=headers, max_body=max_body, timeouts=timeouts, done=done
            )
            return
        # The usual request: where the last one went, no headers of its own, a handle free.
        handle = free.pop()
        try:
            handle.prepare(sendable(url), verb, lines, timeouts, max_body)
        except (pycurl.error, ValueError, UnicodeError) as exc:
            free.append(handle)
            asyncio.get_running_loop().call_soon(done, refused(exc))
            return
        curl.add(handle.curl, functools.partial(self._sent, handle, done))

    def send_with(
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
        self.begin_with(url, verb=verb, headers=headers, timeouts=timeouts, done=done)

    def begin_with(
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

    def stop(self, handle: Handle) -> None:
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
        return await opened(
            self, url, timeouts=timeouts, method=method, headers=headers, max_body=max_body
        )

    async def certificate_problem(self, url: str, *, timeout_s: float) -> str | None:
        """Why `url`'s certificate fails verification (None: it passes, or no TLS answer).

        One HEAD request on a handle of its own, verified as a run without --insecure would,
        through the same guard.
        """
        assert self._curl is not None, "use the transport as an async context manager"
        handle = Handle(user_agent=self._user_agent, reach=self._reach, ca_file=self._ca_file)
        return await certificate_problem(self._curl, handle, sendable(url), timeout_s=timeout_s)

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
            lines = self._header.for_url(url, headers)
        except FetchError as error:
            loop.call_soon(done, error)
            return None
        handle = self._free.pop() if self._free else self._new_handle()
        if self._resolve is not None and not pin(handle, url, self._resolve):
            self._free.append(handle)
            host = urlsplit(url).hostname
            loop.call_soon(done, FetchError(Code.NET_DNS, causes.dns_words(host)))
            return None
        try:
            handle.prepare(sendable(url), verb, lines, timeouts, max_body, stream=stream)
        except (pycurl.error, ValueError, UnicodeError) as exc:
            self._free.append(handle)
            loop.call_soon(done, refused(exc))
            return None
        return handle

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
