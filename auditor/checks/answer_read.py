"""One answer as a check reads it: conditional requests, validators, the body's prefix.

RFC 9110 §13 (conditional requests): a page's ETag and Last-Modified, sent back to ask whether it
changed; a 304 says it did not. The body is read only as far as a check needs (its head).
"""

from __future__ import annotations

from collections.abc import Mapping

from auditor.errors import CompressionError
from auditor.limits import MAX_VALIDATOR_CHARS
from auditor.models import CheckResult, Finding, Redirect, Validators
from auditor.net.body_pace import Read
from auditor.net.decompress import BodyDecoder
from auditor.net.opener import Opened

# RFC 9110 §15.4.5: the answer to a conditional request whose condition is false.
NOT_MODIFIED = 304
# Content types that have an HTML head; a body without a Content-Type may have one too.
_HTML_TYPES = ("text/html", "application/xhtml+xml")


def check_result(
    opened: Opened,
    status: int,
    found: list[Finding],
    *,
    last_modified: str | None,
    etag: str | None = None,
) -> CheckResult:
    chain: tuple[Redirect, ...] = opened.redirects
    return CheckResult(
        chain[0].status if chain else status,
        final_url=opened.final_url,
        final_status=status,
        redirects=chain,
        elapsed_ms=round(opened.elapsed_s * 1000),
        method=opened.method.value.upper(),
        findings=tuple(found),
        last_modified=last_modified,
        etag=etag,
    )


def conditional_headers(validators: Validators | None) -> dict[str, str] | None:
    """RFC 9110 §13.1.2, §13.1.3: ask for the page only if it changed since these validators."""
    if validators is None:
        return None
    headers = {}
    if validators.etag is not None:
        headers["If-None-Match"] = validators.etag
    if validators.last_modified is not None:
        headers["If-Modified-Since"] = validators.last_modified
    return headers or None


def not_modified(opened: Opened, found: list[Finding]) -> CheckResult:
    """A 304 to a conditional request (RFC 9110 §15.4.5): the page did not change.

    Nothing of the page is read or judged; the history keeps its last verdict. Only what this
    run judges before asking (robots.txt) and the time it took are this check's own.
    """
    opened.response.close()
    result = check_result(opened, NOT_MODIFIED, found, last_modified=None)
    result.not_modified = True
    return result


def may_have_head(content_type: str | None) -> bool:
    """Whether a body may hold an HTML head worth reading (no type said: maybe)."""
    return content_type is None or content_type.split(";", 1)[0].strip().lower() in _HTML_TYPES


def last_modified_of(headers: Mapping[str, str]) -> str | None:
    """The page's Last-Modified, unless it is the answer's Date: dynamic pages say "now"."""
    value = headers.get("Last-Modified")
    return bounded_validator(value) if value is not None and value != headers.get("Date") else None


def bounded_validator(value: str | None) -> str | None:
    """A validator kept to be sent back; a longer one is not a validator worth keeping."""
    return value if value is not None and len(value) <= MAX_VALIDATOR_CHARS else None


async def read_prefix(read: Read, encoding: str | None, *, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes of the body, decoded where possible; and whether more may follow.

    A short body is read to its end, so the connection goes back to the pool; a longer one is
    dropped with its connection when the response closes.
    """
    first = await read()
    if len(first) >= limit or not first:  # a body read whole by the transport: no copy
        raw: bytes | bytearray = first
    else:
        raw = bytearray(first)
        while len(raw) < limit and (chunk := await read()):
            raw += chunk
    more = len(raw) >= limit
    if not encoding and raw[:2] != b"\x1f\x8b":
        kept = bytes(raw[:limit]) if len(raw) > limit or isinstance(raw, bytearray) else raw
        return kept, more
    decoded = bytearray()
    try:
        for piece in BodyDecoder(encoding).feed(bytes(raw)):
            decoded += piece
            if len(decoded) >= limit:
                more = True
                break
    except CompressionError:
        pass  # a page, not a sitemap: a broken encoding only hides its head from us
    return bytes(decoded[:limit]), more
