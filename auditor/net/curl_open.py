"""An awaitable request over libcurl (`CurlTransport.open`), and a certificate's verdict.

For the documents' and the tests' callers; a URL check's request is a callback (`send`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pycurl

from auditor.errors import FetchError
from auditor.net import causes
from auditor.net.curl_handle import Handle
from auditor.net.curl_loop import CurlLoop
from auditor.net.curl_response import CurlResponse
from auditor.net.transport import (
    Answer,
    BufferedResponse,
    ClosingResponse,
    Headers,
    Response,
    Timeouts,
)

if TYPE_CHECKING:
    from auditor.net.curl_client import CurlTransport

_TLS_ERRORS = frozenset(
    getattr(pycurl, name)
    for name in dir(pycurl)
    if name.startswith("E_SSL") or name == "E_PEER_FAILED_VERIFICATION"
)


async def opened(
    transport: CurlTransport,
    url: str,
    *,
    timeouts: Timeouts,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    max_body: int | None = None,
) -> Response:
    """One request's answer: streamed (no `max_body`), else at most `max_body` bytes read."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    transport.waiting.add(future)

    def answered(answer: object) -> None:
        if future.cancelled():
            if isinstance(answer, ClosingResponse):
                answer.close()
            return
        future.set_result(answer)

    if max_body is None:
        handle = transport.begin_with(
            url, verb=method, headers=headers, timeouts=timeouts, done=answered
        )
    else:
        handle = transport.send_with(
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
            transport.stop(handle)
        raise
    finally:
        transport.waiting.discard(future)
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


async def certificate_problem(
    curl: CurlLoop, handle: Handle, url: str, *, timeout_s: float
) -> str | None:
    """Why `url`'s certificate fails verification on `handle` (None: it passes, or no TLS)."""
    future: asyncio.Future[tuple[int, str]] = asyncio.get_running_loop().create_future()
    try:
        timeouts = Timeouts(total_s=timeout_s, idle_s=timeout_s)
        handle.prepare(url, "HEAD", [], timeouts, 0)
        curl.add(handle.curl, lambda code, text: _settle(future, (code, text)))
        code, message = await future
    except (pycurl.error, ValueError, UnicodeError):
        return None
    finally:
        if not future.done():
            curl.remove(handle.curl)
        handle.curl.close()
    if code in _TLS_ERRORS:
        return causes.tls_words(message or pycurl.easy_strerror(code))
    return None


def _settle(future: asyncio.Future[tuple[int, str]], value: tuple[int, str]) -> None:
    if not future.done():
        future.set_result(value)
