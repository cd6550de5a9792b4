"""A document's answer over libcurl: its head read, its body streamed as it comes.

The transfer is paused while the reader is behind (auditor.net.curl_client resumes it).
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

import pycurl

from auditor.errors import FetchError
from auditor.net.answer_head import parse_head
from auditor.net.curl_handle import STREAM_BUFFER_BYTES, Handle
from auditor.net.transport import ClosingResponse

if TYPE_CHECKING:
    from auditor.net.curl_client import CurlTransport

# A document's bytes handed to its reader at once (about, at most), as aiohttp's pieces.
READ_BYTES = 64 * 1024


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
        self.headers = parse_head(handle.head.getvalue())
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
