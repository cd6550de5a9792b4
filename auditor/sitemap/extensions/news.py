"""News sitemaps: `<news:news>` of an entry (Google Search Central, "Create a news sitemap").

Required: `news:publication` (`news:name`, `news:language`), `news:publication_date`,
`news:title`. Language: "an ISO 639 language code (two or three letters). Exception: For
Simplified Chinese, use zh-cn and for Traditional Chinese, use zh-tw". Dates: a complete date,
or with hours and minutes (seconds, fraction) and a zone. "Only include recent URLs for articles
that were created in the last two days" (a warning: guidance, not invalidity). keywords,
genres, stock_tickers and access are absent from Google's page (notices). Pure: no I/O.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from auditor.codes import Code
from auditor.models import Finding
from auditor.sitemap.dates import parse_lastmod
from auditor.sitemap.extensions.items import ItemFindings, shown
from auditor.sitemap.parse.events import MediaItem

MAX_NEWS_PER_SITEMAP = 1000
REQUIRED = ("publication/name", "publication/language", "publication_date", "title")
KNOWN = frozenset({"publication", "publication_date", "title"})
DEPRECATED = frozenset({"keywords", "genres", "stock_tickers", "access"})
FRESH = timedelta(days=2)
_LANGUAGE = re.compile(r"[a-z]{2,3}|zh-cn|zh-tw", re.IGNORECASE)
_DAY_CHARS = len("YYYY-MM-DD")
_DAY_SPREAD = timedelta(hours=50)  # a date ends at most 50 hours after it begins (UTC+14..-12)


def validate_news(
    items: list[MediaItem], *, loc: str, sitemap: str, now: datetime
) -> list[Finding]:
    """The rules of one entry's news items."""
    said = ItemFindings(loc=loc, sitemap=sitemap)
    if len(items) > 1:  # "Each url sitemap tag can have only one news:news tag"
        said.say(Code.ENTRY_DUPLICATE_TAG, "news", tag="news:news", line=items[1].line)
    for item in items:
        said.structure(item, known=KNOWN, deprecated=DEPRECATED)
        said.missing(item, Code.NEWS_MISSING_TAG, REQUIRED)
        language = item.values.get("publication/language")
        if language and not _LANGUAGE.fullmatch(language):
            said.say(Code.NEWS_LANGUAGE_INVALID, language, language=shown(language))
        published = item.values.get("publication_date")
        if published:
            _date(said, published, now=now)
    return said.found


def _date(said: ItemFindings, published: str, *, now: datetime) -> None:
    parsed = parse_lastmod(published)
    if parsed is None or not parsed.w3c_valid or len(published) < _DAY_CHARS:
        said.say(Code.NEWS_DATE_INVALID, published, value=shown(published))
        return
    latest = parsed.earliest + (_DAY_SPREAD if len(published) == _DAY_CHARS else timedelta())
    if now - latest > FRESH:
        said.say(Code.NEWS_STALE, published, published=shown(published))
