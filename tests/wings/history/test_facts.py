"""What a history row keeps of a check, and the check it rebuilds: the same, or no verdict."""

from __future__ import annotations

import orjson
import pytest

from auditor.checks.indexability import not_indexable
from auditor.codes import Code
from auditor.models import CheckResult, Redirect, finding
from auditor.wings.history.history_rows import (
    CHANGED,
    FAILED,
    HEAD,
    MAX_RESULT_BYTES,
    STALE,
    Known,
    after_check,
    confirmed,
    http_date,
    http_date_seconds,
    lastmod_seconds,
    listed,
    rebuilt,
)

LOC = "https://example.com/p"
MODIFIED = "Tue, 05 Nov 2024 10:00:00 GMT"


def judged(result: CheckResult) -> CheckResult:
    result.not_indexable = not_indexable(result)
    return result


RESULTS = {
    "plain GET": judged(
        CheckResult(200, LOC, 200, (), 12, "GET", last_modified=MODIFIED, etag='"v1"')
    ),
    "plain HEAD": judged(CheckResult(204, LOC, 204, (), 3, "HEAD")),
    "404": judged(
        CheckResult(
            404, LOC, 404, (), 7, "GET", (finding(Code.HTTP_NOT_FOUND, url=LOC, status=404),)
        )
    ),
    "redirected": judged(
        CheckResult(
            301,
            "https://example.com/q",
            200,
            (Redirect(LOC, 301), Redirect("https://example.com/r", 302)),
            30,
            "GET",
            (
                finding(Code.REDIRECT_PERMANENT, url=LOC, target="https://example.com/q"),
                finding(Code.REDIRECT_CHAIN, "two hops", url=LOC, hops=2),
            ),
            last_modified=MODIFIED,
        )
    ),
    "no answer": judged(
        CheckResult(None, findings=(finding(Code.NET_TIMEOUT, "no answer in 2 s", url=LOC),))
    ),
    "noindex": judged(
        CheckResult(
            200,
            LOC,
            200,
            (),
            9,
            "GET",
            (finding(Code.URL_NOINDEX, url=LOC, final_url=LOC, source="meta"),),
            etag='W/"x"',
        )
    ),
}


def row_of(result: CheckResult, *, at: int = 1_700_000_000) -> Known:
    return after_check(Known(7, None, 123), LOC, 7, result, at=at)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_a_check_comes_back_as_it_was(name: str) -> None:
    result = RESULTS[name]
    back = rebuilt(LOC, row_of(result), carried=True)
    assert back is not None
    assert (back.checked_at, back.carried) == (1_700_000_000.0, True)
    back.checked_at, back.carried = None, False
    assert back == result


def test_a_plain_answer_is_kept_in_the_row_alone() -> None:
    row = row_of(RESULTS["plain HEAD"])
    assert (row.result, row.flags & HEAD, row.status) == (None, HEAD, 204)
    assert row_of(RESULTS["plain GET"]).modified == http_date_seconds(MODIFIED)
    assert row_of(RESULTS["404"]).result is not None


def test_only_a_page_that_answered_itself_keeps_validators() -> None:
    assert row_of(RESULTS["plain GET"]).validators == ('"v1"', MODIFIED)
    assert row_of(RESULTS["redirected"]).validators is None  # its Last-Modified is another's
    assert row_of(RESULTS["404"]).validators is None


NESTED_DETAIL: list[list[object]] = [["http.not_found", None, True, None, {"a": {}}]]


@pytest.mark.parametrize(
    "blob",
    [
        b"not json",
        b"[1, 2]",
        b'[200, true, 200, [], "GET", [["no.such_code", null, true, null, null]], null, null]',
        orjson.dumps([200, True, 200, [], "GET", NESTED_DETAIL, None, None]),
        b'["200", true, 200, [], "GET", [], null, null]',
        b'[200, true, 200, [["u"]], "GET", [], null, null]',
        b'[200, true, 200, [], "GET", [], "no_such_reason", null]',
        orjson.dumps([200, True, 200, [], "GET", [], None, "x" * MAX_RESULT_BYTES]),
    ],
)
def test_a_row_that_does_not_decode_has_no_verdict(blob: bytes) -> None:
    assert rebuilt(LOC, Known(7, 1_700_000_000, None, FAILED, 200, 5, None, None, blob)) is None


def test_a_row_never_requested_has_no_verdict() -> None:
    assert rebuilt(LOC, Known(7, None, 123)) is None


