"""One request per URL a run, whatever roles it plays: listed, crawled, a canonical, an alternate.

A loopback site whose pages name each other as canonicals (a chain, a cycle, several pages
naming one, a canonical no sitemap lists but an hreflang alternate names, a listed page nothing
links to), counted request by request on the server, with and without the crawl, on both
transports (auditor.checks.visits; docs/explanation/rules.md#canonical-target).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.config import FailOn
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from tests.helpers import Audited, run_audit
from tests.wings.crawl.site import codes_of, entry, page, site

pytestmark = pytest.mark.usefixtures("engine")

NOT_INDEXABLE, ELSEWHERE = "url.canonical_not_indexable", "url.canonical_elsewhere"
XHTML = "http://www.w3.org/1999/xhtml"
LISTED = ["/", "/a", "/b", "/c", "/d", "/e", "/f", "/g", "/gone", "/y"]
PAGES = [*LISTED, "/x"]


def canonical(base: str, path: str) -> str:
    return f'<link rel="canonical" href="{base}{path}">'


def routes(base: str) -> dict[str, Route]:
    """/a and /c name /b; /d names /a (which names /b); /f and /g name each other; /e names
    /x, which no sitemap lists but is /e's hreflang alternate; /y, which nothing links to,
    names /a; /gone names /b too, and answers 404."""
    pages: dict[str, Route] = {
        "/": page("/a", "/b", "/c", "/d", "/e", "/f", "/g", "/gone"),
        "/a": page(head=canonical(base, "/b")),
        "/b": page(head=canonical(base, "/b")),
        "/c": page(head=canonical(base, "/b")),
        "/d": page(head=canonical(base, "/a")),
        "/e": page(head=canonical(base, "/x")),
        "/f": page(head=canonical(base, "/g")),
        "/g": page(head=canonical(base, "/f")),
        "/gone": Page(404, b"<html><head>" + canonical(base, "/b").encode() + b"</head></html>"),
        "/x": page(head=canonical(base, "/x")),
        "/y": page(head=canonical(base, "/a")),
    }
    found = site(base, pages, listed=LISTED)
    alternates = "".join(
        f'<xhtml:link rel="alternate" hreflang="{lang}" href="{base}{path}"/>'
        for lang, path in (("en", "/e"), ("de", "/x"))
    )
    entries = [url(f"{base}{path}", extra=alternates if path == "/e" else "") for path in LISTED]
    document = urlset(entries).replace("<urlset ", f'<urlset xmlns:xhtml="{XHTML}" ', 1)
    return found | {"/sitemap.xml": xml_page(document)}


async def audit(tmp_path: Path, *, crawl: bool, **options: Any) -> tuple[Audited, dict[str, int]]:
    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/", no_check=False, crawl=crawl, workers=1, **options
        )
        return audited, {path: served.hits.get(path, 0) for path in PAGES}


@pytest.mark.parametrize("crawl", [False, True], ids=["checks", "crawl"])
@pytest.mark.parametrize("concurrency", [1, 8])
async def test_each_page_is_requested_once_whatever_names_it(
    tmp_path: Path, crawl: bool, concurrency: int
) -> None:
    """At --concurrency 1, /a's canonical /b is requested before /b's own turn comes (its
    check is kept for it); /y's canonical /a was checked long before."""
    audited, hits = await audit(tmp_path, crawl=crawl, concurrency=concurrency)
    assert hits == dict.fromkeys(PAGES, 1)
    # /d names /a, which names another URL: not indexable, as the check of /a says.
    for path in ("/d", "/y"):
        assert sorted(codes_of(entry(audited, path))).count(NOT_INDEXABLE) == 1, path
    for path in ("/a", "/c", "/e", "/gone"):
        assert NOT_INDEXABLE not in codes_of(entry(audited, path)), path
    # /f and /g name each other: each canonical is not indexable (it names the other).
    assert NOT_INDEXABLE in codes_of(entry(audited, "/f"))
    assert NOT_INDEXABLE in codes_of(entry(audited, "/g"))
    assert audited.codes()[NOT_INDEXABLE] == 4


async def test_a_page_that_answered_304_is_requested_for_a_canonical_naming_it(
    tmp_path: Path,
) -> None:
    """With --history, /b answers 304 to its own conditional check: its page unread, that is no
    verdict for /a's canonical (a 304 is no redirect), which requests /b whole instead."""

    async def b_page(request: web.Request) -> web.StreamResponse:
        if request.headers.get("If-None-Match") == '"v1"':
            return web.Response(status=304, headers={"ETag": '"v1"'})
        body = "<!doctype html><html><head><title>b</title></head><body>b</body></html>"
        return web.Response(text=body, content_type="text/html", headers={"ETag": '"v1"'})

    def conditional(base: str) -> dict[str, Route]:
        pages: dict[str, Route] = {"/b": b_page, "/a": page(head=canonical(base, "/b"))}
        return site(base, pages, listed=["/b", "/a"])

    history = tmp_path / "h.sqlite"
    async with serve(conditional) as served:
        target = f"{served.base}/sitemap.xml"
        options: dict[str, Any] = {"no_check": False, "workers": 1, "concurrency": 1}
        await run_audit(tmp_path / "one", target, history=history, **options)
        second = await run_audit(
            tmp_path / "two", target, history=history, fail_on=FailOn.WARNING, **options
        )
        hits = dict(served.hits)
    assert hits["/b"] == 3  # night 1; night 2: its 304, then whole for /a's canonical
    assert second.report["summary"]["history"]["not_modified"] == 1
    assert codes_of(entry(second, "/a")) == [ELSEWHERE]
