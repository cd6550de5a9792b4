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


def html(head: str = "", *, headers: dict[str, str] | None = None, body: str = "page") -> Page:
    text = f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"
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
        "/conflict": ["url.canonical_elsewhere"],  # the header's alone: no HTML read
        "/header-noindex": ["url.noindex"],
    }
    assert all(entry["method"] == "HEAD" for entry in entries.values())


async def test_a_head_past_64_kib_is_read_as_far_as_64_kib(tmp_path: Path) -> None:
    padding = '<meta name="x" content="' + "p" * 70_000 + '">'
    early = html('<meta name="robots" content="noindex">' + padding)
    late = html(padding + '<link rel="canonical" href="/elsewhere">')
    entries = await check(tmp_path, {"/early": early, "/late": late})
    assert codes(entries["/early"]) == ["url.noindex"]
    assert codes(entries["/late"]) == []  # beyond what a check reads: never guessed


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
    by_path = {e["loc"].removeprefix(served.base): codes(e) for e in audited.report["urls"]}
    assert ("lastmod.behind_page" in by_path["/changed"]) is behind
    assert "lastmod.behind_page" not in by_path["/dynamic"]  # Last-Modified = Date: "now"
