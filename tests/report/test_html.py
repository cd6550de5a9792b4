"""The HTML report: inert whatever the network says, bounded whatever the size, atomic."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from auditor.codes import Code
from auditor.config import FailOn
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.demo.site import CLEAN_SECTIONS, clean_routes
from auditor.errors import ReportWriteError
from auditor.models import (
    CheckResult,
    FoundBy,
    Redirect,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.report import html_writer
from auditor.report.html_rows import link
from auditor.report.html_view import RunFacts, build_view
from auditor.report.html_writer import render_html, write_html
from auditor.report.section import HtmlPart, Slot
from auditor.results.samples import EXAMPLES_PER_CODE, SITEMAP_ROWS, Samples
from auditor.results.summary import Summary
from auditor.results.verdict import Outcome, judge
from auditor.wings.baseline.compare import FieldChange
from auditor.wings.baseline.diff_view import TEMPLATE, ChangeLine, DiffView, RegressionLine
from tests.helpers import run_audit
from tests.html_checks import inspect_html

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
LONG = "a" * 5_000


def hostile_routes(base: str) -> dict[str, Page]:
    """A sitemap whose every string tries to become markup, script or a link."""
    locs = [
        f"{base}/{SCRIPT}",
        f"{base}/{IMG}",
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        f"{base}/{LONG}",
        f"{base}/bad-location",
        f"{base}/to-markup",
    ]
    return {
        "/sitemap.xml": xml_page(urlset([url(escape(loc)) for loc in locs])),
        "/bad-location": redirect(302, "javascript:alert(2)"),
        "/to-markup": redirect(301, f"{base}/'><svg onload=alert(3)>"),
    }


async def test_hostile_strings_render_inert(tmp_path: Path) -> None:
    async with serve(hostile_routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
    page = audited.result.html_path.read_text()
    problems, hrefs = inspect_html(page)
    assert problems == []
    for payload in (SCRIPT, "<img", "<svg onload"):
        assert payload not in page
    assert html.escape(SCRIPT) in page  # shown, as text
    assert not [href for href in hrefs if "javascript:" in href.lower()]
    assert "javascript:alert(1)" in page  # shown as text, never linked
    assert LONG not in page  # the 5,000-character URL is cut...
    assert re.search(r'class="cut">… 4,[0-9]{3} more characters<', page)  # ...and says so
    codes = audited.codes()
    assert codes["loc.invalid"] == 2
    assert codes["loc.too_long"] == 1
    assert codes["redirect.bad_location"] == 1


@pytest.mark.parametrize(
    ("value", "href"),
    [
        ("https://example.com/a", "https://example.com/a"),
        ("HTTP://example.com/a", "HTTP://example.com/a"),
        ("javascript:alert(1)", None),
        (" https://example.com/a", None),
        ("https://example.com/a\nb", None),
        ("data:text/html,<script>", None),
        ("//example.com/a", None),
        ("https://example.com/" + "a" * 400, None),  # cut: not the real URL any more
    ],
)
def test_only_whole_http_urls_become_links(value: str, href: str | None) -> None:
    assert link(value).href == href


def big_run(records: int) -> tuple[Summary, Samples]:
    """`records` URLs with findings of many codes, long URLs and redirect chains."""
    summary, samples = Summary(), Samples()
    codes = [code for code in Code if code.value.startswith(("http.", "redirect.", "net."))]
    hops = tuple(Redirect(f"https://example.com/{'r' * 250}/{n}", 301) for n in range(10))
    batch = []
    for n in range(records):
        check = CheckResult(
            301,
            final_url=f"https://example.com/{'f' * 290}",
            final_status=200,
            redirects=hops,
            elapsed_ms=n % 20_000,
            findings=(finding(codes[n % len(codes)], "x" * 400, k="v" * 500),),
        )
        batch.append(UrlRecord(f"https://example.com/{'u' * 280}/{n}", ("s",), check=check))
    for record in batch:
        summary.add_url(record)
    samples.add_urls(batch)
    for n in range(SITEMAP_ROWS * 3):
        document = SitemapRecord(
            f"https://example.com/{'s' * 250}/{n}.xml",
            SitemapKind.URLSET,
            None,
            0,
            FoundBy.TARGET,
            findings=tuple(finding(code) for code in Code)[: n % 40],
        )
        summary.add_sitemap(document)
        samples.add_sitemap(document)
    return summary, samples


def render(summary: Summary, samples: Samples, diff: DiffView | None = None) -> str:
    facts = RunFacts(
        title="example.com",
        generated_at=datetime(2026, 1, 1, tzinfo=UTC),
        tool="sitemap-auditor test",
        complete=True,
        duration_s=12.5,
        config={"fail_on": "error", "headers": {"Cookie": "<redacted>"}},
        json_name="r.json",
    )
    verdict = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.ERROR).verdict
    parts = [HtmlPart("changes", "Changes since the baseline", Slot.TOP, TEMPLATE, diff)]
    view = build_view(
        summary,
        samples,
        verdict=verdict,
        facts=facts,
        targets=(),
        parts=parts if diff is not None else (),
        new_codes=diff.new_codes if diff is not None else None,
    )
    return render_html(view)


@pytest.mark.slow
def test_the_report_of_a_huge_run_stays_small_and_states_its_caps() -> None:
    summary, samples = big_run(200_000)
    page = render(summary, samples)
    assert len(page.encode()) < 5_000_000
    assert inspect_html(page)[0] == []
    caps = re.findall(
        r'class="cap" data-code="[a-z._]+" data-shown="(\d+)" data-total="(\d+)"', page
    )
    assert caps
    assert {int(shown) for shown, _total in caps} == {EXAMPLES_PER_CODE}
    assert sum(int(total) for _shown, total in caps) >= 200_000
    shown = re.search(r'id="sitemaps-cap" data-shown="(\d+)" data-total="(\d+)"', page)
    assert shown is not None
    assert (int(shown[1]), int(shown[2])) == (SITEMAP_ROWS, SITEMAP_ROWS * 3)


@pytest.mark.slow
def test_the_diff_section_is_there_only_with_a_baseline() -> None:
    summary, samples = big_run(10)
    assert 'id="changes"' not in render(summary, samples)
    diff = DiffView(
        baseline="reports/old.json",
        regressions=2,
        fail_on_new="error",
        regression_lines=[
            RegressionLine("url", link("https://example.com/<b>"), (Code.HTTP_NOT_FOUND,), None)
        ],
        new_codes={Code.HTTP_NOT_FOUND: 2},
        resolved_codes={Code.LOC_DUPLICATE: 5},
        sitemaps_added=["https://example.com/new.xml"],
        urls_added=3,
        changed=[
            ChangeLine(
                link("https://example.com/<b>"), (FieldChange("status", "200", "404"),), True
            )
        ],
        changed_total=1,
    )
    page = render(summary, samples, diff)
    assert 'id="changes"' in page
    assert 'href="#changes"' in page
    assert "https://example.com/&lt;b&gt;" in page
    assert inspect_html(page)[0] == []
    # With a baseline the report opens with the changes, and marks the new codes to fix.
    assert page.index('id="changes"') < page.index('id="fix-first"')
    assert '<span class="chip new">new: 2</span>' in page


async def test_a_report_that_cannot_be_written_leaves_nothing_behind(tmp_path: Path) -> None:
    summary, samples = big_run(3)
    target = tmp_path / "taken"
    target.mkdir()  # a folder where the file should go: the rename fails
    facts = RunFacts("t", datetime(2026, 1, 1, tzinfo=UTC), "t", True, 1.0, {}, "r.json")
    verdict = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.ERROR).verdict
    view = build_view(summary, samples, verdict=verdict, facts=facts, targets=())
    with pytest.raises(ReportWriteError):
        await write_html(target, view)
    assert [path.name for path in tmp_path.iterdir()] == ["taken"]


async def test_the_clean_site_has_no_finding(tmp_path: Path) -> None:
    async with serve(clean_routes) as served:
        audited = await run_audit(tmp_path, served.base + "/", no_check=False)
    assert audited.codes() == {}
    assert 'id="extensions"' not in audited.result.html_path.read_text()  # none used
    assert audited.report["summary"]["checked"] == sum(CLEAN_SECTIONS.values())
    assert audited.result.verdict.outcome is Outcome.PASS


def test_the_compiled_template_is_the_templates() -> None:
    """The report's template compiled ahead is in step with the template (else regenerate it:
    `python -c "from auditor.report.html_writer import write_compiled_template as w; w()"`)."""
    assert html_writer.COMPILED_PATH.read_text("utf-8") == html_writer.compiled_template()


def test_the_compiled_template_renders_what_the_template_renders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    summary, samples = big_run(5)
    compiled = render(summary, samples)
    fresh = html_writer._environment("auditor.report").get_template(html_writer.TEMPLATE)
    assert html_writer._template() is not fresh  # the compiled one is what runs
    monkeypatch.setattr(html_writer, "_template", lambda: fresh)
    assert render(summary, samples) == compiled


@pytest.mark.parametrize(
    ("fail_on", "fired"), [(FailOn.ERROR, "Failed by --fail-on error"), (FailOn.NEVER, None)]
)
async def test_the_headline_names_the_gate_that_fired(
    tmp_path: Path, fail_on: FailOn, fired: str | None
) -> None:
    locs = ["https://example.com/a", "ftp://example.com/b"]
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url(loc) for loc in locs]))
    audited = await run_audit(tmp_path, str(sitemap), fail_on=fail_on)
    page = audited.result.html_path.read_text()
    gate = re.search(r'<p class="sub" id="gate">([^<]*)', page)
    assert gate is not None
    assert "never and above" not in gate[1]
    if fired is not None:
        assert gate[1].startswith(fired)
    else:
        assert "(--fail-on never)" in gate[1]
    # A local file is titled by its path as given, not its stem.
    assert f"<h1>{html.escape(str(sitemap))}</h1>" in page
    assert re.search(r">1 document read \(", page)  # one document, not "1 documents"


def test_the_url_card_counts_the_listed_urls_it_shows_and_the_alternates_apart() -> None:
    """83 listed URLs beside "86 checked" read as a contradiction: the card says which is which."""
    summary, samples = Summary(), Samples()
    ok = CheckResult(200, elapsed_ms=5)
    records = [
        UrlRecord(f"https://example.com/{n}", ("https://example.com/s.xml",)) for n in range(3)
    ]
    records = [records[0].with_check(ok), records[1].with_check(ok), records[2]]  # 1 not checked
    records.append(UrlRecord("https://example.com/es", (), alternate_of="https://example.com/0"))
    records[-1] = records[-1].with_check(ok)
    for record in records:
        summary.add_url(record)
    samples.add_urls(records)
    page = render(summary, samples)
    card = re.search(
        r'<div class="label">URLs</div><div class="value">([^<]+)</div><div class="note">([^<]+)',
        page,
    )
    assert card is not None
    assert card[1] == "3"
    assert card[2].startswith("2 checked")
    assert re.search(r"\b1 unlisted alternate checked too", card[2])
