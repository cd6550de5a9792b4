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
from dataclasses import dataclass
from types import TracebackType
from typing import NamedTuple, Protocol, Self, cast

from auditor.errors import FetchError


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
# aiohttp's bounds on an answer's head (its parser's defaults), held by every transport: a
# line of at most 8,190 bytes, at most 128 header lines.
MAX_HEAD_LINE_BYTES = 8190
MAX_HEADERS = 128
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
_WANTED = {name.encode(): name for name in CHECK_FIELDS}  # lower-case, as bytes -> as str


def collect_fields(pairs: Sequence[tuple[str, str]]) -> tuple[Fields, Repeated]:
    """(lower-case name, value) pairs, in the order received, as an Answer keeps them."""
    first: Fields = {}
    repeated: Repeated = None
    for name, value in pairs:
        if name in first:
            repeated = repeated or {}
            repeated.setdefault(name, [first[name]]).append(value)
        else:
            first[name] = value
    return first, repeated


def check_fields(head: bytes) -> tuple[Fields, Repeated] | None:
    """The CHECK_FIELDS of an answer's head (its last one: 1xx answers come first).

    None when the head breaks aiohttp's bounds (too many lines, or one too long).
    """
    start = head.rfind(b"\nHTTP/") + 1  # 0: the first line is the status line
    block = head[start:] if start else head
    long = len(block) > MAX_HEAD_LINE_BYTES or block.count(b"\n") > MAX_HEADERS + 1
    if long and head_over_bounds(block):
        return None
    if b"\n " in block or b"\n\t" in block or not block.isascii():
        # RFC 9112 §5.2: obsolete line folding; or a raw UTF-8 value: read as aiohttp reads it
        return collect_fields([pair for pair in parse_head(block) if pair[0] in CHECK_FIELDS])
    first: Fields = {}
    repeated: Repeated = None
    wanted = _WANTED
    for line in block.split(b"\n"):  # a line at a time: a regex over the head cost 2x
        raw, colon, value = line.partition(b":")
        if not colon:
            continue
        name = wanted.get(raw.strip(b" \t").lower())
        if name is None:
            continue
        text = value.strip(b" \t\r").decode("ascii")
        if name in first:
            repeated = repeated or {}
            repeated.setdefault(name, [first[name]]).append(text)
        else:
            first[name] = text
    return first, repeated


def head_over_bounds(head: bytes) -> bool:
    """Whether a head (whole or cut short) has more lines, or a longer line, than aiohttp takes."""
    lines = head.split(b"\n")
    fields = sum(1 for line in lines if line.strip(b"\r") and not line.startswith(b"HTTP/"))
    return fields > MAX_HEADERS or any(
        len(line.rstrip(b"\r")) > MAX_HEAD_LINE_BYTES for line in lines
    )


def parse_head(raw: bytes) -> list[tuple[str, str]]:
    """The last answer's header fields as (lower-case name, value), in order.

    As aiohttp reads them: UTF-8, bytes that are not kept as surrogates (a raw UTF-8 Location
    is a URL to encode, not Latin-1 mojibake). The caller has held the head to the bounds.
    """
    lines = raw.decode("utf-8", "surrogateescape").split("\n")
    start = 0
    for number in range(len(lines) - 1, -1, -1):
        if lines[number].startswith("HTTP/"):
            start = number + 1
            break
    items: list[tuple[str, str]] = []
    for line in lines[start:]:
        text = line.rstrip("\r")
        if not text:
            continue
        if text[0] in " \t" and items:  # RFC 9112 §5.2: obsolete line folding, one space
            name, value = items[-1]
            items[-1] = (name, f"{value} {text.strip()}")
            continue
        name, colon, value = text.partition(":")
        if colon:
            items.append((name.strip().lower(), value.strip()))
    return items
