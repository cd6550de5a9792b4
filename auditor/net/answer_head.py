"""An answer's head as libcurl hands it over: its fields, read as aiohttp reads them.

Within aiohttp's bounds, so that both transports refuse the same heads (net.protocol). Pure: no
I/O.
"""

from __future__ import annotations

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net.transport import Headers

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
    # As aiohttp reads them: UTF-8, bytes that are not kept as surrogates (a raw UTF-8
    # Location is a URL to encode, not Latin-1 mojibake).
    lines = raw.decode("utf-8", "surrogateescape").split("\n")
    start = 0
    for number in range(len(lines) - 1, -1, -1):
        if lines[number].startswith("HTTP/"):
            start = number + 1
            break
    items: list[tuple[str, str]] = []
    for line in lines[start:]:
        text = line.rstrip("\r")
        if len(text) > MAX_HEAD_LINE_BYTES or (len(items) >= MAX_HEADERS and text):
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
    return Headers(items)
