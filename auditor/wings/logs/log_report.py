"""The run's findings and report section, once every URL record is joined. Pure: no I/O.

See docs/explanation/rules.md#server-logs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from auditor.codes import Code
from auditor.models import Finding, StatusClass, finding
from auditor.report.encode import utc_text
from auditor.wings.logs.crawler_names import Bot
from auditor.wings.logs.log_feed import FileStats, LogRun
from auditor.wings.logs.log_join import LogJoin, UnlistedPages
from auditor.wings.logs.log_section import (
    BadExample,
    ClaimLine,
    FileLine,
    GooglebotCounts,
    Judgement,
    LogsSection,
)
from auditor.wings.logs.log_tally import DAY_S, Span

FILES_SHOWN = 100  # files listed in the report (all are counted)
TOP_SPOOFERS = 10


def judgement(run: LogRun, *, spans: Sequence[Span]) -> Judgement:
    """Whether `logs.not_crawled` may be said: the logs show Googlebot and cover the window.

    A URL is "not crawled in N days" only where the logs (with --history, the runs' logs
    together) cover those days, and show Google Search's verified hits at all: logs that name
    no verified Googlebot are logs of another site, or of a proxy that logs its own address.
    """
    window = run.window
    hits = run.hits
    if not any(hits.last):
        claims = run.counts.claims[Bot.GOOGLEBOT]
        why = "no line came from Google's addresses"
        if claims.private or claims.outside:
            why += (
                " (its claims came from other addresses: behind a proxy or CDN, log the client's)"
            )
        return Judgement(judged=False, why_not=why)
    if not window.covered_by(list(spans)):
        first, last = _span(spans)
        return Judgement(
            judged=False,
            why_not=f"the logs cover {_day(first)} to {_day(last)}, not the whole window "
            f"{_day(window.start_s)} to {_day(window.end_s)} (--log-days)",
        )
    return Judgement(judged=True)


def _span(spans: Sequence[Span]) -> tuple[int | None, int | None]:
    if not spans:
        return None, None
    return min(first for first, _ in spans), max(last for _, last in spans)


def _day(seconds: int | None) -> str:
    return "no day" if seconds is None else utc_text(seconds)[:10]


def run_findings(
    run: LogRun, unlisted: UnlistedPages, top: Sequence[tuple[str, int]]
) -> tuple[Finding, ...]:
    """`logs.crawled_not_listed` and `logs.spoofed_crawler`, each once for the run."""
    found = []
    if unlisted.pages:
        url, hits = top[0] if top else ("", 0)
        found.append(
            finding(
                Code.LOGS_CRAWLED_NOT_LISTED,
                pages=unlisted.pages,
                hits=unlisted.page_hits,
                top_url=url,
                top_hits=hits,
            )
        )
    counts = run.counts
    spoofed = sum(claims.outside for claims in counts.claims.values())
    if spoofed:
        address, lines = max(
            counts.spoofers.items(), key=lambda pair: (pair[1], pair[0]), default=("", 0)
        )
        addresses = len(counts.spoofers) + (1 if counts.spoofers_uncounted else 0)
        found.append(
            finding(
                Code.LOGS_SPOOFED_CRAWLER,
                lines=spoofed,
                addresses=addresses,
                top_address=address,
                top_lines=lines,
            )
        )
    return tuple(found)


def logs_section(
    run: LogRun,
    join: LogJoin,
    *,
    files: Sequence[FileStats],
    unlisted: UnlistedPages,
    top: Sequence[tuple[str, int]],
    judged: Judgement,
    spans: Sequence[Span],
    read_s: float = 0.0,
) -> LogsSection:
    """The report's `summary.logs`."""
    counts, window = run.counts, run.window
    first, last = _span(spans)
    claims = tuple(
        ClaimLine(crawler.value, c.verified, c.outside, c.private, c.not_an_address)
        for crawler, c in counts.claims.items()
        if c.verified or c.outside or c.private or c.not_an_address
    )
    return LogsSection(
        files=tuple(
            FileLine(f.source, f.format.value, f.lines, f.bad, f.truncated)
            for f in files[:FILES_SHOWN]
        ),
        files_total=len(files),
        lines_read=counts.lines,
        bad=counts.bad,
        bad_examples=tuple(
            BadExample(b.source, b.line, b.reason, b.text) for b in counts.bad_examples
        ),
        window_days=(window.end_s - window.start_s) // DAY_S,
        window_start_s=window.start_s,
        window_end_s=window.end_s,
        first_s=first,
        last_s=last,
        judgement=judged,
        claims=claims,
        spoofers=tuple(counts.spoofers.most_common(TOP_SPOOFERS)),
        spoofer_addresses=len(counts.spoofers) + (1 if counts.spoofers_uncounted else 0),
        spoofed_lines=sum(c.outside for c in counts.claims.values()),
        googlebot=_googlebot(run, join, unlisted, top),
        bing_hits=sum(hits for hits in run.hits.bing),
        bing_listed=join.counts.bing_listed,
        ranges=run.ranges.sources,
        read_s=read_s,
    )


def _googlebot(
    run: LogRun, join: LogJoin, unlisted: UnlistedPages, top: Sequence[tuple[str, int]]
) -> GooglebotCounts:
    counts, window, joined = run.counts, run.window, join.counts
    first_day, last_day = window.start_s // DAY_S, window.end_s // DAY_S
    per_day = tuple((day, counts.per_day.get(day, 0)) for day in range(first_day, last_day + 1))
    by_class: Mapping[StatusClass, int] = counts.status_classes()
    return GooglebotCounts(
        hits=sum(counts.per_day.values()),
        hits_listed=joined.hits_listed,
        hits_unlisted=unlisted.hits,
        before_window=counts.before_window,
        no_page=counts.no_page,
        by_status_class=tuple((c.value, by_class.get(c, 0)) for c in StatusClass),
        per_day=per_day,
        listed=joined.listed,
        listed_crawled=joined.listed_crawled,
        indexable=joined.indexable,
        indexable_crawled=joined.indexable_crawled,
        not_crawled=joined.not_crawled,
        not_listed_pages=unlisted.pages,
        not_listed_hits=unlisted.page_hits,
        not_listed_top=tuple(top),
    )
