"""auditor.wings.logs.log_join and log_report: each URL joined, the logs.* rules, the section."""

from __future__ import annotations

from datetime import timedelta

import pytest

from auditor.codes import Code
from auditor.models import CheckResult, NotIndexable, Redirect, UrlRecord, finding
from auditor.report.section import Slot
from auditor.urls import parse_known
from auditor.wings.logs.crawler_ranges import CrawlerRanges
from auditor.wings.logs.log_feed import FileStats, LogRun
from auditor.wings.logs.log_formats import LogFormat
from auditor.wings.logs.log_join import LogJoin
from auditor.wings.logs.log_report import judgement, logs_section, run_findings
from auditor.wings.logs.log_view import TEMPLATE, LogsView
from tests.helpers import NOW
from tests.wings.logs.conftest import START, fed
from tests.wings.logs.log_lines import (
    BINGBOT_IP,
    BINGBOT_UA,
    FORMATS,
    GOOGLEBOT_IP,
    SPOOFER_IP,
    Hit,
)

DAY = timedelta(days=1)
SITE = "https://www.example.com"


def hits() -> list[Hit]:
    """A month of Googlebot over a small site: every day the home page, a few others."""
    found = [Hit(GOOGLEBOT_IP, START + n * DAY + timedelta(hours=1), "/") for n in range(30)]
    found += [
        Hit(GOOGLEBOT_IP, START + 3 * DAY, "/crawled"),
        Hit(GOOGLEBOT_IP, START - 9 * DAY, "/old"),  # before the window
        Hit(GOOGLEBOT_IP, START + 4 * DAY, "/moved"),
        Hit(GOOGLEBOT_IP, START + 5 * DAY, "/moved"),
        Hit(GOOGLEBOT_IP, START + 4 * DAY, "/shielded"),
        Hit(GOOGLEBOT_IP, START + 6 * DAY, "/failing", status=503),
        Hit(GOOGLEBOT_IP, START + 7 * DAY, "/failing", status=500),
        Hit(GOOGLEBOT_IP, START + 8 * DAY, "/failing"),
        Hit(GOOGLEBOT_IP, START + 8 * DAY, "/once-failed", status=502),
        *[Hit(GOOGLEBOT_IP, START + n * DAY, "/once-failed") for n in range(1, 20)],
        Hit(GOOGLEBOT_IP, START + 9 * DAY, "/orphan"),
        *[Hit(GOOGLEBOT_IP, START + n * DAY, "/unlisted") for n in range(5)],
        *[Hit(GOOGLEBOT_IP, START + n * DAY, "/also-unlisted.html") for n in range(2)],
        Hit(GOOGLEBOT_IP, START + DAY, "/gone", status=404),  # unlisted, and no page now
        Hit(GOOGLEBOT_IP, START + DAY, "/style.css"),
        Hit(BINGBOT_IP, START + 2 * DAY, "/crawled", agent=BINGBOT_UA),
        Hit(SPOOFER_IP, START + 2 * DAY, "/never"),
        Hit(SPOOFER_IP, START + 3 * DAY, "/never"),
    ]
    return found


def run_of(ranges: CrawlerRanges) -> LogRun:
    data = "".join(FORMATS["combined"](hit) + "\n" for hit in hits()).encode()
    run = fed(ranges, data, LogFormat.COMBINED)
    run.hits.freeze()
    return run


def record(path: str, check: CheckResult | None = None, *, listed: bool = True) -> UrlRecord:
    loc = SITE + path
    known = parse_known(loc)
    assert known is not None
    sitemaps = (SITE + "/sitemap.xml",) if listed else ()
    return UrlRecord(loc, sitemaps, check=check, digest=known[1])


OK = CheckResult(200)


def codes(found: UrlRecord) -> list[str]:
    return [item.code.value for item in found.findings]


def join_of(ranges: CrawlerRanges, *, judged: bool = True) -> LogJoin:
    run = run_of(ranges)
    return LogJoin(run, run.window, 10.0, judged=judged)


@pytest.fixture
def join(ranges: CrawlerRanges) -> LogJoin:
    return join_of(ranges)


def joined(join: LogJoin, path: str, check: CheckResult | None = OK, **kw: bool) -> UrlRecord:
    found = record(path, check, **kw)
    join.join_url(found)
    return found


