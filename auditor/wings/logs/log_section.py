"""The report's "Googlebot" part: what the access logs said, as every output shows it.

A typed, frozen record (a section, auditor.report.section): the JSON summary's `logs`, the
verdict's clause, the terminal's and Markdown's lines, the metrics' gauges; its HTML part is
auditor.wings.logs.log_view's. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.encode import utc_text
from auditor.report.section import HtmlPart, Json, Lines, MakeGauge, RegressionSource
from auditor.wings.logs.crawler_ranges import RangeSource
from auditor.wings.logs.log_tally import DAY_S
from auditor.wings.logs.log_view import logs_part, percent


@dataclass(frozen=True, slots=True)
class FileLine:
    """One log file as read."""

    source: str
    format: str
    lines: int
    bad: int
    truncated: bool


@dataclass(frozen=True, slots=True)
class BadExample:
    """A bad line, kept as an example."""

    source: str
    line: int
    reason: str
    text: str


@dataclass(frozen=True, slots=True)
class ClaimLine:
    """The lines one crawler's user agent named, by what their address was."""

    crawler: str
    verified: int
    outside: int
    private: int
    not_an_address: int


@dataclass(frozen=True, slots=True)
class Judgement:
    """Whether `logs.not_crawled` was said, and why not when it was not."""

    judged: bool
    why_not: str | None = None


@dataclass(frozen=True, slots=True)
class GooglebotCounts:
    """Google Search's verified hits in the window, and the listed URLs they reached."""

    hits: int
    hits_listed: int
    hits_unlisted: int
    before_window: int  # verified hits older than the window
    no_page: int  # verified hits whose request named no page
    by_status_class: tuple[tuple[str, int], ...]
    per_day: tuple[tuple[int, int], ...]  # (days since 1970, hits) of every day of the window
    listed: int
    listed_crawled: int
    indexable: int
    indexable_crawled: int
    not_crawled: int
    not_listed_pages: int
    not_listed_hits: int
    not_listed_top: tuple[tuple[str, int], ...]  # (URL, hits), most hit first


