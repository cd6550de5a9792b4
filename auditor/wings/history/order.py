"""Which URLs a run with a budget requests first. Pure: no I/O.

Tiers, in order (docs/how-to/big-sites.md#the-order-of-a-budget):

1. due: requested `--max-age` days ago or more: the guarantee the user asked for;
2. lastmod changed: the sitemap says the page changed since it was last requested (or, for a
   URL never requested, since it was first listed): requested the night it changes;
3. never requested;
4. failed (an error) or changed at its last request: what is moving is looked at again;
5. the rest, the oldest request first.

Within a tier, the oldest request goes first; URLs never requested keep the order they came in.
"""

from __future__ import annotations

from enum import StrEnum

from auditor.wings.history.history_rows import CHANGED, FAILED, STALE, Known

DAY_S = 86_400
# Ages are counted in days, rounded: a job that runs nightly starts a little earlier or later
# each night, and a URL checked last week at 02:10 is due at 02:05 tonight.
DUE_MARGIN_S = DAY_S // 2
# A sort key: the tier's rank, then the last request's time (Unix seconds fit in 40 bits).
_TIME_BITS = 40
_TIME_MASK = (1 << _TIME_BITS) - 1


class Tier(StrEnum):
    """Why a URL is requested; the order of the members is the order of the budget."""

    DUE = "due"
    LASTMOD_CHANGED = "lastmod_changed"
    NEVER_CHECKED = "never_checked"
    FAILED_OR_CHANGED = "failed_or_changed"
    OLDEST = "oldest"


_RANK = {tier: rank for rank, tier in enumerate(Tier)}
_TIERS = tuple(Tier)


def tier_of(known: Known, *, now_s: int, max_age_s: int | None) -> Tier:
    """The tier of a URL whose row (its listing seen) is `known`."""
    checked = known.checked
    if checked is not None and max_age_s is not None and now_s - checked >= due_after(max_age_s):
        return Tier.DUE
    if known.flags & STALE:
        return Tier.LASTMOD_CHANGED
    if checked is None:
        return Tier.NEVER_CHECKED
    if known.flags & (FAILED | CHANGED):
        return Tier.FAILED_OR_CHANGED
    return Tier.OLDEST


def due_after(max_age_s: int) -> int:
    """The age from which a URL is due under `--max-age` (half a day's margin)."""
    return max(0, max_age_s - DUE_MARGIN_S)


def sort_key(tier: Tier, known: Known) -> int:
    """An integer that sorts URLs in the budget's order (ties: the order they came in)."""
    return _RANK[tier] << _TIME_BITS | ((known.checked or 0) & _TIME_MASK)


def tier_of_key(key: int) -> Tier:
    """The tier a sort key was made for."""
    return _TIERS[key >> _TIME_BITS]
