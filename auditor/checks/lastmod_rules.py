"""lastmod against the page: a page that changed after the date its sitemap gives.

Google uses lastmod only when it is "consistently and verifiably accurate" (Search Central,
"Build and submit a sitemap"). Pure: no I/O.
"""

from __future__ import annotations

from datetime import timedelta
from email.utils import parsedate_to_datetime

from auditor.codes import Code
from auditor.models import Finding, finding
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
    try:
        changed = parsedate_to_datetime(last_modified)  # RFC 9110 §5.6.7: an HTTP-date
    except (TypeError, ValueError):
        return None
    if changed.tzinfo is None:
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
