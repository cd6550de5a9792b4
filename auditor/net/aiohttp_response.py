"""An aiohttp answer as the policy reads it (`AiohttpResponse`), and aiohttp's errors as codes.

Every foreign exception becomes a FetchError carrying a finding code, once, in
`translate_error`. Part of the aiohttp transport (auditor.net.client).
"""

from __future__ import annotations

import asyncio
import ssl
import weakref
from collections.abc import Mapping

import aiohttp
from aiohttp.client_proto import ResponseHandler

from auditor.codes import Code
from auditor.errors import BlockedAddressError, FetchError
from auditor.net import causes
from auditor.net.answer_head import collect_fields
from auditor.net.transport import CHECK_FIELDS, ClosingResponse, Fields, Repeated

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


TRANSLATED = (aiohttp.ClientError, OSError, TimeoutError, ValueError)


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

    def get(self, name: str) -> str | None:
        """A header's first value, or None."""
        return self._raw.headers.get(name)

    def check_fields(self) -> tuple[Fields, Repeated]:
        """The header fields a URL check reads (auditor.net.transport.CHECK_FIELDS)."""
        headers = self._raw.headers
        pairs = [(name.lower(), value) for name, value in headers.items()]
        return collect_fields([pair for pair in pairs if pair[0] in CHECK_FIELDS])

    async def read(self) -> bytes:
        """The next piece of the body as it arrives; b"" at its end."""
        try:
            return await self._raw.content.readany()
        except TRANSLATED as exc:
            raise translate_error(exc, timeout_s=self._timeout_s) from exc
        except RuntimeError as exc:
            # A body that breaks after its first piece was read (a bad chunk size, say) closes
            # the connection without marking the body failed; aiohttp's StreamReader then says
            # only "Connection closed." (streams.StreamReader._wait).
            connection = self._raw.connection
            if connection is not None and not connection.closed:
                raise  # not a broken body: our own misuse, which must show
            raise FetchError(Code.NET_PROTOCOL, causes.BODY_BROKE_OFF) from exc

    def close(self) -> None:
        """Give the connection back when the body was read, else drop it."""
        if self._watch is not None:
            self._watch.body = None
        if self._raw.content.at_eof():
            self._raw.release()
        else:
            self._raw.close()
        super().close()
