"""The indexability of every checked URL, against real loopback servers.

Canonicals and noindex in their header and HTML forms, with the default GET and with
`--method head`; pages with no head, and heads past the 64 KiB a check reads.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.config import Method
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Route, serve
from tests.helpers import Report, run_audit

# Every test once with each transport of the URL checks (tests/engines.py).
pytestmark = pytest.mark.usefixtures("engine")


def html(
    head: str = "", *, headers: dict[str, str] | None = None, body: str = "page", title: str = "t"
) -> Page:
    text = (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    )
    return Page(200, text.encode(), {"Content-Type": "text/html", **(headers or {})})


async def check(tmp_path: Path, pages: dict[str, Route], **overrides: Any) -> dict[str, Report]:
    """Audit a sitemap listing `pages` (paths, in order), with URL checks; entries by path."""

    def routes(base: str) -> dict[str, Route]:
        listed = [url(base + path) for path in pages]
        return {**pages, "/s.xml": xml_page(urlset(listed))}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False, **overrides)
    return {entry["loc"].removeprefix(served.base): entry for entry in audited.report["urls"]}


def codes(entry: Report) -> list[str]:
    return sorted(finding["code"] for finding in entry["findings"])


def detail(entry: Report, code: str) -> dict[str, object]:
    [found] = [f for f in entry["findings"] if f["code"] == code]
    result: dict[str, object] = found.get("detail", {})
    return result


PAGES: dict[str, Route] = {
    "/self": html('<link rel="canonical" href="/self">'),
    "/html-elsewhere": html('<link rel="canonical" href="/self">'),
    "/header-elsewhere": html(headers={"Link": '</self>; rel="canonical"'}),
    "/both-agree": html(
        '<link rel="canonical" href="/self">', headers={"Link": '</self>; rel="canonical"'}
    ),
    "/conflict": html(
        '<link rel="canonical" href="/a">', headers={"Link": '</b>; rel="canonical"'}
    ),
    "/meta-noindex": html('<meta name="robots" content="noindex">'),
    "/googlebot-noindex": html('<meta name="googlebot" content="noindex, nofollow">'),
    "/header-noindex": html(headers={"X-Robots-Tag": "googlebot: noindex"}),
    "/no-head": Page(200, b"just text, no markup at all", {"Content-Type": "text/html"}),
    "/not-html": Page(200, b'<link rel="canonical" href="/self">', {"Content-Type": "text/plain"}),
}


async def test_canonicals_and_noindex_with_the_default_get(tmp_path: Path) -> None:
    entries = await check(tmp_path, PAGES)
    assert {path: codes(entry) for path, entry in entries.items()} == {
        "/self": [],
        "/html-elsewhere": ["url.canonical_elsewhere"],
        "/header-elsewhere": ["url.canonical_elsewhere"],
        "/both-agree": ["url.canonical_elsewhere"],
        "/conflict": ["url.canonical_conflict"],
        "/meta-noindex": ["url.noindex"],
        "/googlebot-noindex": ["url.noindex"],
        "/header-noindex": ["url.noindex"],
        "/no-head": [],
        "/not-html": [],  # a text body has no head to read
    }
    assert detail(entries["/html-elsewhere"], "url.canonical_elsewhere")["source"] == "html"
    assert detail(entries["/header-elsewhere"], "url.canonical_elsewhere")["source"] == "header"
    assert detail(entries["/both-agree"], "url.canonical_elsewhere")["source"] == "header+html"
    assert str(detail(entries["/html-elsewhere"], "url.canonical_elsewhere")["canonical"]).endswith(
        "/self"
    )
    assert all(entry["method"] == "GET" for entry in entries.values())


async def test_head_only_runs_judge_the_header_forms_alone(tmp_path: Path) -> None:
    entries = await check(tmp_path, PAGES, method=Method.HEAD)
    found = {path: codes(entry) for path, entry in entries.items() if codes(entry)}
    assert found == {
        "/header-elsewhere": ["url.canonical_elsewhere"],
        "/both-agree": ["url.canonical_elsewhere"],
        # The header's alone (no HTML read): /b, which answers 404.
        "/conflict": ["url.canonical_elsewhere", "url.canonical_not_indexable"],
        "/header-noindex": ["url.noindex"],
    }
    assert all(entry["method"] == "HEAD" for entry in entries.values())


async def test_an_x_robots_tag_line_naming_two_agents(tmp_path: Path) -> None:
    """RFC 9110 §5.3: a proxy may merge two X-Robots-Tag lines into one; Google: an agent's
    prefix applies to the rules after it. Googlebot's noindex counts, another bot's does not."""
    pages: dict[str, Route] = {
        "/merged": html(headers={"X-Robots-Tag": "otherbot: noarchive, googlebot: noindex"}),
        "/others": html(headers={"X-Robots-Tag": "otherbot: noindex, googlebot: noarchive"}),
        "/everyone": html(headers={"X-Robots-Tag": "noindex, nofollow"}),
    }
    entries = await check(tmp_path, pages)
    assert {path: codes(entry) for path, entry in entries.items()} == {
        "/merged": ["url.noindex"],
        "/others": [],
        "/everyone": ["url.noindex"],
    }
    assert entries["/merged"]["indexability_reason"] == "noindex_header"
    assert entries["/others"]["indexability"] == "indexable"


async def test_a_head_past_64_kib_is_read_to_its_end_up_to_2_mb(tmp_path: Path) -> None:
    """Google fetches 2 MB of a page: a robots meta after 70 KB of inline CSS counts. Only the
    pages whose head did not end within the first 64 KiB are asked again, for more."""
    style = "<style>" + "p{color:red}" * 6_000 + "</style>"  # 72 KB
    early = html('<meta name="robots" content="noindex">' + style)
    late = html(style + '<link rel="canonical" href="/long-body">')
    past = html(
        "<style>" + "p{color:red}" * 180_000 + "</style>" + '<meta name="robots" content="noindex">'
    )
    long_body = html('<link rel="canonical" href="/long-body">', body="text " * 30_000)
    entries, hits = await check_hits(
        tmp_path, {"/early": early, "/late": late, "/past": past, "/long-body": long_body}
    )
    assert codes(entries["/early"]) == ["url.noindex"]
    assert codes(entries["/late"]) == ["url.canonical_elsewhere"]
    assert codes(entries["/past"]) == []  # past Google's 2 MB: never read, never guessed
    assert codes(entries["/long-body"]) == []
    # /long-body's head ended within 64 KiB: asked once, as listed and as /late's canonical.
    assert (hits["/early"], hits["/late"], hits["/past"], hits["/long-body"]) == (2, 2, 2, 1)


async def check_hits(
    tmp_path: Path, pages: dict[str, Route], **overrides: Any
) -> tuple[dict[str, Report], dict[str, int]]:
    """`check`, and how often each page was requested."""

    def routes(base: str) -> dict[str, Route]:
        listed = [url(base + path) for path in pages]
        return {**pages, "/s.xml": xml_page(urlset(listed))}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False, **overrides)
        hits = dict(served.hits)
    entries = {entry["loc"].removeprefix(served.base): entry for entry in audited.report["urls"]}
    return entries, hits


async def test_the_head_is_read_as_html(tmp_path: Path) -> None:
    """Comments and scripts hold no tags; Google stops reading the head at an <img>."""
    pages: dict[str, Route] = {
        "/commented": html('<!-- <meta name="robots" content="noindex"> -->'),
        "/scripted": html('<script>var c = \'<link rel="canonical" href="/x">\';</script>'),
        "/cut-short": html('<img src="/logo.png"><link rel="canonical" href="/elsewhere">'),
        "/noscript-pixel": html(
            '<noscript><img src="/p.gif"></noscript><link rel=canonical href=/commented>'
        ),
    }
    entries = await check(tmp_path, pages)
    assert {path: codes(entry) for path, entry in entries.items()} == {
        "/commented": [],
        "/scripted": [],
        "/cut-short": ["url.head_cut_short"],  # its canonical is not Google's: no elsewhere
        "/noscript-pixel": ["url.canonical_elsewhere"],
    }
    assert detail(entries["/cut-short"], "url.head_cut_short") == {
        "by": "img",
        "hidden": "canonical",
    }


async def test_refresh_unavailable_after_and_soft_404(tmp_path: Path) -> None:
    pages: dict[str, Route] = {
        "/refreshed": html('<meta http-equiv="refresh" content="0; url=/new">'),
        "/delayed": html('<meta http-equiv="refresh" content="30; url=/new">'),
        "/reloads": html('<meta http-equiv="refresh" content="0">'),
        "/expired": html('<meta name="robots" content="unavailable_after: 2020-09-21">'),
        "/not-yet": html('<meta name="robots" content="unavailable_after: 2099-01-01">'),
        "/expired-header": html(
            headers={"X-Robots-Tag": "unavailable_after: 25 Jun 2010 15:00:00 PST"}
        ),
        "/gone": html("", title="Page not found \u2013 Shop"),
        "/about-404s": html("", title="How to fix 'Page not found' errors"),
        "/new": html(),
    }
    entries = await check(tmp_path, pages)
    assert {path: codes(entry) for path, entry in entries.items()} == {
        "/refreshed": ["redirect.meta_refresh"],
        "/delayed": [],
        "/reloads": [],
        "/expired": ["url.unavailable_after"],
        "/not-yet": [],
        "/expired-header": ["url.unavailable_after"],
        "/gone": ["url.title_not_found"],
        "/about-404s": [],
        "/new": [],
    }
    assert str(detail(entries["/refreshed"], "redirect.meta_refresh")["to"]).endswith("/new")


async def test_a_canonical_naming_the_listed_url_is_not_elsewhere(tmp_path: Path) -> None:
    """Astro, Docusaurus: /a redirects to /a/, which names /a canonical: the redirect is the
    fault. An IRI canonical and its percent-encoded URI are one URL (RFC 3987 §3.1)."""
    pages: dict[str, Route] = {
        "/a": redirect(301, "/a/"),
        "/a/": html('<link rel="canonical" href="/a">'),
        "/caf%C3%A9.html": html('<link rel="canonical" href="/café.html">'),
        "/my%20page": html('<link rel="canonical" href="/my page">'),
    }
    entries = await check(tmp_path, pages)
    assert codes(entries["/a"]) == ["redirect.permanent"]
    assert codes(entries["/caf%C3%A9.html"]) == []
    assert codes(entries["/my%20page"]) == []


async def test_a_deep_url_sent_home_is_a_soft_404(tmp_path: Path) -> None:
    pages: dict[str, Route] = {
        "/old/product": redirect(301, "/"),
        "/campaign": redirect(302, "/?ref=campaign"),  # a query: not just the home page
        "/": html(),
    }
    entries = await check(tmp_path, pages)
    assert codes(entries["/old/product"]) == ["redirect.permanent", "redirect.to_root"]
    assert codes(entries["/campaign"]) == ["redirect.temporary"]
    assert codes(entries["/"]) == []


async def dynamic(request: web.Request) -> web.StreamResponse:
    now = format_datetime(datetime.now(UTC), usegmt=True)
    return web.Response(text="now", content_type="text/html", headers={"Last-Modified": now})


@pytest.mark.parametrize(
    ("lastmod", "behind"),
    [
        ("2026-01-05", True),
        ("2026-10-31", True),
        # A date ends at most 50 hours after it begins (UTC+14 to UTC-12): Nov 1 may last to
        # Nov 2 12:00Z, and the page changed 22 hours later; never a false finding.
        ("2026-11-01", False),
        ("2026-11-02", False),
        ("2026-11-03T09:00:00+00:00", False),
        ("2026-11-02T09:59:59Z", True),
        ("2026-11", False),  # coarser than a day: left alone
    ],
)
async def test_a_lastmod_behind_the_page(tmp_path: Path, lastmod: str, behind: bool) -> None:
    changed = Page(
        200,
        b"<title>t</title>",
        {"Content-Type": "text/html", "Last-Modified": "Tue, 03 Nov 2026 10:00:00 GMT"},
    )

    def routes(base: str) -> dict[str, Route]:
        listed = [url(f"{base}/changed", lastmod=lastmod), url(f"{base}/dynamic", lastmod=lastmod)]
        return {"/s.xml": xml_page(urlset(listed)), "/changed": changed, "/dynamic": dynamic}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False)
    assert behind_pages(audited.report, served.base) == (["/changed"] if behind else [])
    # /dynamic: Last-Modified = Date, "now", says nothing


def behind_pages(report: Report, base: str) -> list[str]:
    """The pages lastmod.behind_page names (run findings: judged once every page is checked)."""
    return sorted(
        item["url"].removeprefix(base)
        for item in report.get("run_findings", [])
        if item["code"] == "lastmod.behind_page"
    )


def deployed(at: str) -> Page:
    return Page(200, b"<title>page</title>", {"Content-Type": "text/html", "Last-Modified": at})


async def test_a_deploy_stamps_every_last_modified_and_says_nothing(tmp_path: Path) -> None:
    """Hugo, Sphinx, Jekyll: a deploy sets every page's Last-Modified within minutes. Those
    values say when the site was copied; a page edited after the deploy still says more."""
    deploy = [f"Tue, 03 Nov 2026 10:{minute:02d}:00 GMT" for minute in range(0, 40, 5)]
    pages = {f"/p{n}": deployed(at) for n, at in enumerate(deploy)}
    pages["/edited"] = deployed("Sun, 15 Nov 2026 09:00:00 GMT")

    def routes(base: str) -> dict[str, Route]:
        listed = [url(f"{base}{path}", lastmod="2026-01-05") for path in pages]
        return {"/s.xml": xml_page(urlset(listed)), **pages}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False)
    assert behind_pages(audited.report, served.base) == ["/edited"]
    assert audited.codes()["lastmod.behind_page"] == 1


async def test_where_a_canonical_leads(tmp_path: Path) -> None:
    """Screaming Frog's "Non-Indexable Canonical": a canonical that answers an error, redirects,
    is noindex or names another canonical points Google at a URL it will not index."""
    pages: dict[str, Route] = {
        "/to-missing": html('<link rel="canonical" href="/missing">'),
        "/to-missing-too": html('<link rel="canonical" href="/missing">'),
        "/to-moved": html('<link rel="canonical" href="/moved">'),
        "/to-hidden": html('<link rel="canonical" href="/hidden">'),
        "/to-alternate": html('<link rel="canonical" href="/alternate">'),
        "/to-good": html('<link rel="canonical" href="/good">'),
    }
    unlisted: dict[str, Route] = {
        "/missing": Page(404, b"gone"),
        "/moved": redirect(301, "/good"),
        "/hidden": html('<meta name="robots" content="noindex">'),
        "/alternate": html('<link rel="canonical" href="/good">'),
        "/good": html('<link rel="canonical" href="/good">'),
    }

    def routes(base: str) -> dict[str, Route]:
        listed = [url(base + path) for path in pages]
        return {**pages, **unlisted, "/s.xml": xml_page(urlset(listed))}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False)
        hits = dict(served.hits)
    entries = {e["loc"].removeprefix(served.base): e for e in audited.report["urls"]}
    reasons = {
        path: detail(entry, "url.canonical_not_indexable")["reason"]
        for path, entry in entries.items()
        if "url.canonical_not_indexable" in codes(entry)
    }
    assert reasons == {
        "/to-missing": "client_error",
        "/to-missing-too": "client_error",
        "/to-moved": "redirected",
        "/to-hidden": "noindex_meta",
        "/to-alternate": "canonicalised",
    }
    assert codes(entries["/to-good"]) == ["url.canonical_elsewhere"]
    assert hits["/missing"] == 1  # asked once for both pages naming it
