"""The seam at the HTTP edge: one request in, one answer out, whichever library sends it.

The policy above it is written once (`auditor.net.fetch`: retries, HEAD then GET, redirects hop
by hop, the per-host gate and breaker) against these protocols. Two transports implement them:
`auditor.net.curl_client` (libcurl in the event loop: the default) and `auditor.net.client`
(aiohttp: `--engine aiohttp`). Documents are opened as streamed `Response`s; a URL check's
request is `send`, and its `Answer` (status, the header fields the checks read, the body's
first bytes) comes back to a callback. Pure: no I/O.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import NamedTuple, Protocol, Self, cast

from auditor.errors import FetchError
from auditor.net.address_guard import Reach


@dataclass(frozen=True, slots=True)
class Timeouts:
    """How long a request may take.

    `total_s` bounds the whole request, body included; `idle_s` bounds the answer's head
    (connecting included) and then each silence while reading the body (a server that stalls).
    None: `total_s` alone bounds them, which spares timers per request (aiohttp re-arms the
    read timer at each chunk).
    """

    total_s: float
    idle_s: float | None


@dataclass(frozen=True, slots=True)
class ConnectionPolicy:
    """How a transport connects, alike for aiohttp's and libcurl's (auditor.http_stack makes it).

    The user's `headers` (cookies, tokens) go to `header_hosts` only (None: every host): a sitemap
    may list, and a redirect may lead to, any host, and a token for the audited site must not
    travel there, as browsers and curl drop credentials across hosts. `origin_headers` (a
    target's basic auth) go to the origin (`HttpUrl.origin`) they name. `spare`: connections
    beyond `concurrency` and `per_host` (the sitemap readers', robots.txt).
    `ca_file`: a CA trusted beside the system's (libcurl's: a bundle that replaces its own);
    `insecure`: no certificate is verified (--insecure). `reach`: the addresses it may connect to.
    """

    user_agent: str
    headers: tuple[tuple[str, str], ...] = ()
    header_hosts: frozenset[str] | None = None
    origin_headers: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    concurrency: int = 128
    per_host: int = 8
    spare: int = 0
    reach: Reach = Reach.ANY
    ca_file: Path | None = None
    insecure: bool = False


class Response(Protocol):
    """An answer, body unread: read it with `read()`, then close it (`async with response:`)."""

    on_close: Callable[[], None] | None  # called once, by the first close()

    @property
    def status(self) -> int:
        """The answer's status code."""

    @property
    def headers(self) -> Mapping[str, str]:
        """Looked up case-insensitively; the first value of a repeated header."""

    @property
    def body_encoding(self) -> str | None:
        """The Content-Encoding still on what `read()` gives (None: none, or undone already)."""

    @property
    def streamed(self) -> bool:
        """Whether `read()` waits on the network (the reader then bounds the body's pace)."""

    @property
    def elapsed_s(self) -> float | None:
        """How long the transport itself took for the answer (None: the caller times it)."""

    def header_values(self, name: str) -> list[str]:
        """Every value of a header that may repeat (X-Robots-Tag, Link)."""

    def get(self, name: str) -> str | None:
        """A header's first value (its name in any case), or None."""

    async def read(self) -> bytes:
        """The next piece of the body; b"" at its end. FetchError when the body broke off."""

    def close(self) -> None:
        """Let the connection go (back to the pool when the body was read)."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...


Done = Callable[["Answer | FetchError"], None]  # a sent request's answer, or why none came
Began = Callable[["Response | FetchError"], None]  # a streamed answer, or why none came


class Transport(Protocol):
    """Sends one request and gives its answer; never follows a redirect."""

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

        At most `max_body` bytes of the body, decoded. Always later, never from inside this call.
        """

    def begin(
        self,
        url: str,
        *,
        verb: str,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
        done: Began,
    ) -> None:
        """Send one request; `done` gets its Response or its FetchError.

        The body unread, streamed as it comes (a document's). Always later, never from inside
        this call.
        """


class Headers(Mapping[str, str]):
    """Response headers looked up case-insensitively, as aiohttp's CIMultiDict is."""

    __slots__ = ("_first", "_items")

    def __init__(self, items: Sequence[tuple[str, str]]) -> None:
        """`items`: (name, value) in the order received."""
        self._items = items
        first: dict[str, str] = {}
        for name, value in items:
            first.setdefault(name.lower(), value)
        self._first = first

    def __getitem__(self, name: str) -> str:
        return self._first[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._first

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        """The first value of the header, or `default` (a direct look-up: the hot path)."""
        return self._first.get(name.lower(), default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._first)

    def __len__(self) -> int:
        return len(self._first)

    def getall(self, name: str) -> list[str]:
        """Every value of the header, in order."""
        key = name.lower()
        if key not in self._first:  # most answers have no X-Robots-Tag, no Link
            return []
        return [value for item, value in self._items if item.lower() == key]


class ClosingResponse:
    """What both transports' answers share: `on_close` called once, and `async with`."""

    __slots__ = ("on_close",)

    def __init__(self) -> None:
        self.on_close: Callable[[], None] | None = None  # called once, by the first close()

    def close(self) -> None:
        """Let the caller's slot go (`on_close`); a transport adds its connection's release."""
        on_close, self.on_close = self.on_close, None
        if on_close is not None:
            on_close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class BufferedResponse(ClosingResponse):
    """An answer read whole by the transport (at most the body prefix asked for).

    `read()` hands the body over once; a body that broke off after the head (`error`) raises
    its FetchError at the read after the bytes that did come, as a streamed body would.
    """

    __slots__ = ("_body", "_elapsed_s", "_error", "headers", "status")

    body_encoding = None  # the transport undid the Content-Encoding
    streamed = False  # read whole by the transport, within its own time bounds

    def __init__(
        self,
        status: int,
        headers: Headers,
        body: bytes,
        *,
        elapsed_s: float | None = None,
        error: FetchError | None = None,
    ) -> None:
        self.status = status
        self.headers = headers
        super().__init__()
        self._body = body
        self._elapsed_s = elapsed_s
        self._error = error

    @property
    def elapsed_s(self) -> float | None:
        """The transport's own time for the request (libcurl's total time)."""
        return self._elapsed_s

    def header_values(self, name: str) -> list[str]:
        """Every value of a header that may repeat."""
        return self.headers.getall(name)

    def get(self, name: str) -> str | None:
        """A header's first value, or None."""
        return self.headers.get(name)

    async def read(self) -> bytes:
        """The body prefix, once; then its FetchError if it broke off; then b""."""
        body, self._body = self._body, b""
        if body:
            return body
        error, self._error = self._error, None
        if error is not None:
            raise error
        return b""


# The header fields a URL check reads (lower-case); an Answer keeps these and no others.
CHECK_FIELDS = frozenset(
    {
        "content-type",
        "location",
        "retry-after",
        "x-robots-tag",
        "link",
        "last-modified",
        "date",
        "etag",
        # bot shields (auditor.checks.answer_rules)
        "cf-mitigated",
        "x-amzn-waf-action",
        "x-datadome",
        "x-sucuri-block",
    }
)
Fields = dict[str, str]  # lower-case name -> its first value
Repeated = dict[str, list[str]] | None  # lower-case name -> every value, for names sent twice


class Answer(NamedTuple):
    """What a URL check reads of one answer: its status, the CHECK_FIELDS, the body's prefix.

    `fields`: each field's first value by its lower-case name; `repeated`: every value of the
    fields sent more than once. `more`: the body went on past the prefix asked for. `error`: the
    body broke off after a whole head (raised where a streamed body would have raised it,
    after its bytes). A tuple: one is made per URL checked (`answer`).
    """

    status: int
    fields: Fields
    repeated: Repeated = None
    body: bytes = b""
    more: bool = False
    elapsed_s: float | None = None
    error: FetchError | None = None

    def get(self, name: str) -> str | None:
        """The first value of a field (its lower-case name, one of CHECK_FIELDS), or None."""
        return self.fields.get(name)

    def values(self, name: str) -> list[str]:
        """Every value of a field that may repeat (x-robots-tag, link), in order."""
        repeated = self.repeated
        if repeated is not None and name in repeated:
            return list(repeated[name])
        value = self.fields.get(name)
        return [] if value is None else [value]

    @property
    def rare(self) -> bool:
        """Whether it has a field a page rarely sends: X-Robots-Tag, Link, a shield's mark."""
        return not PLAIN_FIELDS.issuperset(self.fields)

    @property
    def headers(self) -> Mapping[str, str]:
        """The fields kept, as a mapping looked up case-insensitively."""
        return Headers(list(self.fields.items()))

    def close(self) -> None:
        """Nothing to let go: the transport read what it kept and freed the connection."""


# An Answer made at tuple speed (a NamedTuple's own __new__ is a Python function).
answer = cast("Callable[[tuple[object, ...]], Answer]", functools.partial(tuple.__new__, Answer))


# Fields most answers send, which say nothing of the page's indexing by themselves.
PLAIN_FIELDS = frozenset(
    {"content-type", "location", "retry-after", "last-modified", "date", "etag"}
)
