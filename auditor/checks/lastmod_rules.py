"""lastmod against the page: a page that changed after the date its sitemap gives.

Google uses lastmod only when it is "consistently and verifiably accurate" (Search Central,
"Build and submit a sitemap"). A static site's deploy sets every page's Last-Modified at once:
those values say when the site was copied, not when a page changed, and are left alone
(`BehindPages`). Pure: no I/O.
"""

from __future__ import annotations

import functools
from collections import Counter
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime

from auditor.codes import Code
from auditor.models import CheckResult, Finding, RunFindings, UrlRecord, finding
from auditor.sitemap.dates import parse_lastmod

_SHOWN_CHARS = 200
# lastmod.behind_page: more than a day newer. A date (YYYY-MM-DD) ends at most 50 hours after it
# begins (UTC+14 to UTC-12); a time without a zone, 26 hours.
_BEHIND_MARGIN = timedelta(days=1)
_DAY_CHARS = len("YYYY-MM-DD")
_DAY_SPREAD = timedelta(hours=50)
_ZONE_SPREAD = timedelta(hours=26)


def lastmod_behind(lastmod: str, last_modified: str, *, url: str) -> Finding | None:
    """lastmod.behind_page: the page changed more than a day after its sitemap lastmod says.

    Google uses lastmod only when it is "consistently and verifiably accurate" (Search Central,
    "Build and submit a sitemap"). The caller leaves out a Last-Modified equal to the answer's
    Date (dynamic pages say "now"). A lastmod is compared at the latest moment it can mean (a
    day ends last at UTC-12); one coarser than a day, or unreadable, is left alone.
    """
    parsed = parse_lastmod(lastmod)
    if parsed is None or len(lastmod) < _DAY_CHARS:
        return None
    changed = parse_http_date(last_modified)
    if changed is None:
        return None
    latest = parsed.earliest + (_DAY_SPREAD if len(lastmod) == _DAY_CHARS else _ZONE_SPREAD)
    if parsed.w3c_valid and len(lastmod) > _DAY_CHARS:
        latest = parsed.earliest  # a time with its zone means one moment
    if changed - latest <= _BEHIND_MARGIN:
        return None
    return finding(
        Code.LASTMOD_BEHIND_PAGE,
        url=url,
        lastmod=lastmod[:_SHOWN_CHARS],
        last_modified=last_modified,
    )


def parse_http_date(text: str) -> datetime | None:
    """An HTTP-date (RFC 9110 §5.6.7), None when it is none or has no zone."""
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment.tzinfo is not None else None


# A deploy writes few distinct values: each is read once.
@functools.lru_cache(maxsize=1024)
def _minute_of(last_modified: str) -> int | None:
    moment = parse_http_date(last_modified)
    return int(moment.timestamp()) // 60 if moment is not None else None


# A deploy: at least this many pages' Last-Modified within one window of this many minutes,
# and at least this share of all the Last-Modified values the run saw.
DEPLOY_MIN_PAGES = 3
DEPLOY_WINDOW_MINUTES = 60
DEPLOY_SHARE = 0.5
MAX_MINUTES_KEPT = 100_000  # distinct minutes counted (memory stays flat); past it, "spread"
MAX_KEPT = 1_000  # behind_page findings kept for the report (all are counted)


class BehindPages:
    """lastmod.behind_page for the whole run, decided once every page is checked.

    Every page's Last-Modified is counted by the minute; a page behind its lastmod is held (the
    first MAX_KEPT of them; the rest counted by minute). At the end, the densest window of
    DEPLOY_WINDOW_MINUTES is the deploy's when it holds at least DEPLOY_SHARE of the values (and
    DEPLOY_MIN_PAGES pages): a page whose Last-Modified is in it says nothing (Hugo, Sphinx,
    Jekyll sites: 95, 30, 8 false notices before). The others are the run's findings
    (docs/explanation/rules.md#lastmod-behind-page).
    """

    def __init__(self) -> None:
        self._minutes: Counter[int] = Counter()  # Last-Modified values by minute
        self._spread = 0  # values past MAX_MINUTES_KEPT distinct minutes
        self._kept: list[tuple[int, Finding]] = []
        self._beyond: Counter[int] = Counter()  # behind pages past MAX_KEPT, by minute

    def checked(self, record: UrlRecord, result: CheckResult) -> None:
        """One URL's check: its page's Last-Modified, when it sent one."""
        if result.last_modified is not None:
            self.page(record.lastmod, result.last_modified, url=record.loc)

    def page(self, lastmod: str | None, last_modified: str, *, url: str) -> None:
        """One checked page's Last-Modified (not its answer's Date), and its lastmod."""
        minute = _minute_of(last_modified)
        if minute is None:
            return
        if minute in self._minutes or len(self._minutes) < MAX_MINUTES_KEPT:
            self._minutes[minute] += 1
        else:
            self._spread += 1
        behind = lastmod_behind(lastmod, last_modified, url=url) if lastmod else None
        if behind is None:
            return
        if len(self._kept) < MAX_KEPT:
            self._kept.append((minute, behind))
        else:
            self._beyond[minute] += 1

    def findings(self) -> RunFindings | None:
        """The pages behind their lastmod but for those the deploy stamped (None: none)."""
        start = self._deploy()
        deployed = range(start, start + DEPLOY_WINDOW_MINUTES) if start is not None else range(0)
        kept = tuple(item for minute, item in self._kept if minute not in deployed)
        omitted = sum(n for minute, n in self._beyond.items() if minute not in deployed)
        if not kept and not omitted:
            return None
        return RunFindings(kept, {Code.LASTMOD_BEHIND_PAGE: omitted} if omitted else {})

    def _deploy(self) -> int | None:
        """The first minute of the deploy window, if the values cluster in one."""
        minutes = sorted(self._minutes)
        total = sum(self._minutes.values()) + self._spread
        best, best_start, low, inside = 0, None, 0, 0
        for minute in minutes:
            inside += self._minutes[minute]
            while minute - minutes[low] >= DEPLOY_WINDOW_MINUTES:
                inside -= self._minutes[minutes[low]]
                low += 1
            if inside > best:
                best, best_start = inside, minutes[low]
        if best >= DEPLOY_MIN_PAGES and best >= DEPLOY_SHARE * total:
            return best_start
        return None
