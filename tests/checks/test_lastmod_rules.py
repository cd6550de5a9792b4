"""lastmod.behind_page for a whole run: a deploy's Last-Modified values say nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from auditor.checks import lastmod_rules
from auditor.checks.lastmod_rules import BehindPages
from auditor.codes import Code

DEPLOY = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
LASTMOD = "2026-01-05"  # long before every Last-Modified below: each page is behind it


def at(minutes: float) -> str:
    return format_datetime(DEPLOY + timedelta(minutes=minutes), usegmt=True)


def behind(pages: list[tuple[str, float]]) -> list[str]:
    run = BehindPages()
    for name, minutes in pages:
        run.page(LASTMOD, at(minutes), url=name)
    found = run.findings()
    return sorted(item.url or "" for item in found.findings) if found is not None else []


def test_pages_stamped_in_one_deploy_window_say_nothing() -> None:
    deploy = [(f"p{n}", n * 7.0) for n in range(9)]  # 56 minutes from the first to the last
    assert behind(deploy) == []
    assert behind([*deploy, ("edited", 60 * 24 * 12)]) == ["edited"]  # 12 days later


def test_a_window_is_an_hour_long() -> None:
    inside = [("a", 0.0), ("b", 1.0), ("c", 59.0)]
    assert behind(inside) == []
    outside = [("a", 0.0), ("b", 1.0), ("c", 2.0), ("d", 60.0), ("e", 61.0)]
    assert behind(outside) == ["d", "e"]  # the first densest hour: minutes 0 to 59


@pytest.mark.parametrize(
    ("pages", "expected"),
    [
        # Two pages are no deploy: each page's own Last-Modified counts.
        ([("a", 0.0), ("b", 0.0)], ["a", "b"]),
        # A window holding less than half of the values is no deploy either.
        (
            [("a", 0.0), ("b", 0.0), ("c", 0.0), *((f"x{n}", 100.0 * (n + 1)) for n in range(4))],
            ["a", "b", "c", "x0", "x1", "x2", "x3"],
        ),
    ],
)
def test_no_deploy_without_enough_pages_in_the_window(
    pages: list[tuple[str, float]], expected: list[str]
) -> None:
    assert behind(pages) == expected


def test_pages_ahead_of_their_lastmod_count_for_the_window_too() -> None:
    """The window is the run's Last-Modified values: pages that are not behind count too."""
    run = BehindPages()
    for n in range(5):
        run.page("2026-11-04", at(n), url=f"fresh{n}")  # lastmod after the deploy: not behind
    run.page(LASTMOD, at(3), url="stale")
    assert run.findings() is None


def test_past_the_kept_ones_findings_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lastmod_rules, "MAX_KEPT", 2)
    run = BehindPages()
    for n in range(5):
        run.page(LASTMOD, at(n * 1000), url=f"p{n}")
    found = run.findings()
    assert found is not None
    assert [item.code for item in found.findings] == [Code.LASTMOD_BEHIND_PAGE] * 2
    assert found.omitted == {Code.LASTMOD_BEHIND_PAGE: 3}
