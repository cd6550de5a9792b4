"""Each URL record joined with the logs, and the `logs.*` findings. Pure: no I/O.

At the sink, every URL record gets its `crawl_log` (auditor.models.LogFacts), and each listed
one is judged: indexable and not crawled in the window (`logs.not_crawled`), crawled though it
cannot be indexed (`logs.crawled_not_indexable`), failing for Googlebot though it answered 200
to the audit (`logs.crawler_errors`), an orphan Googlebot still crawls
(`logs.orphan_crawled`). Once every record is in, the pages Googlebot fetched that no sitemap
lists (`logs.crawled_not_listed`) and the false claims (`logs.spoofed_crawler`). The rules:
docs/explanation/rules.md#server-logs.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from auditor.codes import Code
from auditor.models import Finding, Indexability, LogFacts, NotIndexable, UrlRecord, finding
from auditor.report.encode import utc_text
from auditor.urls import authority_of
from auditor.wings.logs.crawler_names import bits_names
from auditor.wings.logs.log_feed import LogRun
from auditor.wings.logs.log_tally import DAY_S, HOSTLESS, LISTED, PAGE, Window
from auditor.wings.logs.log_targets import listed_keys

TOP_URLS = 10  # pages no sitemap lists, kept by their hits
# A listed URL Googlebot should not spend its crawl on: its check says where it leads or why it
# cannot be indexed (docs/explanation/rules.md#verdict). Not a refusal to the audit alone (a
# bot shield's, a 429), nor robots.txt (Googlebot reads what it may), nor a soft 404 (a guess).
WASTED = frozenset(
    {
        NotIndexable.REDIRECTED,
        NotIndexable.CLIENT_ERROR,
        NotIndexable.SERVER_ERROR,
        NotIndexable.NOINDEX_HEADER,
        NotIndexable.NOINDEX_META,
        NotIndexable.CANONICALISED,
    }
)
_NOTHING = LogFacts(0, None, None, (), 0, 0)


@dataclass(slots=True)
class JoinCounts:
    """What the join counted of the listed URLs."""

    listed: int = 0
    listed_crawled: int = 0  # Google Search's last hit in the window
    indexable: int = 0
    indexable_crawled: int = 0
    hits_listed: int = 0  # Google Search's hits in the window on listed URLs
    bing_listed: int = 0  # listed URLs Bingbot came to in the window
    not_crawled: int = 0


@dataclass(frozen=True, slots=True)
class UnlistedPages:
    """Google Search's hits on URLs no sitemap lists; of them, pages that answered 200."""

    hits: int
    pages: int
    page_hits: int
    top: tuple[tuple[int, int], ...]  # (digest, hits) of the most hit pages, most first


