"""One document's findings, caps and whole-document rules."""

from __future__ import annotations

import pytest

from auditor.codes import Code
from auditor.limits import MAX_ENTRIES
from auditor.models import (
    FoundBy,
    SitemapKind,
    SitemapRecord,
    finding,
)
from auditor.sitemap.document_tally import DocumentTally
from tests.helpers import NOW


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


OTHER = "2026-11-21T08:00:00Z"  # a day earlier
OLD_STAMP = "2026-11-10T09:41:27.318Z"  # 13 days before NOW, to the millisecond


@pytest.mark.parametrize(
    ("lastmods", "same"),
    [
        ([RECENT] * 10, 10),
        ([RECENT] * 50, 50),
        (["2026-11-23"] * 10, 10),
        ([RECENT] * 8, 8),  # a build stamp on 8 entries is still one
        ([RECENT] * 794 + [OTHER] * 6, 794),  # nearly every one: 99%
        ([RECENT] * 9 + [None], 9),  # an undated entry does not hide it
        (["2026-11-22T08:00:00Z", "2026-11-22T08:01:07Z", "2026-11-22T09:59:00Z"] * 3, 9),
        ([RECENT] * 4, None),  # too few entries to tell
        ([RECENT] * 9 + [OTHER] * 2, None),  # 82%: not nearly every one
        (["2026-11-22T08:00:00Z", "2026-11-22T10:00:00Z"] * 5, None),  # three hours apart
        (["2020-01-01T00:00:00Z"] * 10, None),  # old: a real date, maybe
        (["not a date"] * 10, None),
        # Older than a week: one clock reading, to the millisecond, on every dated entry.
        ([OLD_STAMP] * 17, 17),  # next-sitemap's autoLastmod, two weeks after its build
        ([OLD_STAMP] * 5, 5),
        ([OLD_STAMP] * 16 + [None], 16),
        (["2026-11-10T09:41:27.318+00:00"] + [OLD_STAMP] * 5, 6),  # one instant, two spellings
        ([OLD_STAMP] * 4, None),  # too few entries to tell
        ([OLD_STAMP] * 16 + ["2026-11-10T09:41:27.319Z"], None),  # not every one
        ([OLD_STAMP] * 16 + ["2026-13-10"], None),  # not every one reads as that instant
        (["2026-11-10T09:41:27Z"] * 17, None),  # whole seconds: a commit's time, maybe
        (["2026-11-10T09:41:27.000Z"] * 17, None),  # a date written out, maybe
        (["2026-11-10"] * 17, None),
    ],
)
def test_tally_lastmod_uniform(lastmods: list[str | None], same: int | None) -> None:
    counted = tally()
    for lastmod in lastmods:
        counted.count_entry(lastmod)
    record = counted.finish()
    if same is None:
        assert record.findings == ()
        return
    dated = sum(lastmod is not None for lastmod in lastmods)
    assert record_codes(record) == [Code.LASTMOD_UNIFORM]
    assert record.findings[0].detail == {
        "value": lastmods[0],
        "entries": dated,
        "same": same,
        "share": round(same / dated, 3),
    }


def test_a_news_sitemap_dates_cluster_by_design() -> None:
    """Google: a news sitemap lists the last two days' articles."""
    counted = tally()
    counted.news_sitemap = True
    for _ in range(20):
        counted.count_entry(RECENT)
    assert counted.finish().findings == ()


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
