"""A page robots.txt blocks says nothing Google could read: no noindex, canonical or refresh.

Google ("Block Search indexing with noindex"): "for the noindex rule to be effective, the page
or resource must not be blocked by a robots.txt file"; a blocked page is not crawled, so its
headers and its head are never read (docs/explanation/rules.md#robots-blocked-page). Against
real loopback servers, on both engines; a 304 of the history's confirms no page finding of a
page blocked since.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp import web

from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Route, serve
from tests.helpers import Report, run_audit
from tests.wings.history.site import HistorySite, audit_night, entries

pytestmark = pytest.mark.usefixtures("engine")

ROBOTS = b"User-agent: *\nDisallow: /private/\n\nUser-agent: otherbot\nDisallow: /\n"


def html(head: str = "", *, headers: dict[str, str] | None = None, title: str = "t") -> Page:
    text = f"<!doctype html><html><head><title>{title}</title>{head}</head><body>x</body></html>"
    return Page(200, text.encode(), {"Content-Type": "text/html", **(headers or {})})


SAYS_NOINDEX = html('<meta name="robots" content="noindex">', headers={"X-Robots-Tag": "noindex"})
PAGES: dict[str, Route] = {
    "/private/noindex": SAYS_NOINDEX,
    "/private/expired": html('<meta name="robots" content="unavailable_after: 2020-01-01">'),
    "/private/canonical": html('<link rel="canonical" href="/missing">'),
    "/private/refresh": html('<meta http-equiv="refresh" content="0; url=/open">'),
    "/private/soft-404": html(title="Page not found"),
    "/private/cut-short": html('<img src="/i.png"><meta name="robots" content="noindex">'),
    "/moved": redirect(301, "/private/noindex"),
    # The correct form: the same page where Googlebot may crawl it says its noindex.
    "/open/noindex": SAYS_NOINDEX,
    "/open": html(),
}


def codes(entry: Report) -> list[str]:
    return sorted(finding["code"] for finding in entry["findings"])


async def test_a_blocked_page_says_nothing_google_cannot_read(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Route]:
        listed = [url(base + path) for path in PAGES]
        robots = Page(200, ROBOTS, {"Content-Type": "text/plain"})
        return {**PAGES, "/robots.txt": robots, "/s.xml": xml_page(urlset(listed))}

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", no_check=False)
        hits = dict(served.hits)
    by_path = {e["loc"].removeprefix(served.base): e for e in audited.report["urls"]}
    blocked = ["url.blocked_by_robots"]
    assert {path: codes(entry) for path, entry in by_path.items()} == {
        "/private/noindex": blocked,
        "/private/expired": blocked,
        "/private/canonical": blocked,
        "/private/refresh": blocked,
        "/private/soft-404": blocked,
        "/private/cut-short": blocked,
        "/moved": ["redirect.permanent", "url.blocked_by_robots"],
        "/open/noindex": ["url.noindex"],
        "/open": [],
    }
    reasons = {path: entry.get("indexability_reason") for path, entry in by_path.items()}
    assert reasons["/private/noindex"] == "blocked_by_robots"
    assert reasons["/open/noindex"] == "noindex_header"
    assert reasons["/moved"] == "redirected"
    assert "/missing" not in hits  # a canonical Google never sees is not followed
    assert hits["/private/noindex"] == 2  # still requested: listed, and where /moved lands


async def test_a_304_confirms_no_page_finding_of_a_page_blocked_since(tmp_path: Path) -> None:
    """Night 0 reads /p1's noindex; night 1 robots.txt blocks /p1, which answers 304: the
    blocked page keeps no noindex. Night 2 unblocks it: its head, never judged on night 1, is
    read in full again (no ETag kept from a blocked check), and its noindex is back."""
    site = HistorySite(3, etags=True)
    site.change("/p1", noindex=True)
    rules = {"text": b"User-agent: *\nAllow: /\n"}

    async def robots(_request: web.Request) -> web.StreamResponse:
        return web.Response(body=rules["text"], content_type="text/plain")

    history = tmp_path / "h.sqlite"
    async with serve(lambda base: {**site.routes(base), "/robots.txt": robots}) as served:
        night0 = await audit_night(tmp_path, served.base, 0, history=history)
        rules["text"] = b"User-agent: *\nDisallow: /p1\n"
        night1 = await audit_night(tmp_path, served.base, 1, history=history)
        rules["text"] = b"User-agent: *\nAllow: /\n"
        night2 = await audit_night(tmp_path, served.base, 2, history=history)
    assert codes(entries(night0)["/p1"]) == ["url.noindex"]
    blocked = entries(night1)["/p1"]
    assert blocked.get("not_modified") is True
    assert (codes(blocked), blocked["indexability_reason"]) == (
        ["url.blocked_by_robots"],
        "blocked_by_robots",
    )
    again = entries(night2)["/p1"]
    assert "not_modified" not in again
    assert (codes(again), again["indexability_reason"]) == (["url.noindex"], "noindex_meta")
    assert site.answered_304["/p1"] == 1
