"""The Markdown summary: every URL that fails the run, grouped by sitemap, within GitHub's bound.

A site with 60 broken URLs on loopback, read back line by line; the list cut at the budget with
what it left out counted; regressions marked on their line; strings that stay inert and read as
written; the gate that fired; counts with their plurals.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from auditor.codes import Code
from auditor.config import FailOn
from auditor.demo.documents import Page, sitemapindex, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.models import CheckResult, UrlRecord, finding
from auditor.report.failing import FailingUrls
from auditor.report.markdown import MAX_BYTES, Gates, Where, markdown_summary
from auditor.report.markdown_failing import failing_part
from auditor.report.markdown_text import code, text
from auditor.report.places import shown_place
from auditor.report.section import Regression
from auditor.results.gates import gate_sentence
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import judge
from tests.helpers import run_audit

BROKEN_A, BROKEN_B = 40, 20  # 60 broken URLs in two sitemaps
URL_LINE = re.compile(r"^- `([^`]+)` — (\S+)")


def broken_site(base: str) -> dict[str, Page]:
    """An index of two sitemaps: 40 and 20 URLs that answer 404 or 410, and pages that work."""
    a = [url(f"{base}/a/{n}") for n in range(BROKEN_A)] + [url(f"{base}/ok/a")]
    b = [url(f"{base}/b/{n}") for n in range(BROKEN_B)] + [url(f"{base}/ok/b")]
    pages = {f"/b/{n}": Page(410, b"gone") for n in range(0, BROKEN_B, 2)}  # some 410 too
    return {
        "/sitemap.xml": xml_page(sitemapindex([f"{base}/a.xml", f"{base}/b.xml"])),
        "/a.xml": xml_page(urlset(a)),
        "/b.xml": xml_page(urlset(b)),
        "/ok/a": Page(200, b"<html><head><title>a</title></head></html>"),
        "/ok/b": Page(200, b"<html><head><title>b</title></head></html>"),
        **pages,
    }


def url_lines(summary: str) -> dict[str, list[tuple[str, str]]]:
    """The summary's URL lines by the sitemap heading above them: (URL, status)."""
    found: dict[str, list[tuple[str, str]]] = {}
    heading = ""
    for line in summary.splitlines():
        if line.startswith("#### "):
            heading = line
        elif match := URL_LINE.match(line):
            found.setdefault(heading, []).append((match[1], match[2]))
    return found


@pytest.mark.slow
async def test_every_one_of_60_broken_urls_is_listed_under_its_sitemap(tmp_path: Path) -> None:
    summary_path = tmp_path / "summary.md"
    async with serve(broken_site) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/sitemap.xml", no_check=False, markdown=summary_path
        )
    assert audited.report["summary"]["by_code"]["http.not_found"] == BROKEN_A + BROKEN_B
    summary = summary_path.read_text()
    lines = url_lines(summary)
    [a_heading] = [h for h in lines if h.startswith(f"#### `{served.base}/a.xml`")]
    [b_heading] = [h for h in lines if h.startswith(f"#### `{served.base}/b.xml`")]
    assert sorted(u for u, _ in lines[a_heading]) == sorted(
        f"{served.base}/a/{n}" for n in range(BROKEN_A)
    )
    assert sorted(u for u, _ in lines[b_heading]) == sorted(
        f"{served.base}/b/{n}" for n in range(BROKEN_B)
    )
    statuses = [status for found in lines.values() for _, status in found]
    assert (statuses.count("404"), statuses.count("410")) == (50, 10)
    assert sum(len(found) for found in lines.values()) == BROKEN_A + BROKEN_B  # each once
    assert Code.HTTP_NOT_FOUND.info.fix in summary  # the fix of its code, from the catalog
    assert f"({BROKEN_A:,} failing)" in a_heading
    assert "/ok/" not in summary.split("### Fix these first")[0]  # working pages are not listed
    assert len(summary.encode()) <= MAX_BYTES


def _record(n: int, *, width: int = 150) -> UrlRecord:
    loc = f"https://example.com/{'p' * width}/{n}"
    check = CheckResult(404, findings=(finding(Code.HTTP_NOT_FOUND, url=loc),))
    return UrlRecord(loc, ("https://example.com/sitemap.xml",), check=check)


def _summary_of(records: list[UrlRecord], failing: FailingUrls, **gates: FailOn | None) -> str:
    summary, samples = Summary(), Samples()
    for record in records:
        summary.add_url(record)
        failing.add_url(record)
    samples.add_urls(records)
    decision = judge(summary, samples, fail_on=FailOn.ERROR, complete=True, failed=False)
    fail_on = gates.get("fail_on") or FailOn.ERROR
    fail_on_new = gates.get("fail_on_new")
    sentence = gate_sentence(decision, fail_on=fail_on, fail_on_new=fail_on_new)
    return markdown_summary(
        summary,
        decision,
        where=Where("example.com", "r.json", "r.html"),
        examples={},
        failing=failing,
        gates=Gates(sentence, fail_on, fail_on_new),
    )


