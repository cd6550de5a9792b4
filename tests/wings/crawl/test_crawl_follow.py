"""What the crawl follows besides a link's raw text, and how it counts clicks.

Links as a browser requests them (percent-encoded), canonicals, instant meta refreshes, and
redirects, which are no click (auditor.wings.crawl.crawler). Every test runs once per transport of
the checks (the crawl requests through them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.demo.documents import Page, redirect
from auditor.demo.server import Route, serve
from tests.helpers import Audited
from tests.wings.crawl.site import Report, codes_of, coverage, crawl, entry, page, site

pytestmark = pytest.mark.usefixtures("engine")

ORPHAN, NOT_LISTED, DEEP = "coverage.orphan", "coverage.not_in_sitemap", "coverage.deep"


def by_code(audited: Audited) -> Report:
    found: Report = audited.report["summary"]["by_code"]
    return found


async def test_a_link_written_raw_is_the_url_a_sitemap_lists_percent_encoded(
    tmp_path: Path,
) -> None:
    # WHATWG URL Standard: a browser requests /caf%C3%A9 for <a href="/café">, /a%20b for
    # "/a b"; sitemaps.org asks for the encoded form. One URL, so no orphan, nothing unlisted.
    pages = {"/": page("/café", "/a b", "/q?x=é f"), "/café": page(), "/a b": page(), "/q": page()}
    listed = ["/", "/caf%C3%A9", "/a%20b", "/q?x=%C3%A9%20f"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert ORPHAN not in by_code(audited)
    assert NOT_LISTED not in by_code(audited)
    for path in listed[1:]:
        assert codes_of(entry(audited, path)) == [], path
        assert entry(audited, path)["crawl"]["depth"] == 1, path
    found = coverage(audited)
    assert (found["crawled"], found["crawled_and_listed"], found["crawled_only"]) == (4, 4, 0)
    assert (served.hits["/café"], served.hits["/a b"], served.hits["/q"]) == (1, 1, 1)


async def test_a_sitemap_listing_a_url_raw_lists_the_page_a_raw_link_leads_to(
    tmp_path: Path,
) -> None:
    """/café listed raw is loc.not_escaped, and still the page the link reaches (one URL)."""
    pages = {"/": page("/café", "/a b"), "/café": page(), "/a b": page()}
    listed = ["/", "/café", "/a b"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert ORPHAN not in by_code(audited)
    assert NOT_LISTED not in by_code(audited)
    assert coverage(audited)["crawled_and_listed"] == 3
    assert by_code(audited)["loc.not_escaped"] == 2


async def test_links_written_encoded_stay_as_written_and_orphans_are_found(
    tmp_path: Path,
) -> None:
    pages = {"/": page("/caf%C3%A9", "/a%20b"), "/café": page(), "/a b": page(), "/é": page()}
    listed = ["/", "/caf%C3%A9", "/a%20b", "/%C3%A9"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert codes_of(entry(audited, "/caf%C3%A9")) == []
    assert codes_of(entry(audited, "/a%20b")) == []
    assert codes_of(entry(audited, "/%C3%A9")) == [ORPHAN]  # linked from nowhere
    assert NOT_LISTED not in by_code(audited)
    assert coverage(audited)["crawled"] == 3


async def test_a_canonical_is_followed_as_a_link(tmp_path: Path) -> None:
    # The navigation links /a?ref=nav, whose canonical is /a; a download's Link header names
    # its canonical. Screaming Frog crawls canonicals by default; Google finds pages so.
    def routes(base: str) -> dict[str, Route]:
        canonical = f'<link rel="canonical" href="{base}/a">'
        link = {"Content-Type": "application/pdf", "Link": f'<{base}/doc.pdf>; rel="canonical"'}
        pages: dict[str, Route] = {
            "/": page("/a?ref=nav", "/doc.pdf?dl=1"),
            "/a": page(head=canonical),
            "/doc.pdf": Page(200, b"%PDF-1.4", link),
        }
        return site(base, pages, listed=["/", "/a", "/doc.pdf"])

    async with serve(routes) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert ORPHAN not in by_code(audited)
    a = entry(audited, "/a")
    assert codes_of(a) == []
    # One click past the page naming it, as a link of that page would be.
    assert (a["crawl"]["depth"], a["crawl"]["requested"]) == (2, True)
    assert a["crawl"]["linked_from"].endswith("/a?ref=nav")
    assert entry(audited, "/doc.pdf")["crawl"]["linked_from"].endswith("/doc.pdf?dl=1")
    assert coverage(audited)["crawled"] == 5


async def test_a_canonical_naming_the_page_or_another_site_adds_nothing(tmp_path: Path) -> None:
    async with serve(lambda base: {"/": page()}) as other:

        def routes(base: str) -> dict[str, Route]:
            pages: dict[str, Route] = {
                "/": page("/self", "/out"),
                "/self": page(head=f'<link rel="canonical" href="{base}/self">'),
                "/out": page(head=f'<link rel="canonical" href="{other.base}/">'),
                "/lonely": page(head=f'<link rel="canonical" href="{base}/lonely">'),
            }
            return site(base, pages, listed=["/", "/self", "/lonely"])

        async with serve(routes) as served:
            audited = await crawl(tmp_path, f"{served.base}/")
    assert served.hits["/self"] == 1  # read once: its canonical names itself
    assert coverage(audited)["crawled"] == 3  # /, /self, /out: the other site is out of scope
    assert codes_of(entry(audited, "/self")) == []
    assert codes_of(entry(audited, "/lonely")) == [ORPHAN]


async def test_an_instant_meta_refresh_is_followed_as_a_redirect(tmp_path: Path) -> None:
    # Google: an instant meta refresh is a permanent redirect (the checks say
    # redirect.meta_refresh); where it leads is reached, as many clicks away as the page.
    refresh = '<meta http-equiv="refresh" content="0; url=/new">'
    pages = {"/": page("/old"), "/old": page(head=refresh), "/new": page("/next"), "/next": page()}
    async with serve(lambda base: site(base, pages, listed=["/", "/new", "/next"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    new = entry(audited, "/new")
    assert codes_of(new) == []
    assert (new["crawl"]["depth"], new["crawl"]["requested"]) == (1, True)
    assert new["crawl"]["linked_from"].endswith("/old")
    assert entry(audited, "/next")["crawl"]["depth"] == 2
    assert served.hits["/new"] == 1
    assert ORPHAN not in by_code(audited)


async def test_a_refresh_that_reloads_the_page_adds_nothing(tmp_path: Path) -> None:
    pages = {
        "/": page("/reload", "/self"),
        "/reload": page(head='<meta http-equiv="refresh" content="0">'),
        "/self": page(head='<meta http-equiv="refresh" content="0; url=/self">'),
    }
    async with serve(lambda base: site(base, pages, listed=["/", "/reload", "/self"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert (served.hits["/reload"], served.hits["/self"]) == (1, 1)
    assert codes_of(entry(audited, "/reload")) == []
    assert codes_of(entry(audited, "/self")) == []
    assert coverage(audited)["crawled"] == 3


async def test_a_redirect_is_no_click(tmp_path: Path) -> None:
    # The home page redirects to its language root: /d3 is three clicks from what users see.
    pages: dict[str, Route] = {
        "/": redirect(302, "/en/"),
        "/en/": page("/d1"),
        "/d1": page("/d2"),
        "/d2": page("/d3"),
        "/d3": page("/d4"),
        "/d4": page(),
    }
    listed = ["/en/", "/d1", "/d2", "/d3", "/d4"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert entry(audited, "/en/")["crawl"]["depth"] == 0
    assert entry(audited, "/d3")["crawl"]["depth"] == 3
    assert codes_of(entry(audited, "/d3")) == []
    assert codes_of(entry(audited, "/d4")) == [DEEP]  # four clicks: deep at --deep-clicks 3
    assert coverage(audited)["deep"] == 1


async def test_a_redirect_gives_the_fewest_clicks_whatever_was_read_first(
    tmp_path: Path,
) -> None:
    # /a links /x and /private/y, two clicks from home; /b and /c, read after /a on the same
    # level, redirect there: one click. Each keeps one row and one visit.
    def slow(location: str) -> Page:
        return Page(301, b"", {"Location": location}, delay_s=0.5)

    pages: dict[str, Route] = {
        "/": page("/a", "/b", "/c"),
        "/a": page("/x", "/private/y"),
        "/b": slow("/x"),
        "/c": slow("/private/y"),
        "/x": page(),
    }
    listed = ["/", "/x", "/private/y"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    x = entry(audited, "/x")
    assert (x["crawl"]["depth"], x["crawl"]["linked_from"][-2:]) == (1, "/b")
    y = entry(audited, "/private/y")
    assert (y["crawl"]["depth"], y["crawl"]["requested"]) == (1, False)
    # Once at the end of /b's redirect, once as a URL of its own: not again at two clicks.
    assert served.hits["/x"] == 2
    found = coverage(audited)
    assert (found["crawled"], found["blocked"], found["depth"]) == (5, 1, 1)


async def test_where_a_redirect_leads_is_read_before_the_next_level(tmp_path: Path) -> None:
    # /r (one click) redirects to /t, read on level 1 though /a queued /p (level 2) first: /t
    # reaches /u at two clicks, so /p's link to it (three clicks) is past no --crawl-depth.
    pages: dict[str, Route] = {
        "/": page("/a", "/r"),
        "/a": page("/p"),
        "/r": Page(301, b"", {"Location": "/t"}, delay_s=0.5),
        "/t": page("/u"),
        "/p": page("/u"),
        "/u": page(),
    }
    async with serve(lambda base: site(base, pages, listed=["/", "/u"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/", crawl_depth=2)
    u = entry(audited, "/u")
    assert (u["crawl"]["depth"], u["crawl"]["linked_from"][-2:]) == (2, "/t")
    found = coverage(audited)
    assert (found["complete"], found["stopped_by"]) == (True, [])
