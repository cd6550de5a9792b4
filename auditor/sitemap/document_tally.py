"""What reading one document found, kept within bounds, until it becomes its SitemapRecord.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta

from auditor.codes import Code
from auditor.limits import MAX_ENTRIES
from auditor.models import (
    ExtensionFacts,
    Finding,
    FoundBy,
    Redirect,
    SitemapKind,
    SitemapRecord,
    finding,
)
from auditor.sitemap.dates import parse_lastmod
from auditor.sitemap.extensions.news import MAX_NEWS_PER_SITEMAP

# Every lastmod (or nearly every one) the same recent moment is a build stamp, not a
# modification date (docs/explanation/rules.md#lastmod-build-stamp);
# Google uses lastmod only when it is "consistently and verifiably accurate"
# (Search Central, "Build and submit a sitemap"). "The same": within two clock hours (a build
# that crosses an hour); "nearly every": this share of the dated entries, at least this many.
UNIFORM_LASTMOD_MIN_ENTRIES = 5
UNIFORM_LASTMOD_SHARE = 0.9
UNIFORM_LASTMOD_RECENT = timedelta(days=7)
# An older stamp: one clock reading, to a fraction of a second, on every dated entry (the
# `new Date().toISOString()` of next-sitemap, Astro, Gatsby). Per-page times never share a
# millisecond, and version control and CMSs keep whole seconds.
_CLOCK_READING = re.compile(r".*T\d{2}:\d{2}:\d{2}\.\d*[1-9]\d*(?:Z|[+-]\d{2}:\d{2})", re.ASCII)
MAX_STAMP_HOURS = 256  # distinct hours counted; past them, entries count as spread
_HOUR_S = 3600


class DocumentTally:
    """Findings (the first `keep` of them; all are counted), entry count and response facts."""

    def __init__(
        self,
        url: str,
        *,
        parent: str | None,
        depth: int,
        found_by: FoundBy,
        keep: int,
        now: datetime,
    ) -> None:
        self.url = url
        self._parent = parent
        self._depth = depth
        self._found_by = found_by
        self._keep = keep
        self._now = now
        self._findings: list[Finding] = []
        self._omitted: Counter[Code] = Counter()
        self.kind: SitemapKind | None = None
        self.status: int | None = None
        self.final_url: str | None = None
        self.redirects: tuple[Redirect, ...] = ()
        self.content_type: str | None = None
        self.bytes = 0
        self.compressed = False
        self.from_state = False
        self.elapsed_ms: int | None = None
        self.entries = 0
        self._hours: Counter[int] = Counter()  # dated entries by their lastmod's hour
        self._first_of_hour: dict[int, str] = {}  # each hour's first lastmod, as written
        self._same_as: str | None = None  # another probe found this very document
        self.news_sitemap = False  # it declares the news namespace
        self._news = 0  # <news:news> items
        self._dated = 0
        self._stamp: datetime | None = None  # every dated entry's moment, while they share one
        self._stamped = 0  # dated entries that carry `_stamp`
        self._relisted_extensions: Counter[str] = Counter()

    @property
    def codes(self) -> set[Code]:
        """Codes found so far, kept or not."""
        return {item.code for item in self._findings} | set(self._omitted)

    def add(self, item: Finding) -> None:
        """Keep a finding about this document (naming it), or only count it past the cap."""
        if len(self._findings) >= self._keep:
            self._omitted[item.code] += 1
            return
        if item.sitemap is None:
            item = replace(item, sitemap=self.url)
        self._findings.append(item)

    def same_document(self, first: str) -> None:
        """This document is `first`'s, found again by another probe: only that is said of it."""
        self._findings.clear()
        self._omitted.clear()
        self.entries, self._dated, self._stamped, self._stamp = 0, 0, 0, None
        self._hours.clear()
        self._first_of_hour.clear()
        self._same_as = first
        self.add(finding(Code.DISCOVERY_SAME_DOCUMENT, same_as=first))

    def count_entry(self, lastmod: str | None, *, news: int = 0) -> None:
        """One more entry; its lastmod feeds the build-stamp check, its news items the limit."""
        self.entries += 1
        self._news += news
        if lastmod is not None:
            self._dated += 1
            parsed = parse_lastmod(lastmod)
            if parsed is None:
                return
            if self._stamped == self._dated - 1 and self._stamp in (None, parsed.earliest):
                if self._stamp is None and _CLOCK_READING.fullmatch(lastmod) is not None:
                    self._stamp = parsed.earliest
                self._stamped += self._stamp is not None
            hour = int(parsed.earliest.timestamp()) // _HOUR_S
            if hour in self._hours or len(self._hours) < MAX_STAMP_HOURS:
                self._hours[hour] += 1
                self._first_of_hour.setdefault(hour, lastmod)

    def relisted(self, facts: ExtensionFacts | None) -> None:
        """The extensions of an entry whose URL was listed before: counted all the same."""
        if facts is not None:
            self._relisted_extensions.update(facts.counts())

    def finish(self) -> SitemapRecord:
        """The document's record, with the findings only the whole document shows."""
        self._whole_document_findings()
        return SitemapRecord(
            url=self.url,
            kind=self.kind,
            parent=self._parent,
            depth=self._depth,
            found_by=self._found_by,
            status=self.status,
            final_url=self.final_url,
            redirects=self.redirects,
            content_type=self.content_type,
            bytes=self.bytes,
            compressed=self.compressed,
            url_count=self.entries,
            elapsed_ms=self.elapsed_ms,
            findings=tuple(self._findings),
            findings_omitted=dict(self._omitted),
            from_state=self.from_state,
            relisted_extensions=dict(self._relisted_extensions),
        )

    def _whole_document_findings(self) -> None:
        if self.kind is SitemapKind.ROBOTS or self._same_as is not None:
            return
        if self.entries > MAX_ENTRIES:
            code = (
                Code.INDEX_TOO_MANY_SITEMAPS
                if self.kind is SitemapKind.SITEMAPINDEX
                else Code.SITEMAP_TOO_MANY_URLS
            )
            self.add(finding(code, count=self.entries, limit=MAX_ENTRIES))
        if self._news > MAX_NEWS_PER_SITEMAP:  # Google: "up to 1,000 news:news tags"
            self.add(finding(Code.NEWS_TOO_MANY, count=self._news, limit=MAX_NEWS_PER_SITEMAP))
        # Google, on news sitemaps: an empty one "won't cause any problems".
        empty = self.entries == 0 and not self.news_sitemap
        if empty and (self.kind is not None or not self.codes):
            self.add(finding(Code.SITEMAP_EMPTY))
        stamp = self._build_stamp()
        if stamp is not None:
            value, same = stamp
            share = round(same / self._dated, 3)
            self.add(
                finding(
                    Code.LASTMOD_UNIFORM,
                    value=value,
                    entries=self._dated,
                    same=same,
                    share=share,
                )
            )

    def _build_stamp(self) -> tuple[str, int] | None:
        """The build stamp (a lastmod as written) and how many entries carry it, if any."""
        # An index's lastmod is when each child file changed (sitemaps.org, sitemap index): a
        # generator that writes every child in one build stamps them alike, and rightly so. A
        # news sitemap lists the last two days' articles (Google): its dates cluster by design.
        if self.kind is SitemapKind.SITEMAPINDEX or self.news_sitemap:
            return None
        if self._dated < UNIFORM_LASTMOD_MIN_ENTRIES:
            return None
        hours = self._hours
        same, hour = max(((hours[h] + hours.get(h + 1, 0), h) for h in hours), default=(0, 0))
        if same < UNIFORM_LASTMOD_SHARE * self._dated:
            return None
        value = self._first_of_hour[hour]
        parsed = parse_lastmod(value)
        recent = parsed is not None and parsed.earliest > self._now - UNIFORM_LASTMOD_RECENT
        # Older: only one clock reading on every dated entry (auditor.sitemap.dates keeps the
        # instant; `_CLOCK_READING`, a fraction of a second in it).
        return (value, same) if recent or self._stamped == self._dated else None
