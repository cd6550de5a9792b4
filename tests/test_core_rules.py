"""The small pure modules: robots, redirects, retry, digests, tree, tally, summary, targets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from auditor.codes import Code, Severity
from auditor.config import FailOn
from auditor.digests import DigestTable
from auditor.models import (
    Finding,
    FoundBy,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.redirects import Hop, is_redirect, next_hop
from auditor.retry import backoff_s, retry_after_s
from auditor.robots import SitemapLine, parse_robots
from auditor.summary import ExitCode, Summary, exit_code
from auditor.tally import MAX_ENTRIES, DocumentTally
from auditor.targets import Target, TargetError, TargetKind, parse_target
from auditor.tree import Job, SitemapTree, UrlDedup
from auditor.urls import parse_http_url
from tests.helpers import NOW

# --- robots ---------------------------------------------------------------------------------------

ROBOTS_URL = "https://example.com/robots.txt"
ROBOTS = """# a comment line
User-agent: *
Disallow: /private/
Allow: /private/public
Disallow: /*.pdf$
Disallow: /tmp*/x

SITEMAP: https://example.com/sitemap.xml # the main one
sitemap:/relative.xml
  SiteMap :  sub/s.xml
Sitemap: //cdn.example.com/s.xml
Sitemap: ftp://example.com/s.xml
Sitemap: javascript:alert(1)
Sitemap:
Sitemap: # only a comment

