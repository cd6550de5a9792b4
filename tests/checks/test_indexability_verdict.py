"""The indexability verdict's precedence (docs/explanation/rules.md#indexability), row by row.

Pure: check results as the checker builds them, judged without a network. The loopback tests of
tests/checks/test_indexability.py see the same verdicts in real reports.
"""

from __future__ import annotations

import pytest

from auditor.checks.indexability import not_indexable
from auditor.codes import Code
from auditor.models import (
    CheckResult,
    Finding,
    Indexability,
    JsonScalar,
    NotIndexable,
    Redirect,
)

URL = "https://example.com/a"
OTHER = "https://example.com/b"


def found(code: Code, **detail: JsonScalar) -> Finding:
    return Finding(code, code.info.title, URL, None, detail or None)


def answered(status: int, *findings: Finding, hops: tuple[Redirect, ...] = ()) -> CheckResult:
    first = hops[0].status if hops else status
    return CheckResult(first, OTHER if hops else URL, status, hops, 5, "GET", findings)


MOVED = (Redirect(URL, 301),)

# One row per reason, in precedence order, and the ties each row wins.
ROWS = [
    ("no answer at all", CheckResult(None, findings=(found(Code.NET_CONNECT),)), "no_response"),
    ("an internal error", CheckResult(None, findings=(found(Code.INTERNAL_ERROR),)), "no_response"),
    (
        "a redirect to a host that never answers",
        CheckResult(None, findings=(found(Code.NET_TIMEOUT),)),
        "no_response",
    ),
    (
        "a 200 whose body broke off",
        answered(200, found(Code.NET_PROTOCOL), found(Code.URL_NOINDEX, source="meta")),
        "no_response",
    ),
    (
        "a bot shield's 403",
        answered(403, found(Code.HTTP_BLOCKED, status=403, challenge="cloudflare")),
        "refused",
    ),
    (
        "a bot shield's page with 200",
        answered(200, found(Code.HTTP_BLOCKED, status=200, challenge="datadome")),
        "refused",
    ),
    ("429 after retries", answered(429, found(Code.HTTP_BLOCKED, status=429)), "refused"),
    ("404", answered(404, found(Code.HTTP_NOT_FOUND)), "client_error"),
    (
        "a redirect to a 404: broken first",
        answered(404, found(Code.REDIRECT_PERMANENT), hops=MOVED),
        "client_error",
    ),
    ("503", answered(503, found(Code.HTTP_SERVER_ERROR)), "server_error"),
    (
        "a redirect to a 500",
        answered(500, found(Code.HTTP_SERVER_ERROR), hops=MOVED),
        "server_error",
    ),
    (
        "a redirect to a 200",
        answered(200, found(Code.REDIRECT_PERMANENT), hops=MOVED),
        "redirected",
    ),
    (
        "a redirect into a path robots.txt blocks",
        answered(200, found(Code.URL_BLOCKED_BY_ROBOTS), hops=MOVED),
        "redirected",
    ),
    (
        "a redirect loop (no final answer)",
        CheckResult(301, redirects=MOVED, findings=(found(Code.REDIRECT_LOOP),)),
        "redirected",
    ),
    ("a 300 without Location", answered(300, found(Code.REDIRECT_BAD_LOCATION)), "redirected"),
    (
        "an instant meta refresh",
        answered(200, found(Code.REDIRECT_META_REFRESH, to=OTHER, delay=0)),
        "redirected",
    ),
    (
        "blocked by robots.txt, and noindex",
        answered(200, found(Code.URL_BLOCKED_BY_ROBOTS), found(Code.URL_NOINDEX, source="meta")),
        "blocked_by_robots",
    ),
    (
        "noindex in X-Robots-Tag, and a canonical elsewhere",
        answered(
            200,
            found(Code.URL_CANONICAL_ELSEWHERE, canonical=OTHER),
            found(Code.URL_NOINDEX, source="header"),
        ),
        "noindex_header",
    ),
    (
        "noindex in the meta tag",
        answered(200, found(Code.URL_NOINDEX, source="meta")),
        "noindex_meta",
    ),
    (
        "a past unavailable_after in X-Robots-Tag",
        answered(200, found(Code.URL_UNAVAILABLE_AFTER, date="2020-01-01", source="header")),
        "noindex_header",
    ),
    (
        "a canonical naming another URL, and a title saying not found",
        answered(
            200,
            found(Code.URL_TITLE_NOT_FOUND, title="Page not found"),
            found(Code.URL_CANONICAL_ELSEWHERE, canonical=OTHER, source="html"),
        ),
        "canonicalised",
    ),
    (
        "a title saying not found",
        answered(200, found(Code.URL_TITLE_NOT_FOUND, title="404")),
        "soft_404",
    ),
]


@pytest.mark.parametrize(("case", "check", "reason"), ROWS, ids=[row[0] for row in ROWS])
def test_each_row_of_the_precedence(case: str, check: CheckResult, reason: str) -> None:
    assert not_indexable(check) == NotIndexable(reason)


def test_the_rows_cover_every_reason_in_precedence_order() -> None:
    reasons = list(dict.fromkeys(NotIndexable(reason) for _, _, reason in ROWS))
    assert reasons == list(NotIndexable)


@pytest.mark.parametrize(
    "check",
    [
        answered(200),
        answered(204),
        # What a page may say and stay indexable: slow, canonicals that disagree (Google then
        # ignores them), a page newer than its lastmod, a 429 never seen (retried away).
        answered(200, found(Code.URL_SLOW, elapsed_ms=4000, threshold_ms=3000)),
        answered(200, found(Code.URL_CANONICAL_CONFLICT, canonicals=f"{URL} {OTHER}")),
        answered(200, found(Code.LASTMOD_BEHIND_PAGE, lastmod="2020-01-01")),
    ],
    ids=["200", "204", "slow", "canonical conflict", "lastmod behind"],
)
def test_a_plain_answer_stays_indexable(check: CheckResult) -> None:
    assert not_indexable(check) is None
    check.not_indexable = not_indexable(check)
    assert check.indexability is Indexability.INDEXABLE


def test_a_reason_reads_as_reports_say_it() -> None:
    # One spelling everywhere: the report's JSON value.
    assert all(reason.label == reason.value for reason in NotIndexable)
