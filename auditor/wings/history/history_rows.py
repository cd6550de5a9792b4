"""What the history keeps of a URL, and the check results it rebuilds. Pure: no I/O.

A row is small: the URL's digest, when it was last requested, the lastmod its sitemap gave,
flags, its status, the time the answer took and the page's validators. A plain answer (a 2xx
of the URL itself, no finding) is all there: the row rebuilds it. Anything more (redirects,
findings) is kept whole, as a compact JSON array, so that a carried or resumed verdict reads
as it was found. Rows come from a file on disk: a value that does not decode is no verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import NamedTuple

import orjson

from auditor.checks.indexability import not_indexable
from auditor.checks.page_rules import PAGE_CODES, blocked_page
from auditor.codes import Code
from auditor.models import CheckResult, Finding, NotIndexable, Redirect, Validators
from auditor.sitemap.dates import parse_lastmod

# Flags of a row.
FAILED = 1  # its last check found an error
CHANGED = 2  # its last check differed from the one before
STALE = 4  # its sitemap's lastmod changed since it was last requested (or first listed)
HEAD = 8  # its last plain answer came to a HEAD request (else GET)
# A kept result larger than this was not written by us: no verdict.
MAX_RESULT_BYTES = 64 * 1024
# Findings a check makes of this request alone: a confirmed verdict takes this run's.
_OWN_CODES = frozenset({Code.URL_BLOCKED_BY_ROBOTS, Code.URL_SLOW, Code.LASTMOD_BEHIND_PAGE})
_REASONS = {reason.value: reason for reason in NotIndexable}


class Known(NamedTuple):
    """A URL's row: what the history knows of it."""

    digest: int
    checked: int | None  # Unix seconds of its last request; None: never requested
    lastmod: int | None  # the lastmod its sitemap gave when last listed (Unix seconds)
    flags: int = 0
    status: int | None = None
    elapsed: int | None = None  # ms
    etag: str | None = None
    modified: int | None = None  # its Last-Modified (Unix seconds)
    result: bytes | None = None  # its last check whole, when more than a plain answer

    @property
    def requested(self) -> bool:
        """Whether it was ever requested (it has a verdict)."""
        return self.checked is not None

    @property
    def validators(self) -> Validators | None:
        """What its next check sends, to be answered 304 if the page did not change."""
        if self.etag is None and self.modified is None:
            return None
        modified = http_date(self.modified) if self.modified is not None else None
        return Validators(self.etag, modified)


def lastmod_seconds(text: str | None) -> int | None:
    """A sitemap's lastmod as Unix seconds (the earliest it can mean); None: none, or invalid."""
    parsed = parse_lastmod(text) if text else None
    return int(parsed.earliest.timestamp()) if parsed is not None else None


def http_date_seconds(text: str | None) -> int | None:
    """An HTTP-date (RFC 9110 §5.6.7) as Unix seconds; None when it is not one."""
    if not text:
        return None
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return int(moment.timestamp()) if moment.tzinfo is not None else None


def http_date(seconds: int) -> str:
    """Unix seconds as an IMF-fixdate, the HTTP-date senders use (RFC 9110 §5.6.7)."""
    return format_datetime(datetime.fromtimestamp(seconds, UTC), usegmt=True)


def listed(known: Known | None, digest: int, lastmod: int | None) -> tuple[Known, bool]:
    """A URL as this run's sitemap lists it: its row now, and whether the row changed.

    A lastmod that moved since the row's marks the URL stale until it is requested; a lastmod
    that appears or goes says nothing of the page.
    """
    if known is None:
        return Known(digest, None, lastmod), True
    if lastmod == known.lastmod:
        return known, False
    moved = lastmod is not None and known.lastmod is not None
    flags = known.flags | STALE if moved else known.flags
    return known._replace(lastmod=lastmod, flags=flags), True


def after_check(
    previous: Known | None, loc: str, digest: int, result: CheckResult, *, at: int
) -> Known:
    """The row of the URL at `loc` just checked (`result` is what the report says of it).

    Its lastmod is the one its listing gave (the row's, as `listed` left it), now seen.
    """
    flags = FAILED if result.failing else 0
    if previous is not None and previous.requested and not result.not_modified:
        before = rebuilt(loc, previous) if previous.result else None
        if _signature(before, previous) != _signature(result, None):
            flags |= CHANGED
    blob = result_blob(result, loc)
    if blob is None and result.method == "HEAD":
        flags |= HEAD
    # Validators only of a page that answered itself: a redirect's target's are not its own;
    # nor of a page robots.txt blocked, whose head was not judged: a 304 could not confirm it.
    validators = result.validators if not blocked_page(result.findings) else None
    validators = validators or Validators(None, None)
    return Known(
        digest,
        at,
        previous.lastmod if previous is not None else None,
        flags,
        result.status,
        result.elapsed_ms,
        validators.etag,
        http_date_seconds(validators.last_modified),
        blob,
    )


