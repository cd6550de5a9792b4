"""auditor.wings.logs.log_feed: a log's bytes in, the tally fed, in any split."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.wings.logs.crawler_names import Bot
from auditor.wings.logs.crawler_ranges import CrawlerRanges
from auditor.wings.logs.log_feed import MAX_LINE_BYTES, FileStats, LogFeed, LogRun
from auditor.wings.logs.log_formats import LogFormat
from auditor.wings.logs.log_targets import target_key
from tests.helpers import NOW
from tests.wings.logs.conftest import START, fed, new_run
from tests.wings.logs.log_lines import (
    BINGBOT_IP,
    BINGBOT_UA,
    BROWSER_UA,
    FORMATS,
    GOOGLEBOT_IP,
    GOOGLEBOT_IP6,
    IMAGE_UA,
    PROXY_IP,
    SPOOFER_IP,
    Hit,
    clf_time,
)

DAY = timedelta(days=1)


def sample_hits() -> list[Hit]:
    """Verified hits, false claims, a browser, over the window and before it."""
    return [
        Hit(GOOGLEBOT_IP, START + DAY, "/a"),
        Hit(GOOGLEBOT_IP, START + 2 * DAY, "/a", status=503),
        Hit(GOOGLEBOT_IP6, START + 3 * DAY, "/b?page=2"),
        Hit(GOOGLEBOT_IP, START - 5 * DAY, "/old"),  # before the window
        Hit(GOOGLEBOT_IP, START + 4 * DAY, "/logo.png", agent=IMAGE_UA),
        Hit(BINGBOT_IP, START + 5 * DAY, "/a", agent=BINGBOT_UA),
        Hit(SPOOFER_IP, START + 6 * DAY, "/a"),
        Hit(PROXY_IP, START + 6 * DAY, "/c"),
        Hit("10.9.9.9", START + 6 * DAY, "/a", agent=BROWSER_UA),
    ]


def row(run: LogRun, path: str, host: str | None = None) -> int:
    key = target_key(path.encode(), host)
    assert key is not None
    index = run.hits.find(key[0])
    assert index is not None, path
    return index


@pytest.mark.parametrize("name", [name for name in FORMATS if name != "common"])
def test_every_format_gives_the_same_counts(ranges: CrawlerRanges, name: str) -> None:
    data = "".join(FORMATS[name](hit) + "\n" for hit in sample_hits()).encode()
    run = fed(ranges, data, LogFormat(name))
    counts = run.counts
    assert (counts.lines, counts.bad) == (9, 0)
    assert counts.claims[Bot.GOOGLEBOT].verified == 4
    assert counts.claims[Bot.GOOGLEBOT].outside == 1
    assert counts.claims[Bot.GOOGLEBOT].private == 1
    assert counts.claims[Bot.GOOGLEBOT_IMAGE].verified == 1
    assert counts.claims[Bot.BINGBOT].verified == 1
    assert dict(counts.spoofers) == {SPOOFER_IP: 1}
    assert counts.before_window == 1
    host = "www.example.com" if name != "combined" else None
    a = row(run, "/a", host)
    assert (run.hits.hits[a], run.hits.errors[a], run.hits.bing[a]) == (2, 1, 1)
    assert run.hits.status[a] == 503  # the last hit's
    assert run.hits.hits[row(run, "/b?page=2", host)] == 1
    assert run.hits.hits[row(run, "/old", host)] == 0  # known, last hit kept, not in the window
    assert run.hits.last[row(run, "/old", host)] > 0


def test_a_common_log_names_no_crawler(ranges: CrawlerRanges) -> None:
    data = "".join(FORMATS["common"](hit) + "\n" for hit in sample_hits()).encode()
    run = fed(ranges, data, LogFormat.COMMON)
    assert (run.counts.lines, run.counts.bad) == (9, 0)
    assert all(c.verified == 0 for c in run.counts.claims.values())
    assert len(run.hits) == 0


def summary(run: LogRun) -> tuple[object, ...]:
    counts = run.counts
    rows = sorted(
        (digest, run.hits.hits[i], run.hits.last[i], run.hits.flags[i])
        for digest, i in run.hits.rows()
    )
    claims = {c: (v.verified, v.outside, v.private) for c, v in counts.claims.items()}
    examples = [(b.line, b.reason) for b in counts.bad_examples]
    return counts.lines, counts.blank, counts.bad, examples, claims, rows, counts.first_s


@given(pieces=st.integers(min_value=1, max_value=400))
def test_any_split_of_the_bytes_gives_the_same_tally(ranges: CrawlerRanges, pieces: int) -> None:
    hits = sample_hits()
    lines = [FORMATS["combined"](hit) for hit in hits]
    lines.insert(3, "")
    lines.insert(5, "not a log line at all")
    data = ("\r\n".join(lines[:2]) + "\n" + "\n".join(lines[2:]) + "\n").encode()
    whole = fed(ranges, data, LogFormat.COMBINED)
    assert whole.counts.bad == 1
    assert summary(fed(ranges, data, LogFormat.COMBINED, pieces=pieces)) == summary(whole)


def test_byte_by_byte_gives_the_same_tally(ranges: CrawlerRanges) -> None:
    data = "".join(FORMATS["json"](hit) + "\n" for hit in sample_hits()).encode()
    assert summary(fed(ranges, data, LogFormat.JSON, pieces=len(data))) == summary(
        fed(ranges, data, LogFormat.JSON)
    )


def hostile_lines() -> list[bytes]:
    good = FORMATS["combined"](Hit(GOOGLEBOT_IP, START + DAY, "/ok")).encode()
    agent = 'x "q" Googlebot/2.1'  # quotes in the user agent, escaped as Apache escapes them
    quoted = FORMATS["combined"](Hit(GOOGLEBOT_IP, START + DAY, "/quoted", agent=agent))
    month = clf_time(START + DAY)[3:6].encode()
    return [
        good,
        b"\x00\xff\xfe binary \x89PNG\r\x1a",  # binary junk
        good.replace(month, b"Foo", 1),  # a month that is none
        good.replace(b"[" + clf_time(START + DAY)[:6].encode(), b"[30/Feb", 1),  # no such day
        quoted.encode(),
        good.replace(b'"Mozilla', b'"Mozi"lla'),  # a raw quote: not the format
        good.replace(b"/ok", b"/" + b"a" * 20_000),  # an overlong request target
    ]


def test_hostile_lines_are_counted_never_fatal(ranges: CrawlerRanges) -> None:
    data = b"\n".join(hostile_lines()) + b"\n"
    run = fed(ranges, data, LogFormat.COMBINED)
    counts = run.counts
    assert counts.lines == 7
    assert counts.bad == 5  # binary, a month that is none, no such day, a raw quote, overlong
    assert [(b.line, b.reason) for b in counts.bad_examples] == [
        (2, "not_the_format"),
        (3, "not_the_format"),
        (6, "not_the_format"),
    ]
    assert counts.claims[Bot.GOOGLEBOT].verified == 2  # /ok and the escaped quotes
    assert row(run, "/quoted") >= 0


def test_a_claim_with_no_such_day_is_a_bad_line_where_it_is(ranges: CrawlerRanges) -> None:
    good = FORMATS["combined"](Hit(GOOGLEBOT_IP, START + DAY, "/ok")).encode()
    bad = good.replace(b"[" + clf_time(START + DAY)[:6].encode(), b"[30/Feb", 1)
    run = fed(ranges, b"\n".join([good, good, bad, good]) + b"\n", LogFormat.COMBINED)
    assert run.counts.bad == 1
    assert [(b.line, b.reason) for b in run.counts.bad_examples] == [(3, "bad_time")]
    assert run.counts.claims[Bot.GOOGLEBOT].verified == 3


def test_an_overlong_line_is_never_held_whole(ranges: CrawlerRanges) -> None:
    run = new_run(ranges)
    feed = LogFeed(run, FileStats("big.log", LogFormat.COMBINED))
    good = FORMATS["combined"](Hit(GOOGLEBOT_IP, START + DAY, "/ok")).encode() + b"\n"
    feed.feed(good)
    for _ in range(40):  # 2.5 MiB without a line end
        feed.feed(b"x" * 65_536)
    feed.feed(b"end of the long line\n" + good)
    feed.close()
    assert (run.counts.lines, run.counts.bad) == (3, 1)
    assert run.counts.bad_examples[0].reason == "overlong"
    assert len(run.counts.bad_examples[0].text) <= 160
    assert run.counts.claims[Bot.GOOGLEBOT].verified == 2
    assert MAX_LINE_BYTES < 40 * 65_536


def test_a_truncated_last_line_is_a_bad_line(ranges: CrawlerRanges) -> None:
    run = new_run(ranges)
    feed = LogFeed(run, FileStats("cut.log", LogFormat.COMBINED))
    good = FORMATS["combined"](Hit(GOOGLEBOT_IP, START + DAY, "/ok")).encode()
    feed.feed(good + b"\n" + good[:40])
    feed.close(truncated=True)
    assert (run.counts.lines, run.counts.bad, feed.stats.truncated) == (2, 1, True)
    assert run.counts.bad_examples[0].reason == "truncated"


def test_a_last_line_without_its_end_is_read(ranges: CrawlerRanges) -> None:
    good = FORMATS["combined"](Hit(GOOGLEBOT_IP, START + DAY, "/ok")).encode()
    run = fed(ranges, good, LogFormat.COMBINED)
    assert (run.counts.lines, run.counts.bad, len(run.hits)) == (1, 0, 1)


def test_the_span_is_the_first_and_the_last_line(ranges: CrawlerRanges) -> None:
    hits = [Hit(GOOGLEBOT_IP, START + n * DAY, f"/{n}") for n in range(10)]
    data = "".join(FORMATS["combined"](hit) + "\n" for hit in hits).encode()
    run = fed(ranges, data, LogFormat.COMBINED)
    assert run.counts.first_s == int(START.timestamp())
    assert run.counts.last_s == int((START + 9 * DAY).timestamp())
    assert sum(run.counts.per_day.values()) == 10


def test_every_page_googlebot_hits_first_is_spooled_once(ranges: CrawlerRanges) -> None:
    hits = [Hit(GOOGLEBOT_IP, START + DAY, path) for path in ("/a", "/a", "/b", "/c.css")]
    hits.append(Hit(BINGBOT_IP, START + DAY, "/d", agent=BINGBOT_UA))
    data = "".join(FORMATS["combined"](hit) + "\n" for hit in hits).encode()
    run = fed(ranges, data, LogFormat.COMBINED)
    assert sorted(key for _, key in run.new_keys) == ["/a", "/b"]  # no stylesheet, no Bing only


def test_the_times_zone_is_taken(ranges: CrawlerRanges) -> None:
    local = NOW.astimezone(__import__("datetime").timezone(timedelta(hours=-7)))
    data = (FORMATS["combined"](Hit(GOOGLEBOT_IP, local - DAY, "/z")) + "\n").encode()
    run = fed(ranges, data, LogFormat.COMBINED)
    assert run.hits.last[row(run, "/z")] == int((NOW - DAY).timestamp())
