"""Whether a URL a page points to (its canonical, an hreflang alternate) is indexable.

Judged from that URL's own check, in this one place: a per-URL indexability verdict replaces
`not_indexable` when there is one. The order is Screaming Frog's "Indexability Status": no
answer, client error, server error, redirected, blocked by robots.txt, noindex, canonicalised.
Pure: no I/O.
"""

from __future__ import annotations

from enum import StrEnum

from auditor.codes import Code
from auditor.models import CheckResult


class Reason(StrEnum):
    """Why a URL is not indexable."""

    NO_ANSWER = "no_answer"
    CLIENT_ERROR = "client_error"
    SERVER_ERROR = "server_error"
    REDIRECTED = "redirected"
    BLOCKED_BY_ROBOTS = "blocked_by_robots"
    NOINDEX = "noindex"
    CANONICALISED = "canonicalised"


_BY_CODE = (
    (frozenset({Code.URL_BLOCKED_BY_ROBOTS}), Reason.BLOCKED_BY_ROBOTS),
    (frozenset({Code.URL_NOINDEX, Code.URL_UNAVAILABLE_AFTER}), Reason.NOINDEX),
    (frozenset({Code.URL_CANONICAL_ELSEWHERE, Code.REDIRECT_META_REFRESH}), Reason.CANONICALISED),
)


def not_indexable(result: CheckResult) -> Reason | None:
    """Why the checked URL is not indexable (None: it is, or its answer does not tell)."""
    status = result.status
    reason = _by_status(status) if not result.redirects else Reason.REDIRECTED
    if reason is not None or status is None:
        return reason
    codes = {item.code for item in result.findings}
    if Code.HTTP_BLOCKED in codes:  # a bot shield's page: not the page, nothing to tell
        return None
    return next((reason for wanted, reason in _BY_CODE if not codes.isdisjoint(wanted)), None)


def _by_status(status: int | None) -> Reason | None:
    if status is None:
        return Reason.NO_ANSWER
    if 400 <= status < 500 and status != 429:  # 429: refused to us, maybe not to Google
        return Reason.CLIENT_ERROR
    if 500 <= status < 600:
        return Reason.SERVER_ERROR
    return None
