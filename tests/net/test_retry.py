"""Retry-After parsing and backoff delays."""

from __future__ import annotations

import pytest

from auditor.net.retry import backoff_s, retry_after_s
from tests.helpers import NOW


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, None),
        ("", None),
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("Mon, 23 Nov 2026 12:01:30 GMT", 90.0),  # an HTTP-date in the future
        ("Mon, 23 Nov 2026 11:00:00 GMT", 0.0),  # in the past: no wait
        ("soon", None),
        ("-5", None),
        ("1.5", None),
        ("Mon, 99 Nov 2026 12:00:00 GMT", None),
        pytest.param(
            "\u00b2",  # superscript two: str.isdigit() says yes, float() says no
            None,
        ),
        pytest.param(
            "\u0663",  # Arabic-Indic three: not an RFC 9110 DIGIT
            None,
        ),
    ],
)
def test_retry_after(value: str | None, seconds: float | None) -> None:
    assert retry_after_s(value, now=NOW) == seconds


@pytest.mark.parametrize("attempt", range(8))
def test_backoff_is_exponential_within_the_jitter_bounds(attempt: int) -> None:
    base_s, cap_s = 0.5, 10.0
    full = min(cap_s, base_s * 2**attempt)
    low = backoff_s(attempt, base_s=base_s, cap_s=cap_s, retry_after=None, jitter=0.0)
    mid = backoff_s(attempt, base_s=base_s, cap_s=cap_s, retry_after=None, jitter=0.5)
    high = backoff_s(attempt, base_s=base_s, cap_s=cap_s, retry_after=None, jitter=0.999999)
    assert low == pytest.approx(full / 2)
    assert mid == pytest.approx(full * 0.75)
    assert full / 2 <= low < mid < high < full
    assert high <= cap_s


def test_backoff_doubles_until_the_cap() -> None:
    delays = [
        backoff_s(attempt, base_s=1.0, cap_s=8.0, retry_after=None, jitter=0.0)
        for attempt in range(6)
    ]
    assert delays == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


@pytest.mark.parametrize(("retry_after", "delay"), [(3.0, 3.0), (0.0, 0.0), (300.0, 10.0)])
def test_retry_after_wins_but_is_capped(retry_after: float, delay: float) -> None:
    got = backoff_s(5, base_s=0.5, cap_s=10.0, retry_after=retry_after, jitter=0.9)
    assert got == delay