def test_a_crawled_indexable_url_stays_clean_and_gets_its_facts(join: LogJoin) -> None:
    home = joined(join, "/")
    assert codes(home) == []
    facts = home.crawl_log
    assert facts is not None
    assert (facts.hits, facts.last_status, facts.bots, facts.errors) == (30, 200, ("Googlebot",), 0)
    assert facts.last == int((START + 29 * DAY + timedelta(hours=1)).timestamp())
    crawled = joined(join, "/crawled")
    assert crawled.crawl_log is not None
    assert crawled.crawl_log.bots == ("Googlebot", "bingbot")
    assert crawled.crawl_log.bing_hits == 1
    assert codes(crawled) == []


def test_a_listed_indexable_url_not_crawled_in_the_window(join: LogJoin) -> None:
    never = joined(join, "/never")  # only a spoofer came
    old = joined(join, "/old")  # crawled before the window
    assert codes(never) == codes(old) == ["logs.not_crawled"]
    assert never.findings[0].detail == {"days": 30}
    assert old.findings[0].detail is not None
    assert old.findings[0].detail["last"] == (START - 9 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert join.counts.not_crawled == 2


def test_not_crawled_needs_an_indexable_url_and_a_judgement(
    ranges: CrawlerRanges, join: LogJoin
) -> None:
    redirected = CheckResult(301, final_url=SITE + "/", not_indexable=NotIndexable.REDIRECTED)
    assert codes(joined(join, "/never-moved", redirected)) == []
    assert codes(joined(join, "/never-checked", None)) == []  # --no-check: not judged
    unjudged = join_of(ranges, judged=False)
    assert codes(joined(unjudged, "/never")) == []


@pytest.mark.parametrize(
    ("reason", "said"),
    [
        (NotIndexable.REDIRECTED, True),
        (NotIndexable.CLIENT_ERROR, True),
        (NotIndexable.SERVER_ERROR, True),
        (NotIndexable.NOINDEX_HEADER, True),
        (NotIndexable.NOINDEX_META, True),
        (NotIndexable.CANONICALISED, True),
        (NotIndexable.REFUSED, False),  # refused to the audit, maybe not to Google
        (NotIndexable.BLOCKED_BY_ROBOTS, False),
        (NotIndexable.SOFT_404, False),
        (NotIndexable.NO_RESPONSE, False),
    ],
)
def test_hits_spent_on_a_url_that_cannot_be_indexed(
    join: LogJoin, reason: NotIndexable, said: bool
) -> None:
    check = CheckResult(301, redirects=(Redirect(SITE + "/moved", 301),), not_indexable=reason)
    moved = joined(join, "/moved", check)
    assert codes(moved) == (["logs.crawled_not_indexable"] if said else [])
    if said:
        assert moved.findings[0].detail == {"hits": 2, "reason": reason.value}


def test_errors_only_the_crawler_sees(join: LogJoin) -> None:
    failing = joined(join, "/failing")  # 2 of 3 hits failed: over 10 %
    assert codes(failing) == ["logs.crawler_errors"]
    assert failing.findings[0].detail == {"errors": 2, "hits": 3, "last_status": 200}
    assert codes(joined(join, "/once-failed")) == []  # 1 of 20: 5 %, under the threshold


def test_errors_are_said_only_of_a_url_that_answered_200_to_the_audit(join: LogJoin) -> None:
    failing = CheckResult(500, not_indexable=NotIndexable.SERVER_ERROR)
    assert Code.LOGS_CRAWLER_ERRORS.value not in codes(joined(join, "/failing", failing))
    redirected = CheckResult(200, redirects=(Redirect(SITE + "/failing", 301),))
    assert codes(joined(join, "/failing", redirected)) == []


def test_an_orphan_googlebot_still_crawls(join: LogJoin) -> None:
    orphan = record("/orphan", OK)
    orphan.findings = (finding(Code.COVERAGE_ORPHAN, url=orphan.loc),)
    join.join_url(orphan)
    assert codes(orphan) == ["coverage.orphan", "logs.orphan_crawled"]
    quiet = record("/never", OK)
    quiet.findings = (finding(Code.COVERAGE_ORPHAN, url=quiet.loc),)
    join.join_url(quiet)
    assert "logs.orphan_crawled" not in codes(quiet)


def test_an_unlisted_url_gets_its_facts_and_no_finding(join: LogJoin) -> None:
    alternate = joined(join, "/unlisted", listed=False)
    assert alternate.crawl_log is not None
    assert alternate.crawl_log.hits == 5
    assert codes(alternate) == []
    assert join.counts.listed == 0


def test_the_pages_no_sitemap_lists_are_counted_with_the_most_crawled(join: LogJoin) -> None:
    for path in ("/", "/crawled", "/old", "/moved", "/shielded", "/failing", "/once-failed"):
        joined(join, path)
    joined(join, "/orphan")
    unlisted = join.unlisted()
    # /unlisted and /also-unlisted.html: pages that answered 200; not /gone (404), no stylesheet
    assert (unlisted.pages, unlisted.page_hits) == (2, 7)
    assert [hits for _, hits in unlisted.top] == [5, 2]
    assert unlisted.hits == 5 + 2 + 1 + 1  # every unlisted hit: pages, the 404, the stylesheet
    found = run_findings(join.run, unlisted, [(SITE + "/unlisted", 5)])
    assert [(f.code.value, f.detail) for f in found] == [
        (
            "logs.crawled_not_listed",
            {"pages": 2, "hits": 7, "top_url": SITE + "/unlisted", "top_hits": 5},
        ),
        (
            "logs.spoofed_crawler",
            {"lines": 2, "addresses": 1, "top_address": SPOOFER_IP, "top_lines": 2},
        ),
    ]


def test_the_judgement_needs_googlebot_and_the_whole_window(ranges: CrawlerRanges) -> None:
    run = run_of(ranges)
    window = run.window
    whole = [(window.start_s - 3600, window.end_s - 3600)]
    assert judgement(run, spans=whole).judged
    late = [(window.start_s + 5 * 86_400, window.end_s)]
    assert not judgement(run, spans=late).judged
    early = [(window.start_s, window.end_s - 3 * 86_400)]
    assert not judgement(run, spans=early).judged
    two_runs = [
        (window.start_s, window.start_s + 15 * 86_400),
        (window.start_s + 15 * 86_400 + 3600, window.end_s),
    ]
    assert judgement(run, spans=two_runs).judged
    gap = [
        (window.start_s, window.start_s + 10 * 86_400),
        (window.start_s + 13 * 86_400, window.end_s),
    ]
    assert not judgement(run, spans=gap).judged


def test_logs_without_a_verified_googlebot_judge_nothing(ranges: CrawlerRanges) -> None:
    spoofed = [Hit("10.0.0.5", START + n * DAY, "/") for n in range(31)]
    data = "".join(FORMATS["combined"](hit) + "\n" for hit in spoofed).encode()
    run = fed(ranges, data, LogFormat.COMBINED)
    found = judgement(run, spans=[(run.window.start_s, run.window.end_s)])
    assert not found.judged
    assert found.why_not is not None
    assert "proxy" in found.why_not


def test_the_section_says_the_share_of_indexable_urls_crawled(join: LogJoin) -> None:
    for path in ("/", "/crawled", "/never", "/old"):
        joined(join, path)
    unlisted = join.unlisted()
    section = logs_section(
        join.run,
        join,
        files=[FileStats("access.log", LogFormat.COMBINED, lines=60)],
        unlisted=unlisted,
        top=[(SITE + "/unlisted", 5)],
        judged=judgement(join.run, spans=[(join.window.start_s, join.window.end_s)]),
        spans=[(join.window.start_s, join.window.end_s)],
    )
    assert section.clause == "Googlebot crawled 50 % of listed indexable URLs in 30 days"
    out = section.to_json()
    googlebot = out["googlebot"]
    assert isinstance(googlebot, dict)
    assert (googlebot["indexable"], googlebot["indexable_crawled"]) == (4, 2)
    assert googlebot["crawled_share"] == 0.5
    assert googlebot["not_listed_top"] == [{"url": SITE + "/unlisted", "hits": 5}]
    gauges = Gauges()
    section.gauges(gauges, "t")
    assert gauges.values[("googlebot_crawled_ratio", "t")] == 0.5
    assert gauges.values[("googlebot_hits", "t", "unlisted")] == unlisted.hits
    part = section.html()
    assert (part.anchor, part.slot, part.template) == ("logs", Slot.PAGES, TEMPLATE)
    assert isinstance(part.view, LogsView)
    assert part.view.share == "50 %"
    assert any("50 %" in line for line in section.terminal_lines())
    assert any("50 %" in line for line in section.markdown_lines())
    assert NOW.timestamp() >= section.window_end_s


class Gauges:
    """A MakeGauge (auditor.report.section) that keeps every value set, by name and labels."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, ...], float] = {}

    def __call__(self, name: str, _doc: str, *_labels: str) -> Gauges.Metric:
        return Gauges.Metric(self.values, name)

    class Metric:
        def __init__(self, values: dict[tuple[str, ...], float], name: str) -> None:
            self._values, self._name = values, name

        def labels(self, *values: str) -> Gauges.Series:
            return Gauges.Series(self._values, (self._name, *values))

    class Series:
        def __init__(self, values: dict[tuple[str, ...], float], key: tuple[str, ...]) -> None:
            self._values, self._key = values, key

        def set(self, value: float) -> None:
            self._values[self._key] = value