User-agent: Googlebot
Disallow: /nogoogle
Sitemap: https://EXAMPLE.com:443/other.xml
"""


def test_robots_sitemap_lines() -> None:
    robots = parse_robots(ROBOTS, url=ROBOTS_URL)
    assert robots.url == ROBOTS_URL
    assert robots.sitemaps == (
        SitemapLine(8, "https://example.com/sitemap.xml", "https://example.com/sitemap.xml", False),
        SitemapLine(9, "/relative.xml", "https://example.com/relative.xml", True),
        SitemapLine(10, "sub/s.xml", "https://example.com/sub/s.xml", True),
        SitemapLine(11, "//cdn.example.com/s.xml", "https://cdn.example.com/s.xml", True),
        SitemapLine(12, "ftp://example.com/s.xml", None, False),
        SitemapLine(13, "javascript:alert(1)", None, False),
        SitemapLine(
            19, "https://EXAMPLE.com:443/other.xml", "https://EXAMPLE.com:443/other.xml", False
        ),
    )


def test_relative_sitemap_resolves_against_the_robots_folder() -> None:
    robots = parse_robots("Sitemap: maps/s.xml\n", url="http://example.com:8080/sub/robots.txt")
    assert robots.sitemaps == (
        SitemapLine(1, "maps/s.xml", "http://example.com:8080/sub/maps/s.xml", True),
    )


@pytest.mark.parametrize("text", ["", "User-agent: *\nDisallow:\n", "# Sitemap: https://e.com/s"])
def test_robots_without_sitemap_lines(text: str) -> None:
    assert parse_robots(text, url=ROBOTS_URL).sitemaps == ()


@pytest.mark.parametrize(
    ("url", "agent", "allowed"),
    [
        ("https://example.com/", "auditor", True),
        ("https://example.com/private/x", "auditor", False),
        ("https://example.com/private/public", "auditor", True),  # longer Allow wins
        ("https://example.com/private/public/page", "auditor", True),
        ("https://example.com/a.pdf", "auditor", False),
        ("https://example.com/dir/a.pdf", "auditor", False),
        ("https://example.com/a.pdf?x=1", "auditor", True),  # $ anchors the end
        ("https://example.com/tmpfoo/x", "auditor", False),  # * in the middle
        ("https://example.com/tmp/y", "auditor", True),
        ("https://example.com/nogoogle", "Googlebot", False),
        ("https://example.com/nogoogle", "auditor", True),
        ("https://example.com/private/x", "Googlebot", True),  # its own group only
        ("https://example.com/private/x", "googlebot", True),
    ],
)
def test_robots_allows(url: str, agent: str, allowed: bool) -> None:
    assert parse_robots(ROBOTS, url=ROBOTS_URL).allows(url, agent) is allowed


@pytest.mark.parametrize(
    ("keys", "named"),
    [
        ({"https://example.com/other.xml"}, True),  # written with upper case and :443
        ({"https://example.com/relative.xml"}, True),  # a relative line, resolved
        ({"https://cdn.example.com/s.xml"}, True),
        ({"https://example.com/nope.xml", "https://example.com/sitemap.xml"}, True),
        ({"https://example.com/nope.xml"}, False),
        ({"ftp://example.com/s.xml"}, False),
        (set(), False),
    ],
)
def test_robots_names_any(keys: set[str], named: bool) -> None:
    assert parse_robots(ROBOTS, url=ROBOTS_URL).names_any(frozenset(keys)) is named


# --- redirects ------------------------------------------------------------------------------------

START = "https://example.com/a/b"


@pytest.mark.parametrize(
    ("location", "url"),
    [
        ("/c", "https://example.com/c"),
        ("c", "https://example.com/a/c"),
        ("../up", "https://example.com/up"),
        ("//cdn.example.com/x", "https://cdn.example.com/x"),
        ("http://other.com/y", "http://other.com/y"),
        ("  /trimmed  ", "https://example.com/trimmed"),
        ("?page=2", "https://example.com/a/b?page=2"),
        ("/x%20y", "https://example.com/x%20y"),  # existing escapes are kept
        ("/a b/\u00e9?q=\u00fc x", "https://example.com/a%20b/%C3%A9?q=%C3%BC%20x"),
    ],
)
def test_next_hop_resolves_and_encodes(location: str, url: str) -> None:
    hop = next_hop(START, location, visited={START}, hops=0, max_redirects=10)
    assert hop == Hop(url, key(url))


def test_next_hop_key_is_normalised() -> None:
    hop = next_hop(START, "HTTPS://Example.COM:443/x#frag", visited=set(), hops=0, max_redirects=5)
    assert isinstance(hop, Hop)
    assert hop.key == "https://example.com/x"


@pytest.mark.parametrize(
    "location",
    [
        None,
        "",
        "   ",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "mailto:someone@example.com",
        "ftp://example.com/x",
        "http://[::1",
        "https://example.com:99999/",
    ],
)
def test_next_hop_bad_location(location: str | None) -> None:
    result = next_hop(START, location, visited=set(), hops=0, max_redirects=10)
    assert isinstance(result, Finding)
    assert result.code is Code.REDIRECT_BAD_LOCATION
    assert result.url == START


@pytest.mark.parametrize(
    "location", ["https://example.com/a/b", "HTTPS://EXAMPLE.COM:443/a/b#x", "/a/b", "b"]
)
def test_next_hop_loop(location: str) -> None:
    result = next_hop(
        START, location, visited={"https://example.com/a/b"}, hops=1, max_redirects=10
    )
    assert isinstance(result, Finding)
    assert result.code is Code.REDIRECT_LOOP


def test_next_hop_loop_to_an_earlier_hop() -> None:
    visited = {"https://example.com/first", "https://example.com/a/b"}
    result = next_hop(START, "/first", visited=visited, hops=2, max_redirects=10)
    assert isinstance(result, Finding)
    assert result.code is Code.REDIRECT_LOOP


@pytest.mark.parametrize(
    ("hops", "max_redirects", "allowed"),
    [(0, 10, True), (9, 10, True), (10, 10, False), (11, 10, False), (0, 0, False), (0, 1, True)],
)
def test_next_hop_too_many(hops: int, max_redirects: int, allowed: bool) -> None:
    result = next_hop(START, "/next", visited=set(), hops=hops, max_redirects=max_redirects)
    if allowed:
        assert isinstance(result, Hop)
    else:
        assert isinstance(result, Finding)
        assert result.code is Code.REDIRECT_TOO_MANY
        assert result.detail == {"max_redirects": max_redirects}


@pytest.mark.parametrize(
    ("status", "redirect"),
    [
        (301, True),
        (302, True),
        (303, True),
        (307, True),
        (308, True),
        (300, False),
        (304, False),
        (200, False),
        (404, False),
    ],
)
def test_is_redirect(status: int, redirect: bool) -> None:
    assert is_redirect(status) is redirect


# --- retry ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, None),
        ("", None),
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("Mon, 23 Nov 2026 12:01:30 GMT", 90.0),  # an HTTP-date in the future
        ("Mon, 23 Nov 2026 11:00:00 GMT", 0.0),  # in the past: no wait
        ("soon", None),
        ("-5", None),
        ("1.5", None),
        ("Mon, 99 Nov 2026 12:00:00 GMT", None),
        pytest.param(
            "\u00b2",  # superscript two: str.isdigit() says yes, float() says no
            None,
        ),
        pytest.param(
            "\u0663",  # Arabic-Indic three: not an RFC 9110 DIGIT
            None,
        ),
    ],
)
def test_retry_after(value: str | None, seconds: float | None) -> None:
    assert retry_after_s(value, now=NOW) == seconds


@pytest.mark.parametrize("attempt", range(8))
def test_backoff_is_exponential_within_the_jitter_bounds(attempt: int) -> None:
    base_s, cap_s = 0.5, 10.0
    full = min(cap_s, base_s * 2**attempt)
    low = backoff_s(attempt, base_s=base_s, cap_s=cap_s, retry_after=None, jitter=0.0)
    mid = backoff_s(attempt, base_s=base_s, cap_s=cap_s, retry_after=None, jitter=0.5)
    high = backoff_s(attempt, base_s=base_s, cap_s=cap_s, retry_after=None, jitter=0.999999)
    assert low == pytest.approx(full / 2)
    assert mid == pytest.approx(full * 0.75)
    assert full / 2 <= low < mid < high < full
    assert high <= cap_s


def test_backoff_doubles_until_the_cap() -> None:
    delays = [
        backoff_s(attempt, base_s=1.0, cap_s=8.0, retry_after=None, jitter=0.0)
        for attempt in range(6)
    ]
    assert delays == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


@pytest.mark.parametrize(("retry_after", "delay"), [(3.0, 3.0), (0.0, 0.0), (300.0, 10.0)])
def test_retry_after_wins_but_is_capped(retry_after: float, delay: float) -> None:
    got = backoff_s(5, base_s=0.5, cap_s=10.0, retry_after=retry_after, jitter=0.9)
    assert got == delay


# --- digests --------------------------------------------------------------------------------------


def test_digest_table_setdefault() -> None:
    table = DigestTable()
    assert len(table) == 0
    assert table.setdefault(42, 7) is None
    assert table.setdefault(42, 8) == 7  # the stored value, not the new one
    assert table.setdefault(43, 0) is None
    assert table.setdefault(43, 5) == 0
    assert table.setdefault(2**64 - 1, 2**32 - 1) is None
    assert table.setdefault(2**64 - 1, 1) == 2**32 - 1
    assert len(table) == 3


def test_digest_table_grows_and_keeps_every_value() -> None:
    rng = random.Random(1234)
    digests = list({rng.getrandbits(64) or 1 for _ in range(100_000)})
    table = DigestTable()
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, value % 2**32) is None
    assert len(table) == len(digests)
    assert len(digests) > 99_000  # several resizes past the 4,096 first slots
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, 0) == value
    assert len(table) == len(digests)


def test_digest_table_colliding_low_bits_and_wraparound() -> None:
    table = DigestTable()
    # Same low 12 bits: every digest aims at the last slot, so probing wraps to slot 0.
    digests = [(n << 32) | 0xFFF for n in range(1, 400)]
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, value) is None
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, 99_999) == value
    assert len(table) == len(digests)


# --- tree -----------------------------------------------------------------------------------------


def key(url: str) -> str:
    parsed = parse_http_url(url)
    assert parsed is not None
    return parsed.key


def root_job(url: str = "https://example.com/index.xml") -> Job:
    return Job(url, key(url), 0, FoundBy.TARGET)


def child(tree: SitemapTree, parent: Job, url: str, *, position: int = 1) -> Job | Finding | None:
    return tree.add_child(
        parent,
        loc=url,
        key=key(url),
        parent_keys=frozenset({parent.key}) | parent.ancestors,
        position=position,
    )


def test_add_root_dedups() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    assert tree.add_root(root_job())
    assert not tree.add_root(root_job())
    assert not tree.add_root(root_job("HTTPS://EXAMPLE.COM/index.xml"))
    assert tree.add_root(root_job("https://example.com/other.xml"))


def test_add_child_gives_a_job_one_level_down() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    job = child(tree, parent, "https://example.com/s1.xml")
    assert job == Job(
        url="https://example.com/s1.xml",
        key="https://example.com/s1.xml",
        target=0,
        found_by=FoundBy.INDEX,
        parent=parent.url,
        parent_kind=SitemapKind.SITEMAPINDEX,
        depth=1,
        ancestors=frozenset({parent.key}),
    )
    assert isinstance(job, Job)
    grandchild = child(tree, job, "https://example.com/s2.xml")
    assert isinstance(grandchild, Job)
    assert grandchild.depth == 2
    assert grandchild.ancestors == frozenset({parent.key, job.key})


def test_index_listing_itself_is_a_loop() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    result = child(tree, parent, "https://example.com/index.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_LOOP
    assert result.sitemap == parent.url


def test_index_listing_an_ancestor_is_a_loop() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    top = root_job()
    tree.add_root(top)
    middle = child(tree, top, "https://example.com/middle.xml")
    assert isinstance(middle, Job)
    result = child(tree, middle, "https://EXAMPLE.com/index.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_LOOP


def test_child_listed_twice_is_a_duplicate() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    assert isinstance(child(tree, parent, "https://example.com/s1.xml"), Job)
    result = child(tree, parent, "https://example.com/s1.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_DUPLICATE_CHILD
    assert result.detail == {"first_parent": parent.url}


def test_child_already_read_as_a_root_is_a_duplicate() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    tree.add_root(root_job("https://example.com/s1.xml"))
    result = child(tree, parent, "https://example.com/s1.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_DUPLICATE_CHILD
    assert result.detail == {"first_parent": None}


@pytest.mark.parametrize(("max_depth", "allowed_levels"), [(1, 1), (2, 2), (0, 0)])
def test_index_too_deep(max_depth: int, allowed_levels: int) -> None:
    tree = SitemapTree(max_depth=max_depth, max_sitemaps=100)
    job = root_job()
    tree.add_root(job)
    for level in range(1, allowed_levels + 1):
        nxt = child(tree, job, f"https://example.com/level{level}.xml")
        assert isinstance(nxt, Job)
        job = nxt
    result = child(tree, job, "https://example.com/too-deep.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_TOO_DEEP
    assert result.detail == {"max_depth": max_depth}


def test_children_past_position_50000_are_dropped_silently() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    at_limit = child(tree, parent, "https://example.com/a.xml", position=MAX_ENTRIES)
    assert isinstance(at_limit, Job)
    assert child(tree, parent, "https://example.com/b.xml", position=MAX_ENTRIES + 1) is None
    # Not registered: the same URL at a legal position is still a new child.
    assert isinstance(child(tree, parent, "https://example.com/b.xml"), Job)


def test_run_cap_is_reported_once() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=3)
    parent = root_job()
    tree.add_root(parent)  # 1 document
    assert isinstance(child(tree, parent, "https://example.com/1.xml"), Job)  # 2
    assert isinstance(child(tree, parent, "https://example.com/2.xml"), Job)  # 3
    capped = child(tree, parent, "https://example.com/3.xml")
    assert isinstance(capped, Finding)
    assert capped.code is Code.INDEX_TOO_MANY_SITEMAPS
    assert capped.detail == {"scope": "run", "limit": 3}
    assert child(tree, parent, "https://example.com/4.xml") is None
    assert child(tree, parent, "https://example.com/5.xml") is None


def test_check_hop_loop_back_to_an_ancestor_or_itself() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    top = root_job()
    tree.add_root(top)
    job = child(tree, top, "https://example.com/s1.xml")
    assert isinstance(job, Job)
    to_ancestor = tree.check_hop(job, top.key)
    assert isinstance(to_ancestor, Finding)
    assert to_ancestor.code is Code.INDEX_LOOP
    assert to_ancestor.detail == {"via": top.key}
    to_itself = tree.check_hop(job, job.key)
    assert isinstance(to_itself, Finding)
    assert to_itself.code is Code.INDEX_LOOP


def test_check_hop_duplicate_via_redirect_then_visited() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    top = root_job()
    tree.add_root(top)
    first = child(tree, top, "https://example.com/s1.xml")
    second = child(tree, top, "https://example.com/s2.xml")
    assert isinstance(first, Job)
    assert isinstance(second, Job)
    duplicate = tree.check_hop(second, first.key)
    assert isinstance(duplicate, Finding)
    assert duplicate.code is Code.INDEX_DUPLICATE_CHILD
    assert duplicate.detail == {"first_parent": top.url, "via_redirect": True}
    # A fresh target is marked visited: a later listing of it is a duplicate.
    assert tree.check_hop(first, key("https://example.com/moved.xml")) is None
    again = child(tree, top, "https://example.com/moved.xml")
    assert isinstance(again, Finding)
    assert again.code is Code.INDEX_DUPLICATE_CHILD


def test_url_dedup_first_listing() -> None:
    dedup = UrlDedup()
    assert dedup.first_listing("https://example.com/a", "https://example.com/s1.xml") is None
    assert dedup.first_listing("https://example.com/b", "https://example.com/s2.xml") is None
    first = "https://example.com/s1.xml"
    assert dedup.first_listing("https://example.com/a", "https://example.com/s2.xml") == first
    assert dedup.first_listing("https://example.com/a", "https://example.com/s3.xml") == first
    assert dedup.first_listing("https://example.com/a", first) == first
    assert len(dedup) == 2


# --- tally ----------------------------------------------------------------------------------------


def tally(*, keep: int = 100, kind: SitemapKind | None = SitemapKind.URLSET) -> DocumentTally:
    counted = DocumentTally(
        "https://example.com/sitemap.xml",
        parent=None,
        depth=0,
        found_by=FoundBy.TARGET,
        keep=keep,
        now=NOW,
    )
    counted.kind = kind
    return counted


def record_codes(record: SitemapRecord) -> list[Code]:
    return [item.code for item in record.findings]


def test_tally_keeps_the_first_findings_and_counts_the_rest() -> None:
    counted = tally(keep=2)
    for code in [
        Code.LOC_INVALID,
        Code.LOC_INVALID,
        Code.LOC_NOT_ESCAPED,
        Code.LOC_INVALID,
        Code.LOC_NOT_ESCAPED,
    ]:
        counted.add(finding(code, url="https://example.com/x"))
    counted.count_entry(None)
    record = counted.finish()
    assert record_codes(record) == [Code.LOC_INVALID, Code.LOC_INVALID]
    assert dict(record.findings_omitted) == {Code.LOC_NOT_ESCAPED: 2, Code.LOC_INVALID: 1}
    assert all(item.sitemap == "https://example.com/sitemap.xml" for item in record.findings)
    assert counted.codes == {Code.LOC_INVALID, Code.LOC_NOT_ESCAPED}


def test_tally_keeps_a_sitemap_already_named() -> None:
    counted = tally()
    counted.add(finding(Code.LOC_INVALID, sitemap="https://example.com/other.xml"))
    counted.count_entry(None)
    [item] = counted.finish().findings
    assert item.sitemap == "https://example.com/other.xml"


@pytest.mark.parametrize(
    ("kind", "entries", "code"),
    [
        (SitemapKind.URLSET, MAX_ENTRIES, None),
        (SitemapKind.URLSET, MAX_ENTRIES + 1, Code.SITEMAP_TOO_MANY_URLS),
        (SitemapKind.TEXT, MAX_ENTRIES + 1, Code.SITEMAP_TOO_MANY_URLS),
        (SitemapKind.SITEMAPINDEX, MAX_ENTRIES, None),
        (SitemapKind.SITEMAPINDEX, MAX_ENTRIES + 1, Code.INDEX_TOO_MANY_SITEMAPS),
    ],
)
def test_tally_too_many_entries(kind: SitemapKind, entries: int, code: Code | None) -> None:
    counted = tally(kind=kind)
    for _ in range(entries):
        counted.count_entry(None)
    record = counted.finish()
    assert record.url_count == entries
    if code is None:
        assert record.findings == ()
    else:
        [item] = record.findings
        assert item.code is code
        assert item.detail == {"count": entries, "limit": MAX_ENTRIES}


@pytest.mark.parametrize("kind", [SitemapKind.URLSET, SitemapKind.SITEMAPINDEX, None])
def test_tally_empty(kind: SitemapKind | None) -> None:
    assert record_codes(tally(kind=kind).finish()) == [Code.SITEMAP_EMPTY]


def test_tally_not_empty_when_unreadable_or_robots() -> None:
    unreadable = tally(kind=None)
    unreadable.add(finding(Code.SITEMAP_UNSUPPORTED_FORMAT))
    assert record_codes(unreadable.finish()) == [Code.SITEMAP_UNSUPPORTED_FORMAT]
    assert tally(kind=SitemapKind.ROBOTS).finish().findings == ()


RECENT = "2026-11-22T08:00:00Z"


@pytest.mark.parametrize(
    ("lastmods", "uniform"),
    [
        ([RECENT] * 10, True),
        ([RECENT] * 50, True),
        (["2026-11-23"] * 10, True),
        ([RECENT] * 9, False),  # too few entries to tell
        ([RECENT] * 9 + ["2026-11-21T08:00:00Z"], False),  # differing
        ([RECENT] * 9 + [None], False),  # one undated entry
        (["2020-01-01T00:00:00Z"] * 10, False),  # old: a real date, maybe
        (["not a date"] * 10, False),
    ],
)
def test_tally_lastmod_uniform(lastmods: list[str | None], uniform: bool) -> None:
    counted = tally()
    for lastmod in lastmods:
        counted.count_entry(lastmod)
    record = counted.finish()
    if uniform:
        assert record_codes(record) == [Code.LASTMOD_UNIFORM]
        assert record.findings[0].detail == {"value": lastmods[0], "entries": len(lastmods)}
    else:
        assert record.findings == ()


def test_tally_record_carries_the_response_facts() -> None:
    counted = tally()
    counted.status = 200
    counted.bytes = 1234
    counted.compressed = True
    counted.count_entry(None)
    record = counted.finish()
    assert (record.status, record.bytes, record.compressed, record.url_count) == (
        200,
        1234,
        True,
        1,
    )
    assert (record.depth, record.found_by, record.kind) == (0, FoundBy.TARGET, SitemapKind.URLSET)


# --- summary --------------------------------------------------------------------------------------

ERROR_CODE, WARNING_CODE, NOTICE_CODE = Code.LOC_INVALID, Code.LOC_DUPLICATE, Code.URL_SLOW


def summary_of(*codes: Code) -> Summary:
    summary = Summary()
    summary.add_findings(finding(code) for code in codes)
    return summary


def test_catalog_severities_used_below() -> None:
    assert ERROR_CODE.severity is Severity.ERROR
    assert WARNING_CODE.severity is Severity.WARNING
    assert NOTICE_CODE.severity is Severity.NOTICE


def test_by_severity_counts_worst_first_with_zeros() -> None:
    counts = summary_of(ERROR_CODE, ERROR_CODE, NOTICE_CODE).by_severity()
    assert list(counts.items()) == [
        (Severity.ERROR, 2),
        (Severity.WARNING, 0),
        (Severity.NOTICE, 1),
    ]
    assert summary_of().by_severity() == dict.fromkeys(Severity, 0)


@pytest.mark.parametrize(
    ("codes", "fail_on", "expected"),
    [
        ((), FailOn.NOTICE, ExitCode.OK),
        ((), FailOn.ERROR, ExitCode.OK),
        ((NOTICE_CODE,), FailOn.NOTICE, ExitCode.FINDINGS),
        ((NOTICE_CODE,), FailOn.WARNING, ExitCode.OK),
        ((NOTICE_CODE,), FailOn.ERROR, ExitCode.OK),
        ((WARNING_CODE,), FailOn.NOTICE, ExitCode.FINDINGS),
        ((WARNING_CODE,), FailOn.WARNING, ExitCode.FINDINGS),
        ((WARNING_CODE,), FailOn.ERROR, ExitCode.OK),
        ((ERROR_CODE,), FailOn.NOTICE, ExitCode.FINDINGS),
        ((ERROR_CODE,), FailOn.WARNING, ExitCode.FINDINGS),
        ((ERROR_CODE,), FailOn.ERROR, ExitCode.FINDINGS),
        ((ERROR_CODE, WARNING_CODE, NOTICE_CODE), FailOn.NEVER, ExitCode.OK),
        ((ERROR_CODE,), FailOn.NEVER, ExitCode.OK),
    ],
)
def test_exit_code(codes: tuple[Code, ...], fail_on: FailOn, expected: ExitCode) -> None:
    assert exit_code(summary_of(*codes), fail_on) is expected


def test_omitted_findings_count_towards_the_exit_code() -> None:
    summary = Summary()
    record = SitemapRecord(
        url="https://example.com/sitemap.xml",
        kind=SitemapKind.URLSET,
        parent=None,
        depth=0,
        found_by=FoundBy.TARGET,
        url_count=3,
        findings_omitted={ERROR_CODE: 4},
    )
    summary.add_sitemap(record)
    assert summary.by_severity()[Severity.ERROR] == 4
    assert summary.entries == 3
    assert exit_code(summary, FailOn.ERROR) is ExitCode.FINDINGS


def test_url_findings_are_counted() -> None:
    summary = Summary()
    summary.add_url(UrlRecord("https://example.com/a", ("s",), findings=(finding(WARNING_CODE),)))
    summary.add_url(UrlRecord("https://example.com/b", ("s",)))
    assert summary.urls == 2
    assert summary.by_code == {WARNING_CODE: 1}


# --- targets --------------------------------------------------------------------------------------


def no_files(_path: Path) -> bool:
    return False


@pytest.mark.parametrize(
    ("text", "kind", "url"),
    [
        ("https://example.com", TargetKind.SITE, "https://example.com/"),
        ("https://example.com/", TargetKind.SITE, "https://example.com/"),
        ("HTTPS://Example.COM:443/blog/", TargetKind.SITE, "https://example.com/blog/"),
        ("http://example.com:8080/", TargetKind.SITE, "http://example.com:8080/"),
        ("https://example.com/robots.txt", TargetKind.ROBOTS, "https://example.com/robots.txt"),
        ("https://example.com/sitemap.xml", TargetKind.SITEMAP, "https://example.com/sitemap.xml"),
        ("https://example.com/?sitemap=1", TargetKind.SITEMAP, "https://example.com/?sitemap=1"),
        ("example.com", TargetKind.SITE, "https://example.com/"),
        ("www.example.co.uk/maps/", TargetKind.SITE, "https://www.example.co.uk/maps/"),
        ("example.com/sitemap.xml", TargetKind.SITEMAP, "https://example.com/sitemap.xml"),
    ],
)
def test_url_targets(text: str, kind: TargetKind, url: str) -> None:
    target = parse_target(text, is_file=no_files)
    assert target == Target(text, kind, url)


def test_local_file_target() -> None:
    asked: list[Path] = []

    def is_file(path: Path) -> bool:
        asked.append(path)
        return path == Path("maps/sitemap.xml")

    target = parse_target("maps/sitemap.xml", is_file=is_file)
    absolute = Path("maps/sitemap.xml").absolute()
    assert target == Target("maps/sitemap.xml", TargetKind.SITEMAP, absolute.as_uri(), absolute)
    assert Path("maps/sitemap.xml") in asked
    assert target.label == "sitemap"


def test_file_uri_target_is_unquoted() -> None:
    def is_file(path: Path) -> bool:
        return path == Path("/srv/data/my maps.xml")

    target = parse_target("file:///srv/data/my%20maps.xml", is_file=is_file)
    assert target.kind is TargetKind.SITEMAP
    assert target.path == Path("/srv/data/my maps.xml")
    assert target.url == "file:///srv/data/my%20maps.xml"


@pytest.mark.parametrize("text", ["/srv/site/robots.txt", "file:///srv/site/robots.txt"])
def test_local_robots_target(text: str) -> None:
    def is_file(path: Path) -> bool:
        return path == Path("/srv/site/robots.txt")

    target = parse_target(text, is_file=is_file)
    assert target.kind is TargetKind.ROBOTS
    assert target.path == Path("/srv/site/robots.txt")


def test_url_target_label_is_the_host() -> None:
    assert parse_target("https://Shop.Example.com/s.xml", is_file=no_files).label == (
        "shop.example.com"
    )


@pytest.mark.parametrize(
    "text",
    [
        "nonsense",
        "ftp://example.com/sitemap.xml",
        "file:///srv/missing.xml",
        "https://",
        "https://exa mple.com/",
        "http://[::1",
        "",
        "example",
    ],
)
def test_target_errors(text: str) -> None:
    with pytest.raises(TargetError):
        parse_target(text, is_file=no_files)