@dataclass(slots=True)
class LogJoin:
    """The join of the run's URL records with its logs (`join_url`, called by the sink)."""

    run: LogRun
    window: Window
    error_rate: float  # --log-error-rate, percent of a URL's hits
    judged: bool  # whether `logs.not_crawled` may be said (the logs cover the window)
    counts: JoinCounts = field(default_factory=JoinCounts)
    # The listed URLs' hosts, as the logs' ordinals (-1: a host the logs never named), and the
    # origin of each (`https://host:port`, for links).
    origins: dict[int, str] = field(default_factory=dict)
    origin: str | None = None  # the first listed URL's origin: the page of a log without hosts

    def join_url(self, record: UrlRecord) -> None:
        """Join one URL record (its `crawl_log`; the findings of a listed one)."""
        if not record.digest:
            return
        keys = listed_keys(record.loc)
        if keys is None:
            return
        run, hits = self.run, self.run.hits
        index = hits.find(keys.with_host) if run.by_host else None
        if index is None and run.by_path:
            index = hits.find(keys.path)
        facts = _NOTHING if index is None else _facts(run, index)
        record.crawl_log = facts
        if not record.listed:
            return
        ordinal = run.hosts.get(keys.host)
        if (ordinal if ordinal is not None else -1) not in self.origins:
            self.origins[ordinal if ordinal is not None else -1] = authority_of(record.loc)
        if self.origin is None:
            self.origin = authority_of(record.loc)
        if index is not None and not hits.flags[index] & LISTED:
            hits.flags[index] |= LISTED
            self.counts.hits_listed += facts.hits
            self.counts.bing_listed += facts.bing_hits > 0
        found = self._judged(record, facts)
        if found:
            record.findings += found

    def _judged(self, record: UrlRecord, facts: LogFacts) -> tuple[Finding, ...]:
        counts, loc = self.counts, record.loc
        crawled = facts.last is not None and facts.last in self.window
        indexable = record.indexability is Indexability.INDEXABLE
        counts.listed += 1
        counts.listed_crawled += crawled
        counts.indexable += indexable
        counts.indexable_crawled += indexable and crawled
        found: list[Finding] = []
        if indexable and not crawled and self.judged:
            counts.not_crawled += 1
            found.append(_not_crawled(loc, facts, self.window))
        check = record.check
        if facts.hits and check is not None and check.not_indexable in WASTED:
            reason = check.not_indexable
            assert reason is not None
            found.append(
                finding(
                    Code.LOGS_CRAWLED_NOT_INDEXABLE, url=loc, hits=facts.hits, reason=reason.value
                )
            )
        if (
            self._failing(facts)
            and check is not None
            and check.status == 200
            and not check.redirects
        ):
            found.append(
                finding(
                    Code.LOGS_CRAWLER_ERRORS,
                    url=loc,
                    errors=facts.errors,
                    hits=facts.hits,
                    last_status=facts.last_status,
                )
            )
        if facts.hits and any(item.code is Code.COVERAGE_ORPHAN for item in record.findings):
            found.append(finding(Code.LOGS_ORPHAN_CRAWLED, url=loc, hits=facts.hits))
        return tuple(found)

    def _failing(self, facts: LogFacts) -> bool:
        """Whether more than --log-error-rate percent of the URL's hits in the window failed."""
        return bool(facts.errors) and facts.errors * 100 > self.error_rate * facts.hits

    def unlisted(self) -> UnlistedPages:
        """Once every record is in: the hits on URLs no sitemap lists, the most hit pages.

        A page of them is a URL of a listed host (or of a log without hosts) that looks like a
        page (auditor.wings.logs.log_targets) and whose last Google Search hit answered 200.
        """
        hits, flags, status, host = (
            self.run.hits.hits,
            self.run.hits.flags,
            self.run.hits.status,
            self.run.hits.host,
        )
        hosts = set(self.origins)
        total = pages = page_hits = 0
        top: list[tuple[int, int]] = []
        for digest, index in self.run.hits.rows():
            count, flag = hits[index], flags[index]
            if not count or flag & LISTED:
                continue
            total += count
            if not flag & PAGE or status[index] != 200:
                continue
            if not (flag & HOSTLESS and hosts) and host[index] not in hosts:
                continue
            pages += 1
            page_hits += count
            if len(top) < TOP_URLS:
                heapq.heappush(top, (count, digest))
            elif count > top[0][0]:
                heapq.heapreplace(top, (count, digest))
        ranked = tuple((digest, count) for count, digest in sorted(top, reverse=True))
        return UnlistedPages(total, pages, page_hits, ranked)

    def url_of(self, key: str, host_ordinal: int) -> str:
        """A spooled key (`host/path`, or `/path` from a log without hosts) as a URL."""
        if key.startswith("/"):
            return f"{self.origin or ''}{key}"
        origin = self.origins.get(host_ordinal)
        path = key[key.find("/") :] if "/" in key else "/"
        return f"{origin}{path}" if origin is not None else f"https://{key}"

    def host_ordinal(self, digest: int) -> int:
        """The host ordinal of a row (for `url_of`)."""
        index = self.run.hits.find(digest)
        return 0 if index is None else self.run.hits.host[index]


def _facts(run: LogRun, index: int) -> LogFacts:
    hits = run.hits
    last = hits.last[index]
    return LogFacts(
        hits.hits[index],
        last or None,
        hits.status[index] if last else None,
        bits_names(hits.bots[index]),
        hits.bing[index],
        hits.errors[index],
    )


def _not_crawled(loc: str, facts: LogFacts, window: Window) -> Finding:
    days = (window.end_s - window.start_s) // DAY_S
    if facts.last is None:
        return finding(Code.LOGS_NOT_CRAWLED, url=loc, days=days)
    return finding(Code.LOGS_NOT_CRAWLED, url=loc, days=days, last=utc_text(facts.last))
