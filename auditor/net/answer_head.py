"""An answer's head as libcurl hands it over: its fields, read as aiohttp reads them.

Within aiohttp's bounds, so that both transports refuse the same heads (net.protocol). Pure: no
I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net.transport import CHECK_FIELDS, Fields, Headers, Repeated

# aiohttp's bounds on an answer's head (its parser's defaults), held the same here: a line of at
# most 8,190 bytes, at most 128 header lines. libcurl's own limits (100 KB a line, 300 KB a head)
# bound what is buffered before these are judged.
MAX_HEAD_LINE_BYTES = 8190
MAX_HEADERS = 128


def head_over_bounds(raw: bytes) -> bool:
    """Whether a head (whole or cut short) has more lines, or a longer line, than aiohttp takes."""
    lines = raw.split(b"\n")
    fields = sum(1 for line in lines if line.strip(b"\r") and not line.startswith(b"HTTP/"))
    return fields > MAX_HEADERS or any(
        len(line.rstrip(b"\r")) > MAX_HEAD_LINE_BYTES for line in lines
    )


def parse_head(raw: bytes) -> Headers:
    """The last answer's header fields (1xx answers and a proxy's CONNECT answer come first)."""
    return Headers(_last_fields(raw, bounded=True))


def _last_fields(raw: bytes, *, bounded: bool) -> list[tuple[str, str]]:
    """The last answer's (name, value) fields, in order, folded lines joined.

    As aiohttp reads them: UTF-8, bytes that are not kept as surrogates (a raw UTF-8 Location
    is a URL to encode, not Latin-1 mojibake). `bounded`: a head over aiohttp's bounds is
    net.protocol; else the caller has held it to them.
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
        if bounded and (len(text) > MAX_HEAD_LINE_BYTES or (len(items) >= MAX_HEADERS and text)):
            raise FetchError(Code.NET_PROTOCOL, "an answer head over aiohttp's bounds")
        if not text:
            continue
        if text[0] in " \t" and items:  # RFC 9112 §5.2: obsolete line folding, one space
            name, value = items[-1]
            items[-1] = (name, f"{value} {text.strip()}")
            continue
        name, colon, value = text.partition(":")
        if colon:
            items.append((name.strip(), value.strip()))
    return items


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
        return collect_fields([pair for pair in head_pairs(block) if pair[0] in CHECK_FIELDS])
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


def head_pairs(raw: bytes) -> list[tuple[str, str]]:
    """The last answer's header fields as (lower-case name, value), in order (within bounds)."""
    return [(name.lower(), value) for name, value in _last_fields(raw, bounded=False)]
