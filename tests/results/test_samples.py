"""The bounded samples behind the HTML report: examples per code, times, sitemap rows."""

from __future__ import annotations

from auditor.codes import Code, Severity
from auditor.models import (
    CheckResult,
    FoundBy,
    Redirect,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.results.samples import MAX_HOPS, MAX_TEXT_CHARS, Samples, clip

SITE = "https://example.com"


def checked(n: int, *codes: Code, elapsed_ms: int = 50) -> UrlRecord:
    result = CheckResult(200, elapsed_ms=elapsed_ms, findings=tuple(finding(c) for c in codes))
    return UrlRecord(f"{SITE}/{n}", (f"{SITE}/s.xml",), check=result)


def document(n: int, *codes: Code, omitted: dict[Code, int] | None = None) -> SitemapRecord:
    return SitemapRecord(
        url=f"{SITE}/s{n}.xml",
        kind=SitemapKind.URLSET,
        parent=f"{SITE}/index.xml",
        depth=1,
        found_by=FoundBy.INDEX,
        status=200,
        findings=tuple(finding(code) for code in codes),
        findings_omitted=omitted or {},
    )


def test_examples_stop_at_the_cap_and_counts_go_on() -> None:
    samples = Samples(examples_per_code=3)
    samples.add_urls(checked(n, Code.HTTP_NOT_FOUND) for n in range(1_000))
    # The first by URL, whatever order the answers came in: the same on every run.
    first = [f"{SITE}/0", f"{SITE}/1", f"{SITE}/10"]
    assert [e.url.value for e in samples.examples[Code.HTTP_NOT_FOUND] if e.url] == first
    assert samples.urls_with_errors == 1_000
    assert samples.url_errors == {f"{SITE}/s.xml": 1_000}
    backwards = Samples(examples_per_code=3)
    backwards.add_urls(checked(n, Code.HTTP_NOT_FOUND) for n in reversed(range(1_000)))
    assert [e.url.value for e in backwards.examples[Code.HTTP_NOT_FOUND] if e.url] == first


def test_response_times_fall_in_fixed_buckets() -> None:
    samples = Samples()
    times = [0, 99, 100, 249, 999, 1_000, 9_999, 10_000, 600_000]
    samples.add_urls(checked(n, elapsed_ms=ms) for n, ms in enumerate(times))
    assert samples.times == [2, 2, 0, 1, 1, 0, 1, 2]
    assert samples.examples == {}  # records without findings are only counted


def test_long_values_and_chains_are_kept_cut_with_their_length() -> None:
    long_url = f"{SITE}/" + "a" * 5_000
    hops = tuple(Redirect(f"{SITE}/hop/{n}", 301) for n in range(12))
    samples = Samples()
    samples.add_urls(
        [
            UrlRecord(
                long_url,
                (f"{SITE}/s.xml",),
                check=CheckResult(
                    301,
                    final_url=f"{SITE}/end",
                    final_status=200,
                    redirects=hops,
                    findings=(finding(Code.REDIRECT_TOO_MANY),),
                ),
            )
        ]
    )
    (example,) = samples.examples[Code.REDIRECT_TOO_MANY]
    assert example.url is not None
    assert len(example.url.value) == MAX_TEXT_CHARS
    assert example.url.length == len(long_url)
    assert len(example.hops) == MAX_HOPS
    assert example.hops_left_out == 12 - MAX_HOPS
    assert example.final_url == clip(f"{SITE}/end")


def test_sitemap_rows_are_capped_with_broken_ones_first() -> None:
    samples = Samples(sitemap_rows=5)
    for n in range(20):
        broken = n in {7, 15}
        samples.add_sitemap(document(n, *([Code.XML_MALFORMED] if broken else [])))
    samples.add_urls([checked(1, Code.HTTP_NOT_FOUND)])  # s.xml is not among the rows
    failing = {f"{SITE}/s3.xml": 2}  # its URLs fail (a listing the sink counted)
    rows = samples.sitemap_rows(failing)
    assert [row.url.rsplit("/", 1)[1] for row in rows] == [
        "s3.xml",
        "s7.xml",
        "s15.xml",
        "s0.xml",
        "s1.xml",
    ]
    assert samples.documents == 20
    assert samples.erring_sitemaps == {f"{SITE}/s7.xml", f"{SITE}/s15.xml"}


def test_a_row_counts_omitted_findings_and_lists_codes_worst_first() -> None:
    samples = Samples()
    samples.add_sitemap(
        document(1, Code.LOC_DUPLICATE, Code.ENTRY_UNKNOWN_TAG, omitted={Code.LOC_INVALID: 9})
    )
    (row,) = samples.sitemap_rows()
    assert row.by_severity == {Severity.ERROR: 9, Severity.WARNING: 1, Severity.NOTICE: 1}
    assert row.codes == (Code.LOC_INVALID, Code.LOC_DUPLICATE, Code.ENTRY_UNKNOWN_TAG)


def test_document_findings_show_where_it_is_listed_and_how_it_answered() -> None:
    record = SitemapRecord(
        url=f"{SITE}/old.xml",
        kind=SitemapKind.URLSET,
        parent=f"{SITE}/index.xml",
        depth=1,
        found_by=FoundBy.INDEX,
        status=200,
        final_url=f"{SITE}/new.xml",
        redirects=(Redirect(f"{SITE}/old.xml", 301),),
        findings=(
            finding(Code.SITEMAP_REDIRECTED),
            finding(Code.LOC_INVALID, url="ftp://example.com/x"),
        ),
    )
    samples = Samples()
    samples.add_sitemap(record)
    (moved,) = samples.examples[Code.SITEMAP_REDIRECTED]
    assert (moved.status, moved.final_status) == (301, 200)
    assert moved.sitemap == clip(f"{SITE}/index.xml")
    assert moved.final_url == clip(f"{SITE}/new.xml")
    (entry,) = samples.examples[Code.LOC_INVALID]
    assert entry.url == clip("ftp://example.com/x")
    assert entry.sitemap == clip(f"{SITE}/old.xml")
    assert entry.status is None
