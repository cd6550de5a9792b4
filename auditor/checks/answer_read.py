"""An answer as a check reads it: conditional requests, validators, the body's prefix. Pure.

What auditor.checks.check_run and the plain lane (auditor.checks.plain_lane) share.
"""

from __future__ import annotations

from auditor.limits import MAX_VALIDATOR_CHARS
from auditor.models import Validators
from auditor.net.transport import Answer

# A GET reads at most this much of a body (the head: robots meta, canonical; bot challenges),
# then lets go.
MAX_BODY_PREFIX_BYTES = 64 * 1024
# A head still open past that (inline CSS) is read on, as far as Google fetches: "Googlebot
# crawls the first 2MB of a supported file type" (Search Central, "Googlebot"). Only those
# pages pay for it, a few at a time (memory: this many pages of 2 MB). See
# docs/explanation/rules.md#page-head.
MAX_PAGE_BYTES = 2 * 1024 * 1024
# RFC 9110 §15.4.5: the answer to a conditional request whose condition is false.
NOT_MODIFIED = 304
# Content types that have an HTML head; a body without a Content-Type may have one too.
_HTML_TYPES = ("text/html", "application/xhtml+xml")


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


def has_head(content_type: str | None) -> bool:
    """Whether a body may hold an HTML head worth reading (no type said: maybe)."""
    return is_html(content_type)


_TYPES_KEPT = 64  # Content-Type values whose verdict is kept (a site sends a few)
_html_types: dict[str | None, bool] = {}


def is_html(content_type: str | None) -> bool:
    """Whether a body of this Content-Type may hold an HTML head (no type said: maybe)."""
    known = _html_types.get(content_type)
    if known is None:
        if len(_html_types) >= _TYPES_KEPT:
            _html_types.clear()
        known = _html_types[content_type] = (
            content_type is None or content_type.split(";", 1)[0].strip().lower() in _HTML_TYPES
        )
    return known


def has_read(answer: Answer, body: bytes) -> bool:
    """Whether a head was read at all (an HTML body), not only found to say nothing."""
    return bool(body) and has_head(answer.get("content-type"))


def last_modified_of(answer: Answer) -> str | None:
    """The page's Last-Modified, unless it is the answer's Date: dynamic pages say "now"."""
    value = answer.get("last-modified")
    return bounded(value) if value is not None and value != answer.get("date") else None


def bounded(value: str | None) -> str | None:
    """A validator kept to be sent back; a longer one is not a validator worth keeping."""
    return value if value is not None and len(value) <= MAX_VALIDATOR_CHARS else None
