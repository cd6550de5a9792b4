"""The order of a budget: due, lastmod changed, never checked, failed or changed, oldest."""

from __future__ import annotations

from auditor.wings.history.history_rows import CHANGED, FAILED, STALE, Known
from auditor.wings.history.order import DAY_S, Tier, due_after, sort_key, tier_of, tier_of_key

NOW = 1_800_000_000
WEEK = 7 * DAY_S


def tier(known: Known, max_age_s: int | None = WEEK) -> Tier:
    return tier_of(known, now_s=NOW, max_age_s=max_age_s)


def test_each_tier() -> None:
    assert tier(Known(1, NOW - WEEK, 5)) is Tier.DUE
    assert tier(Known(1, NOW - DAY_S, 5, STALE)) is Tier.LASTMOD_CHANGED
    assert tier(Known(1, None, 5, STALE)) is Tier.LASTMOD_CHANGED
    assert tier(Known(1, None, 5)) is Tier.NEVER_CHECKED
    assert tier(Known(1, NOW - DAY_S, 5, FAILED)) is Tier.FAILED_OR_CHANGED
    assert tier(Known(1, NOW - DAY_S, 5, CHANGED)) is Tier.FAILED_OR_CHANGED
    assert tier(Known(1, NOW - DAY_S, 5)) is Tier.OLDEST


def test_without_max_age_nothing_is_due() -> None:
    assert tier(Known(1, NOW - 100 * WEEK, 5), max_age_s=None) is Tier.OLDEST


def test_due_half_a_day_early() -> None:
    assert due_after(WEEK) == WEEK - DAY_S // 2
    assert tier(Known(1, NOW - due_after(WEEK), 5)) is Tier.DUE
    assert tier(Known(1, NOW - due_after(WEEK) + 1, 5)) is Tier.OLDEST


def test_keys_sort_by_tier_then_the_oldest_request() -> None:
    rows = [
        Known(1, NOW - DAY_S, 5),  # oldest tier, recent
        Known(2, NOW - 3 * DAY_S, 5),  # oldest tier, older
        Known(3, None, 5),  # never
        Known(4, NOW - DAY_S, 5, FAILED),
        Known(5, NOW - 2 * DAY_S, 5, STALE),
        Known(6, NOW - 8 * DAY_S, 5),  # due
    ]
    ordered = sorted(rows, key=lambda row: sort_key(tier(row), row))
    assert [row.digest for row in ordered] == [6, 5, 3, 4, 2, 1]
    assert [tier_of_key(sort_key(tier(row), row)) for row in ordered] == list(Tier)[:4] + [
        Tier.OLDEST
    ] * 2