def _signature(result: CheckResult | None, row: Known | None) -> tuple[object, ...]:
    """What makes two checks differ: status, where it ends, verdict, canonical, codes."""
    if result is None:  # a plain answer's row
        return (row.status if row is not None else None, False, None, None, ())
    codes = sorted({item.code.value for item in result.findings if item.code is not Code.URL_SLOW})
    canonical = next(
        (
            item.detail.get("canonical")
            for item in result.findings
            if item.code is Code.URL_CANONICAL_ELSEWHERE and item.detail
        ),
        None,
    )
    moved = bool(result.redirects) or result.final_status != result.status
    return (result.status, moved, result.not_indexable, canonical, tuple(codes))


def is_plain(result: CheckResult) -> bool:
    """Whether the row alone rebuilds the result: the URL's own 2xx, no finding."""
    status = result.status
    return (
        status is not None
        and 200 <= status < 300
        and result.final_status == status
        and not result.redirects
        and not result.findings
        and result.not_indexable is None
        and result.method in ("GET", "HEAD")
    )


def result_blob(result: CheckResult, loc: str) -> bytes | None:
    """A result as kept whole: None for a plain one; the final URL kept only where it moved."""
    if is_plain(result):
        return None
    findings = [_finding_row(item, loc) for item in result.findings]
    final = True if result.final_url is not None and result.final_url == loc else result.final_url
    return orjson.dumps(
        [
            result.status,
            final,
            result.final_status,
            [[hop.url, hop.status] for hop in result.redirects],
            result.method,
            findings,
            result.not_indexable.value if result.not_indexable is not None else None,
            result.last_modified,
        ]
    )


def _finding_row(item: Finding, loc: str) -> list[object]:
    message = item.message if item.message != item.code.info.title else None
    url = item.url if item.url != loc else True
    detail = dict(item.detail) if item.detail else None
    return [item.code.value, message, url, item.sitemap, detail]


def rebuilt(loc: str, known: Known, *, carried: bool = False) -> CheckResult | None:
    """The last check of the URL at `loc`, as the row keeps it; None when it has none.

    A row that does not decode (a damaged or foreign file) has no verdict.
    """
    if known.checked is None:
        return None
    if known.result is None:
        result = _plain(loc, known)
    else:
        try:
            result = _decoded(loc, known.result)
        except (TypeError, ValueError, KeyError, IndexError, orjson.JSONDecodeError):
            return None
        result.elapsed_ms = known.elapsed if isinstance(known.elapsed, int) else None
        result.etag = known.etag if isinstance(known.etag, str) else None
    result.checked_at = float(known.checked)
    result.carried = carried
    return result


def _plain(loc: str, known: Known) -> CheckResult:
    status = known.status
    return CheckResult(
        status,
        final_url=loc,
        final_status=status,
        elapsed_ms=known.elapsed,
        method="HEAD" if known.flags & HEAD else "GET",
        last_modified=http_date(known.modified) if known.modified is not None else None,
        etag=known.etag,
    )


def _decoded(loc: str, blob: bytes) -> CheckResult:
    if len(blob) > MAX_RESULT_BYTES:
        raise ValueError("too large")
    status, final, final_status, hops, method, findings, reason, modified = orjson.loads(blob)
    return CheckResult(
        _status(status),
        final_url=loc if final is True else _text(final),
        final_status=_status(final_status),
        redirects=tuple(Redirect(_str(url), _int(code)) for url, code in hops),
        method=_text(method),
        findings=tuple(_finding(row, loc) for row in findings),
        last_modified=_text(modified),
        not_indexable=_REASONS[reason] if reason is not None else None,
    )


def _finding(row: Sequence[object], loc: str) -> Finding:
    code_text, message, url, sitemap, detail = row
    code = Code(_str(code_text))
    if detail is not None and not (
        isinstance(detail, Mapping)
        and all(isinstance(value, str | int | float | bool | None) for value in detail.values())
    ):
        raise TypeError("detail")
    return Finding(
        code,
        _text(message) or code.info.title,
        loc if url is True else _text(url),
        _text(sitemap),
        dict(detail) if detail else None,
    )


def confirmed(last: CheckResult, answer: CheckResult) -> CheckResult:
    """A verdict a 304 confirmed: the last check's, with what this request judged itself.

    robots.txt is read by this run, and the time the answer took is this request's; the rest
    is the page's, which did not change (RFC 9110 §15.4.5).
    """
    findings = tuple(item for item in last.findings if item.code not in _OWN_CODES)
    if blocked_page(answer.findings):  # what the page says Google no longer reads
        findings = tuple(item for item in findings if item.code not in PAGE_CODES)
    findings += tuple(item for item in answer.findings if item.code in _OWN_CODES)
    result = CheckResult(
        last.status,
        final_url=last.final_url,
        final_status=last.final_status,
        redirects=last.redirects,
        elapsed_ms=answer.elapsed_ms,
        method=answer.method,
        findings=findings,
        last_modified=last.last_modified,
        etag=last.etag,
        not_modified=True,
    )
    result.not_indexable = not_indexable(result)
    return result


def _status(value: object) -> int | None:
    if value is None:
        return None
    return _int(value)


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not an integer")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _text(value: object) -> str | None:
    return None if value is None else _str(value)
