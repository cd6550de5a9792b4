"""A folder and its index document (`/` and `/index.html`) serving one page are one page.

Pelican links its home page as /index.html while its sitemap lists /. Servers answer a folder
with its index document (Apache DirectoryIndex), and Google's robots.txt matcher reads
/index.html as / (google/robotstxt, robots.cc): when the crawl reads both names and they
answer the same body, the unlisted name is the listed page, never coverage.not_in_sitemap
(docs/explanation/rules.md#index-document). Every test runs once per transport of the checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.urls import INDEX_DOCUMENTS, index_twins, parse_http_url
from tests.helpers import Audited
from tests.wings.crawl.site import Report, codes_of, coverage, crawl, entry, page, site

pytestmark = pytest.mark.usefixtures("engine")

NOT_LISTED = "coverage.not_in_sitemap"
XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml"'


def by_code(audited: Audited) -> Report:
    found: Report = audited.report["summary"]["by_code"]
    return found


def unlisted(audited: Audited) -> list[str]:
    """The paths reported missing from the sitemaps."""
    return sorted(
        "/" + item["loc"].split("/", 3)[3]
        for item in audited.report["urls"]
        if NOT_LISTED in codes_of(item)
    )


async def test_pelican_links_its_home_page_as_index_html(tmp_path: Path) -> None:
    home = page("/index.html", "/blog/index.html", "/blog/")
    blog = page("/index.html")
    pages: dict[str, Route] = {"/": home, "/index.html": home, "/blog/": blog}
    pages["/blog/index.html"] = blog
    async with serve(lambda base: site(base, pages, listed=["/", "/blog/"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert NOT_LISTED not in by_code(audited)
    assert unlisted(audited) == []
    assert codes_of(entry(audited, "/blog/")) == []
    found = coverage(audited)
    assert (found["crawled_and_listed"], found["crawled_only"]) == (2, 0)
    assert served.hits["/index.html"] == 1  # read once by the crawl, to compare


async def test_a_sitemap_listing_index_html_lists_the_home_page(tmp_path: Path) -> None:
    home = page("/index.html")
    pages: dict[str, Route] = {"/": home, "/index.html": home}
    async with serve(lambda base: site(base, pages, listed=["/index.html"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert unlisted(audited) == []
    assert coverage(audited)["crawled_only"] == 0


async def test_a_canonical_naming_the_folder_says_it_too(tmp_path: Path) -> None:
    """Google, "How to specify a canonical URL": /index.html names / its canonical; its body
    differs (it says so), and it is canonicalised, which belongs in no sitemap."""
    pages: dict[str, Route] = {
        "/": page("/index.html"),
        "/index.html": page("/index.html", head='<link rel="canonical" href="/">'),
    }
    async with serve(lambda base: site(base, pages, listed=["/"])) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert unlisted(audited) == []


async def test_another_page_under_an_index_name_is_still_missing(tmp_path: Path) -> None:
    """The correct form: a different page at /index.html, or the home page's body under a name
    that is no index document, is a page of its own that no sitemap lists."""
    home = page("/index.html", "/copy.html", "/news/index.html")
    pages: dict[str, Route] = {
        "/": home,
        "/index.html": page("/"),  # another body
        "/copy.html": home,  # the same body, but no folder's document
        "/news/": page("/"),
        "/news/index.html": page("/news/"),  # another body than the folder's
    }
    listed = ["/", "/news/"]
    async with serve(lambda base: site(base, pages, listed=listed)) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert unlisted(audited) == ["/copy.html", "/index.html", "/news/index.html"]
    assert coverage(audited)["crawled_only"] == 3


async def test_an_alternate_named_by_its_index_document_is_the_listed_page(
    tmp_path: Path,
) -> None:
    """An hreflang alternate the sitemap names, unlisted: joined with the crawl's page, and
    still the listed home page under another name."""
    home = page("/index.html")

    def routes(base: str) -> dict[str, Route]:
        links = f'<xhtml:link rel="alternate" hreflang="en" href="{base}/index.html"/>'
        one = urlset([url(f"{base}/", extra=links)]).replace("<urlset ", f"<urlset {XHTML} ")
        text = f"User-agent: *\nSitemap: {base}/one.xml\n"
        return {
            "/robots.txt": Page(200, text.encode(), {"Content-Type": "text/plain"}),
            "/one.xml": xml_page(one),
            "/": home,
            "/index.html": home,
        }

    async with serve(routes) as served:
        audited = await crawl(tmp_path, f"{served.base}/")
    assert unlisted(audited) == []
    assert served.hits["/index.html"] == 1


@pytest.mark.parametrize(
    ("link", "twins"),
    [
        ("https://e.com/index.html", ["https://e.com/"]),
        ("https://e.com/blog/Default.ASPX", ["https://e.com/blog/"]),
        ("https://e.com/index.html?page=2", []),  # a query: another document
        ("https://e.com/myindex.html", []),
        ("https://e.com/index.html/", ["https://e.com/index.html/index.html"]),
    ],
)
def test_index_twins(link: str, twins: list[str]) -> None:
    parsed = parse_http_url(link)
    assert parsed is not None
    found = [twin.key for twin in index_twins(parsed)]
    assert found[: len(twins)] == twins
    assert len(found) == (len(INDEX_DOCUMENTS) if link.endswith("/") else len(twins))


def test_a_folder_has_every_index_document_as_its_twin() -> None:
    parsed = parse_http_url("https://e.com/blog/")
    assert parsed is not None
    keys = [twin.key for twin in index_twins(parsed)]
    assert "https://e.com/blog/index.html" in keys
    assert "https://e.com/blog/index.php" in keys
    assert len(keys) == len(INDEX_DOCUMENTS) == 16