def test_a_list_past_the_budget_is_cut_and_counts_what_it_left_out() -> None:
    total = 20_000  # about 3.5 MB of lines: well past what a job summary shows
    failing = FailingUrls(FailOn.ERROR, budget_bytes=MAX_BYTES)
    markdown = _summary_of([_record(n) for n in range(total)], failing)
    assert len(markdown.encode()) <= MAX_BYTES
    shown = sum(len(found) for found in url_lines(markdown).values())
    more = re.search(r"^- … and ([\d,]+) more failing", markdown, re.M)
    assert more is not None
    assert 1_000 < shown < total
    assert shown + int(more[1].replace(",", "")) == total  # every URL shown or counted
    assert "### Fix these first" in markdown  # the parts after the list are whole
    assert markdown.rstrip().endswith("(JSON).")


def test_a_small_budget_cuts_even_inside_a_group() -> None:
    failing = FailingUrls(FailOn.ERROR, budget_bytes=MAX_BYTES)
    for n in range(50):
        failing.add_url(_record(n, width=10))
    part = failing_part(
        failing, fail_on=FailOn.ERROR, fail_on_new=None, budget_bytes=2_000, workspace=None
    )
    assert len(part.encode()) < 2_200
    assert 0 < sum(len(found) for found in url_lines(part).values()) < 50
    assert "bounded" in part  # says so (and where all of it is)


def test_regressions_are_marked_on_their_line_or_listed_on_their_own() -> None:
    failing = FailingUrls(FailOn.ERROR, budget_bytes=MAX_BYTES)
    broken = _record(1, width=5)
    failing.add_url(broken)
    moved = Regression("url", "https://example.com/moved", ("redirect.permanent",), None)
    failing.add_regressions(
        [Regression("url", broken.loc, ("http.not_found",), "client_error"), moved]
    )
    part = failing_part(
        failing,
        fail_on=FailOn.ERROR,
        fail_on_new=FailOn.WARNING,
        budget_bytes=MAX_BYTES,
        workspace=None,
    )
    lines = [line for line in part.splitlines() if line.startswith("- ")]
    assert len(lines) == 2  # the broken URL once, marked; the warning-level regression beside
    [marked] = [line for line in lines if broken.loc in line]
    assert "`http.not_found`" in marked.split("new since the baseline")[1]
    assert "`client_error`" in marked
    assert any(moved.subject in line and "`redirect.permanent`" in line for line in lines)
    assert "2 regressions since the baseline (--fail-on-new warning)" in part


def test_nothing_failing_lists_nothing() -> None:
    failing = FailingUrls(FailOn.NEVER, budget_bytes=MAX_BYTES)
    markdown = _summary_of([_record(1)], failing, fail_on=FailOn.NEVER)
    assert "What fails the run" not in markdown


def test_counts_say_one_notice_and_one_document() -> None:
    summary = Summary()
    summary.by_code[Code.URL_SLOW] = 1
    summary.sitemaps = 1
    decision = judge(summary, Samples(), fail_on=FailOn.ERROR, complete=True, failed=False)
    markdown = markdown_summary(
        summary, decision, where=Where("t", "r.json", "r.html"), examples={}
    )
    assert "| 1 notice |" in markdown
    assert "| 1 document |" in markdown
    assert "0 errors" in markdown


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (
            "FAIL: 3 errors (--fail-on never); 1 warning",
            "FAIL: 3 errors (--fail-on never); 1 warning",
        ),
        ("not indexable: client_error", "not indexable: client_error"),
        ("[click](https://evil.example)", r"\[click\](https://evil.example)"),
        ("a | b", r"a \| b"),
        ("<img src=x onerror=alert(1)>", r"\<img src=x onerror=alert(1)\>"),
        ("Keep one <loc> per entry", "Keep one `<loc>` per entry"),
        ("_emphasis_ and *bold*", r"\_emphasis\_ and \*bold\*"),
        ("~~gone~~ &amp; & `code`", r"\~\~gone\~\~ \&amp; & \`code\`"),
        ("line\nbreak", "line break"),
    ],
)
def test_text_escapes_only_what_markdown_would_read(value: str, shown: str) -> None:
    assert text(value) == shown


def test_a_code_span_holds_anything_and_a_cell_keeps_its_pipes() -> None:
    assert code("https://example.com/a_b") == "`https://example.com/a_b`"
    assert code("a`b") == "``a`b``"
    assert code("`x") == "`` `x ``"
    assert code("a|b", cell=True) == r"`a\|b`"


def test_local_files_are_named_relative_to_the_workspace(tmp_path: Path) -> None:
    inside = (tmp_path / "public" / "sitemap.xml").as_uri()
    assert shown_place(inside, workspace=tmp_path) == "public/sitemap.xml"
    assert shown_place(inside, workspace=tmp_path / "other") == str(tmp_path / "public/sitemap.xml")
    assert (
        shown_place("https://example.com/s.xml", workspace=tmp_path) == "https://example.com/s.xml"
    )


def test_the_reports_are_linked_where_a_url_is_given() -> None:
    decision = judge(Summary(), Samples(), fail_on=FailOn.ERROR, complete=True, failed=False)
    where = Where(
        "t",
        "out/r.json",
        "out/r.html",
        reports_url="https://github.com/o/r/actions/runs/7#artifacts",
    )
    markdown = markdown_summary(Summary(), decision, where=where, examples={})
    assert "(<https://github.com/o/r/actions/runs/7#artifacts>)" in markdown
    plain = markdown_summary(Summary(), decision, where=Where("t", "a.json", "a.html"), examples={})
    assert "`a.html` (HTML), `a.json` (JSON)" in plain
