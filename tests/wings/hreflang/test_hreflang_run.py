"""hreflang across a whole run on loopback sites: return links between sitemaps, language
conflicts, alternates no sitemap lists (reported once, checked), x-default, bounded findings."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

import auditor
import auditor.wings.hreflang.alternates
from auditor.demo.documents import Page, sitemapindex, xml_page
from auditor.demo.server import serve
from auditor.report.decode import ReportSummary
from auditor.results.verdict import Decision
from tests.helpers import Audited, run_audit
from tests.sitemap.test_parse_extensions import document

HTML = Page(200, b"<!doctype html><title>page</title>", {"Content-Type": "text/html"})


def entry(loc: str, *links: tuple[str, str]) -> str:
    alternates = "".join(
        f'<xhtml:link rel="alternate" hreflang="{lang}" href="{href}"/>' for lang, href in links
    )
    return f"<url><loc>{loc}</loc>{alternates}</url>"


def two_languages(base: str) -> dict[str, Page]:
    """English and French sitemaps under one index, their clusters naming each other."""
    en, fr, de, es = (f"{base}/{lang}/" for lang in ("en", "fr", "de", "es"))
    english = document(
        entry(en, ("en", en), ("fr", fr), ("de", de), ("es", es), ("x-default", f"{base}/")),
        entry(f"{base}/en/a", ("en", f"{base}/en/a"), ("fr", f"{base}/fr/a")),
        entry(f"{base}/en/b", ("en", f"{base}/en/b"), ("fr", f"{base}/fr/b")),
    )
    french = document(
        entry(fr, ("fr", fr), ("en", en)),
        entry(f"{base}/fr/a", ("fr", f"{base}/fr/a")),  # no link back to /en/a
        entry(f"{base}/fr/b", ("fr-ca", f"{base}/fr/b"), ("en", f"{base}/en/b")),  # fr vs fr-ca
    )
    pages = {f"/{lang}/{name}": HTML for lang in ("en", "fr") for name in ("", "a", "b")}
    return {
        "/sitemap.xml": xml_page(sitemapindex([f"{base}/en.xml", f"{base}/fr.xml"])),
        "/en.xml": Page(200, english, {"Content-Type": "application/xml"}),
        "/fr.xml": Page(200, french, {"Content-Type": "application/xml"}),
        **pages,
        "/de/": HTML,  # /es/ answers 404
    }


def alternates(audited: Audited) -> dict[str, tuple[str, int | None, list[str]]]:
    return {
        record["loc"]: (record["alternate_of"], record.get("status"), codes(record["findings"]))
        for record in audited.report["urls"]
        if "alternate_of" in record
    }


def codes(findings: list[dict[str, object]]) -> list[str]:
    return [str(item["code"]) for item in findings]


async def test_return_links_are_judged_across_every_sitemap(tmp_path: Path) -> None:
    async with serve(two_languages) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
        base = served.base
    assert audited.codes() == Counter(
        {
            "hreflang.no_return_link": 1,
            "hreflang.conflicting_language": 1,
            "hreflang.alternate_not_listed": 2,
            "hreflang.alternate_not_indexable": 1,  # /en/ names /es/, which answers 404
            "http.not_found": 1,
        }
    )
    run_findings = {
        (item["code"], item["url"], item["detail"]["alternate"], item["detail"]["hreflang"])
        for item in audited.report["run_findings"]
    }
    assert run_findings == {
        ("hreflang.no_return_link", f"{base}/en/a", f"{base}/fr/a", "fr"),
        ("hreflang.conflicting_language", f"{base}/en/b", f"{base}/fr/b", "fr"),
        ("hreflang.alternate_not_indexable", f"{base}/en/", f"{base}/es/", "es"),
    }
    assert audited.report["run_findings_omitted"] == {}
    # Named by /en/, listed nowhere: reported once each and checked; x-default owes nothing.
    assert alternates(audited) == {
        f"{base}/de/": (f"{base}/en/", 200, ["hreflang.alternate_not_listed"]),
        f"{base}/es/": (f"{base}/en/", 404, ["hreflang.alternate_not_listed", "http.not_found"]),
    }
    summary = audited.report["summary"]
    assert (summary["urls"], summary["alternates"], summary["checked"]) == (6, 2, 8)
    assert summary["extensions"]["hreflang_urls"] == 6
    assert summary["extensions"]["hreflang_links"] == 14
    # The alternate's 404 fails the run, and is not counted among its listed URLs' errors.
    assert audited.result.verdict.line == "FAIL: 1 error; 3 warnings, 2 notices"
    assert list(tmp_path.glob(".*hreflang*")) == []  # the store is gone with the run
    # Read back, the report gives the same decision and keeps every finding.
    decision, found, summary_back = await asyncio.to_thread(read_back, audited.result.json_path)
    assert decision == audited.result.decision
    assert found == audited.codes()
    assert summary_back.alternates == 2


def read_back(path: Path) -> tuple[Decision, Counter[str], ReportSummary]:
    report = auditor.read_report(path)
    found = Counter(item.code.value for item in report.findings())
    return report.decision, found, report.summary


async def test_the_html_report_shows_the_cluster_missing_its_return_link(
    tmp_path: Path,
) -> None:
    async with serve(two_languages) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml")
        base = served.base
    page = await asyncio.to_thread(audited.result.html_path.read_text)
    part = page.split('<section id="extensions">', 1)[1].split("</section>", 1)[0]
    assert 'data-shown="1" data-total="1"' in part
    clusters = part.split('<table class="stack clusters">', 1)[1].split("</table>", 1)[0]
    assert clusters.count("<tr>") == 2  # the head, and /en/a
    assert f'href="{base}/en/a"' in clusters
    assert f'href="{base}/fr/a"' in clusters
    for code in ("hreflang.no_return_link", "hreflang.alternate_not_listed"):
        assert f'<a href="#code-{code.replace(".", "-")}"><code>{code}</code></a>' in part


async def test_without_checks_alternates_are_reported_not_requested(tmp_path: Path) -> None:
    async with serve(two_languages) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=True)
        hits = dict(served.hits)
    assert audited.codes()["hreflang.alternate_not_listed"] == 2
    assert all(status is None for _, status, _ in alternates(audited).values())
    assert "/es/" not in hits


async def test_parse_helpers_give_the_same_judgement(tmp_path: Path) -> None:
    async with serve(two_languages) as served:
        here = await run_audit(tmp_path, f"{served.base}/sitemap.xml")
        helpers = await run_audit(
            tmp_path, f"{served.base}/sitemap.xml", workers=2, json=tmp_path / "helpers.json"
        )
    assert helpers.codes() == here.codes()
    assert helpers.report["run_findings"] == here.report["run_findings"]


async def test_run_findings_past_the_cap_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(auditor.wings.hreflang.alternates, "MAX_RUN_FINDINGS", 3)

    def routes(base: str) -> dict[str, Page]:
        entries = [entry(f"{base}/en/{n}", ("fr", f"{base}/fr/{n}")) for n in range(10)]
        entries += [entry(f"{base}/fr/{n}") for n in range(10)]  # none links back
        return {"/s.xml": Page(200, document(*entries), {"Content-Type": "application/xml"})}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml")
    assert audited.codes()["hreflang.no_return_link"] == 10
    assert len(audited.report["run_findings"]) == 3
    assert audited.report["run_findings_omitted"] == {"hreflang.no_return_link": 7}
    # Each page also misses itself among its alternates: a finding of its own entry.
    assert audited.codes()["hreflang.missing_self"] == 10


async def test_a_url_listed_twice_keeps_its_first_cluster(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Page]:
        a, b = f"{base}/a", f"{base}/b"
        body = document(
            entry(a, ("en", a), ("de", b)),
            entry(b, ("de", b), ("en", a)),
            entry(a, ("en", a)),  # listed again, naming nothing: the first listing counts
        )
        return {"/s.xml": Page(200, body, {"Content-Type": "application/xml"})}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml")
    assert audited.codes() == Counter({"loc.duplicate": 1})


async def test_news_sitemaps_hold_at_most_1000_articles_and_may_be_empty(tmp_path: Path) -> None:
    article = (
        "<news:news><news:publication><news:name>T</news:name><news:language>en</news:language>"
        "</news:publication><news:publication_date>2026-11-23T08:00:00Z</news:publication_date>"
        "<news:title>t</news:title></news:news>"
    )

    def routes(base: str) -> dict[str, Page]:
        full = document(*(f"<url><loc>{base}/n/{n}</loc>{article}</url>" for n in range(1001)))
        return {
            "/sitemap.xml": xml_page(sitemapindex([f"{base}/news.xml", f"{base}/quiet.xml"])),
            "/news.xml": Page(200, full, {"Content-Type": "application/xml"}),
            "/quiet.xml": Page(200, document(), {"Content-Type": "application/xml"}),
        }

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml")
    assert audited.sitemap_codes("/news.xml") == Counter({"news.too_many": 1})
    # Google: an empty news sitemap (no article in two days) "won't cause any problems".
    assert audited.sitemap_codes("/quiet.xml") == Counter()
    assert audited.report["summary"]["extensions"]["news"] == 1001


def own_languages(base: str) -> dict[str, Page]:
    """One page under several values: x-default first, then en; and en-ie also the generic en."""
    home, fr, ie = f"{base}/", f"{base}/fr/", f"{base}/ie/"
    cluster = (("x-default", home), ("en", home), ("fr", fr))
    regional = (("en-ie", ie), ("en", ie), ("de", f"{base}/de/"))
    body = document(
        entry(home, *cluster),
        entry(fr, *cluster),
        entry(ie, *regional),
        entry(f"{base}/de/", ("de", f"{base}/de/"), ("en", ie)),  # names /ie/ by its generic value
    )
    return {"/sitemap.xml": Page(200, body, {"Content-Type": "application/xml"})}


async def test_a_page_named_under_several_values_has_them_all(tmp_path: Path) -> None:
    """Google: the generic page "can be one of the specific pages"; x-default may be one too."""
    async with serve(own_languages) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml")
    assert audited.codes() == Counter()


def listed_twice(base: str) -> dict[str, Page]:
    """Each URL listed first without alternates (a plain sitemap), then with them."""
    en, fr = f"{base}/en/", f"{base}/fr/"
    plain = document(entry(en), entry(fr))
    linked = document(entry(en, ("en", en), ("fr", fr)), entry(fr, ("en", en), ("fr", fr)))
    return {
        "/sitemap.xml": xml_page(sitemapindex([f"{base}/plain.xml", f"{base}/linked.xml"])),
        "/plain.xml": Page(200, plain, {"Content-Type": "application/xml"}),
        "/linked.xml": Page(200, linked, {"Content-Type": "application/xml"}),
    }


async def test_links_from_every_entry_of_a_url_count(tmp_path: Path) -> None:
    async with serve(listed_twice) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", sitemap_concurrency=1)
    assert audited.codes() == Counter({"loc.duplicate": 2})  # no hreflang.no_return_link
    assert audited.report["summary"]["extensions"]["hreflang_links"] == 4
    assert audited.report["summary"]["extensions"]["hreflang_urls"] == 2


def leading_nowhere(base: str) -> dict[str, Page]:
    """A cluster whose every page names the others; two of them are not indexable."""
    en, fr, de = f"{base}/en/", f"{base}/fr/", f"{base}/de/"
    cluster = (("en", en), ("fr", fr), ("de", de))
    body = document(entry(en, *cluster), entry(fr, *cluster), entry(de, *cluster))
    noindex = Page(
        200, b"<title>fr</title>", {"Content-Type": "text/html", "X-Robots-Tag": "noindex"}
    )
    return {
        "/sitemap.xml": Page(200, body, {"Content-Type": "application/xml"}),
        "/en/": HTML,
        "/fr/": noindex,
        "/de/": Page(301, b"", {"Location": f"{base}/de/index.html"}),
        "/de/index.html": HTML,
    }


@pytest.mark.parametrize("sitemap_concurrency", [1, 4])
async def test_where_alternates_lead(tmp_path: Path, sitemap_concurrency: int) -> None:
    """Screaming Frog's hreflang "non-200" and "noindex return links": each page naming an
    alternate Google will not index says so, the reason named; a closed cluster too."""
    async with serve(leading_nowhere) as served:
        audited = await run_audit(
            tmp_path,
            f"{served.base}/sitemap.xml",
            no_check=False,
            sitemap_concurrency=sitemap_concurrency,
        )
        base = served.base
    said = {
        (
            item["url"].removeprefix(base),
            item["detail"]["alternate"].removeprefix(base),
            item["detail"]["reason"],
        )
        for item in audited.report["run_findings"]
        if item["code"] == "hreflang.alternate_not_indexable"
    }
    assert said == {
        ("/en/", "/fr/", "noindex_header"),
        ("/de/", "/fr/", "noindex_header"),
        ("/en/", "/de/", "redirected"),
        ("/fr/", "/de/", "redirected"),
    }


async def test_without_checks_alternates_are_not_judged(tmp_path: Path) -> None:
    async with serve(leading_nowhere) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml")
    assert audited.codes()["hreflang.alternate_not_indexable"] == 0