@dataclass(frozen=True, slots=True)
class LogsSection:
    """What the access logs said (`--access-log`): the report's `summary.logs`."""

    files: tuple[FileLine, ...]  # the first files read (files_total says how many)
    files_total: int
    lines_read: int
    bad: int
    bad_examples: tuple[BadExample, ...]
    window_days: int
    window_start_s: int
    window_end_s: int
    first_s: int | None  # the span the logs cover (with --history, the runs' together)
    last_s: int | None
    judgement: Judgement
    claims: tuple[ClaimLine, ...]
    spoofers: tuple[tuple[str, int], ...]  # (address, lines) of the most false claims
    spoofer_addresses: int
    spoofed_lines: int
    googlebot: GooglebotCounts
    bing_hits: int
    bing_listed: int
    ranges: tuple[RangeSource, ...]
    read_s: float  # reading the logs took this long (before the sitemaps were read)

    place = "summary.logs"
    regressions = None
    last_known = None  # the site as last known is the history's to say

    @property
    def new_codes(self) -> Mapping[Code, int]:
        """It calls no finding new."""
        return {}

    def junit(self) -> RegressionSource | None:
        """The logs add no JUnit case (their findings are the run's)."""
        return None

    def html(self) -> HtmlPart:
        """The HTML report's part, after the sitemaps (auditor.wings.logs.log_view)."""
        return logs_part(self)

    def lines(self) -> Lines:
        """Under the headline: what Googlebot crawled, who claimed to be a crawler."""
        return Lines(head=tuple(self.terminal_lines()))

    def markdown(self) -> str:
        """The Markdown summary's part."""
        return "\n".join(self.markdown_lines())

    def crawled_share(self) -> tuple[int, int, str] | None:
        """(crawled, of, what) of the listed URLs the verdict speaks of; None: none listed."""
        counts = self.googlebot
        if counts.indexable:
            return counts.indexable_crawled, counts.indexable, "listed indexable URLs"
        if counts.listed:
            return counts.listed_crawled, counts.listed, "listed URLs"
        return None

    @property
    def clause(self) -> str | None:
        """The verdict line's: `Googlebot crawled 61 % of listed indexable URLs in 30 days`."""
        share = self.crawled_share()
        if share is None:
            return None
        crawled, total, what = share
        return f"Googlebot crawled {percent(crawled, total)} of {what} in {self.window_days:,} days"

    def to_json(self) -> Json:
        """The report's `summary.logs` (docs/reference/report.md)."""
        return {
            "files": [
                {
                    "source": f.source,
                    "format": f.format,
                    "lines": f.lines,
                    "bad": f.bad,
                    "truncated": f.truncated,
                }
                for f in self.files
            ],
            "files_total": self.files_total,
            "lines": self.lines_read,
            "read_s": round(self.read_s, 3),
            "bad_lines": self.bad,
            "bad_examples": [
                {"source": b.source, "line": b.line, "reason": b.reason, "text": b.text}
                for b in self.bad_examples
            ],
            "window": {
                "days": self.window_days,
                "start": utc_text(self.window_start_s),
                "end": utc_text(self.window_end_s),
            },
            "first_line": utc_text(self.first_s) if self.first_s is not None else None,
            "last_line": utc_text(self.last_s) if self.last_s is not None else None,
            "not_crawled_judged": self.judgement.judged,
            "not_judged_because": self.judgement.why_not,
            "claims": {
                c.crawler: {
                    "verified": c.verified,
                    "outside": c.outside,
                    "private": c.private,
                    "not_an_address": c.not_an_address,
                }
                for c in self.claims
            },
            "spoofed": {
                "lines": self.spoofed_lines,
                "addresses": self.spoofer_addresses,
                "top": [{"address": a, "lines": n} for a, n in self.spoofers],
            },
            "googlebot": self._googlebot_json(),
            "bingbot": {"hits": self.bing_hits, "listed_crawled": self.bing_listed},
            "ranges": [
                {
                    "crawler": r.family.value,
                    "created": r.creation_time,
                    "origin": r.origin,
                    "prefixes": r.prefixes,
                }
                for r in self.ranges
            ],
        }

    def _googlebot_json(self) -> Json:
        """`summary.logs.googlebot`."""
        counts = self.googlebot
        share = self.crawled_share()
        return {
            "hits": counts.hits,
            "hits_listed": counts.hits_listed,
            "hits_unlisted": counts.hits_unlisted,
            "before_window": counts.before_window,
            "no_page": counts.no_page,
            "by_status_class": dict(counts.by_status_class),
            "per_day": [
                {"day": utc_text(day * DAY_S)[:10], "hits": n} for day, n in counts.per_day if n
            ],
            "listed": counts.listed,
            "listed_crawled": counts.listed_crawled,
            "indexable": counts.indexable,
            "indexable_crawled": counts.indexable_crawled,
            "crawled_share": round(share[0] / share[1], 4) if share else None,
            "not_crawled": counts.not_crawled,
            "not_listed_pages": counts.not_listed_pages,
            "not_listed_hits": counts.not_listed_hits,
            "not_listed_top": [{"url": u, "hits": n} for u, n in counts.not_listed_top],
        }

    def terminal_lines(self) -> Sequence[str]:
        """Two lines: what Googlebot crawled; who claimed to be a crawler."""
        counts = self.googlebot
        first = f"googlebot: {_n(counts.hits, 'verified hit')} in {_n(self.window_days, 'day')}"
        share = self.crawled_share()
        if share is not None:
            crawled, whole, what = share
            first += f", {percent(crawled, whole)} of {what} crawled ({crawled:,} of {whole:,})"
        first += f", {_n(counts.hits_unlisted, 'hit')} on unlisted URLs"
        claims = ", ".join(
            f"{c.crawler} {c.verified:,} verified" + (f", {c.outside:,} false" if c.outside else "")
            for c in self.claims
        )
        logs = (
            f"logs: {_n(self.files_total, 'file')}, {_n(self.lines_read, 'line')}, {self.bad:,} bad"
        )
        lines = [first, f"{logs}; {claims or 'no crawler named'}"]
        if not self.judgement.judged and self.judgement.why_not:
            lines.append(f"logs.not_crawled not judged: {self.judgement.why_not}")
        return lines

    def markdown_lines(self) -> Sequence[str]:
        """The Markdown summary's lines (numbers only: nothing from the network)."""
        counts = self.googlebot
        lines = [f"### Googlebot in the access logs ({self.window_days:,} days)"]
        clause = self.clause
        if clause:
            lines.append(f"{clause}.")
        lines.append(
            f"{counts.hits:,} verified hits: {counts.hits_listed:,} on listed URLs, "
            f"{counts.hits_unlisted:,} on others "
            f"({counts.not_listed_pages:,} pages no sitemap lists); "
            f"{self.spoofed_lines:,} lines claimed a crawler from outside its ranges; "
            f"{self.lines_read:,} lines read, {self.bad:,} bad."
        )
        return lines

    def gauges(self, gauge: MakeGauge, target: str) -> None:
        """Its gauges for `--metrics` (docs/reference/metrics.md)."""
        counts = self.googlebot
        lines = gauge(
            "log_lines", "Access log lines read (--access-log), and of them bad ones.", "kind"
        )
        lines.labels(target, "read").set(self.lines_read)
        lines.labels(target, "bad").set(self.bad)
        claims = gauge(
            "crawler_claims",
            "Log lines naming a crawler, by crawler and what their address was.",
            "crawler",
            "address",
        )
        for c in self.claims:
            for kind, value in (
                ("verified", c.verified),
                ("outside", c.outside),
                ("private", c.private),
                ("not_an_address", c.not_an_address),
            ):
                claims.labels(target, c.crawler, kind).set(value)
        hits = gauge(
            "googlebot_hits",
            "Google Search's verified hits in the window, on listed and other URLs.",
            "urls",
        )
        hits.labels(target, "listed").set(counts.hits_listed)
        hits.labels(target, "unlisted").set(counts.hits_unlisted)
        listed = gauge(
            "googlebot_listed_urls",
            "Listed URLs, and of them those Google Search crawled in the window.",
            "kind",
        )
        for kind, value in (
            ("listed", counts.listed),
            ("listed_crawled", counts.listed_crawled),
            ("indexable", counts.indexable),
            ("indexable_crawled", counts.indexable_crawled),
        ):
            listed.labels(target, kind).set(value)
        share = self.crawled_share()
        if share is not None:
            gauge(
                "googlebot_crawled_ratio",
                "The share of listed (indexable, when checked) URLs crawled in the window.",
            ).labels(target).set(share[0] / share[1])


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