def test_a_listing_marks_a_moved_lastmod_stale() -> None:
    row, written = listed(None, 7, 100)
    assert (row, written) == (Known(7, None, 100), True)
    assert listed(row, 7, 100) == (row, False)
    moved, written = listed(row, 7, 200)
    assert (moved.lastmod, moved.flags & STALE, written) == (200, STALE, True)


def test_a_lastmod_that_appears_or_goes_says_nothing_of_the_page() -> None:
    for before, after in ((None, 100), (100, None)):
        row, written = listed(Known(7, 1, before), 7, after)
        assert (row.lastmod, row.flags, written) == (after, 0, True)


def test_a_check_clears_stale_and_says_failed_or_changed() -> None:
    stale = Known(7, 1_600_000_000, 200, STALE, 200, 5)
    assert row_of(RESULTS["plain GET"]).flags == 0
    again = after_check(stale, LOC, 7, RESULTS["plain GET"], at=1_700_000_000)
    assert (again.flags, again.lastmod) == (0, 200)
    broken = after_check(stale, LOC, 7, RESULTS["404"], at=1_700_000_000)
    assert broken.flags == FAILED | CHANGED
    same = after_check(broken, LOC, 7, RESULTS["404"], at=1_700_000_001)
    assert same.flags == FAILED
    noindex = after_check(same, LOC, 7, RESULTS["noindex"], at=1_700_000_002)
    assert noindex.flags == CHANGED


def test_a_slower_answer_is_no_change() -> None:
    slow = judged(
        CheckResult(
            200, LOC, 200, (), 4000, "GET", (finding(Code.URL_SLOW, url=LOC, elapsed_ms=4000),)
        )
    )
    first = row_of(RESULTS["plain GET"])
    assert after_check(first, LOC, 7, slow, at=1_700_000_001).flags & CHANGED == 0


def test_a_304_keeps_the_page_and_takes_this_request_s_own_findings() -> None:
    last = RESULTS["noindex"]
    answer = CheckResult(
        304,
        LOC,
        304,
        (),
        2,
        "HEAD",
        (finding(Code.URL_BLOCKED_BY_ROBOTS, url=LOC, robots="r", agent="a"),),
        not_modified=True,
    )
    result = confirmed(last, answer)
    assert (result.status, result.elapsed_ms, result.method, result.not_modified) == (
        200,
        2,
        "HEAD",
        True,
    )
    # Blocked since: the page's noindex is no longer read by Google
    # (docs/explanation/rules.md#robots-blocked-page).
    assert [item.code for item in result.findings] == [Code.URL_BLOCKED_BY_ROBOTS]
    assert result.not_indexable is not None
    assert result.not_indexable.value == "blocked_by_robots"
    row = after_check(row_of(last), LOC, 7, result, at=1_700_000_001)
    assert row.flags & CHANGED == 0  # confirmed, not compared


def test_a_304_of_a_page_still_allowed_keeps_what_the_page_said() -> None:
    slow = finding(Code.URL_SLOW, url=LOC, elapsed_ms=4000, threshold_ms=3000)
    answer = CheckResult(304, LOC, 304, (), 4000, "GET", (slow,), not_modified=True)
    result = confirmed(RESULTS["noindex"], answer)
    assert [item.code for item in result.findings] == [Code.URL_NOINDEX, Code.URL_SLOW]
    assert result.not_indexable is not None
    assert result.not_indexable.value == "noindex_meta"


def test_a_blocked_check_keeps_no_validators() -> None:
    """Its head was not judged: a later 304 could not confirm what it says."""
    blocked = finding(Code.URL_BLOCKED_BY_ROBOTS, url=LOC, robots="r", agent="a")
    result = CheckResult(200, LOC, 200, (), 5, "GET", (blocked,), etag='"v1"')
    assert result.validators is not None
    row = after_check(None, LOC, 7, result, at=1_700_000_001)
    assert (row.etag, row.modified, row.validators) == (None, None, None)


def test_dates_as_the_history_keeps_them() -> None:
    assert http_date(http_date_seconds(MODIFIED) or 0) == MODIFIED
    assert http_date_seconds("yesterday") is None
    assert lastmod_seconds("2024-11-05T10:00:00Z") == http_date_seconds(MODIFIED)
    assert lastmod_seconds("2024-13-01") is None
    assert lastmod_seconds(None) is None
