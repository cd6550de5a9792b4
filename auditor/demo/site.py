"""The demo site's routes, as data: robots.txt -> index -> children, and pages behind them.

A realistic mix: most entries are fine, and each kind of sitemap problem appears at least once,
so that `sitemap-audit --demo` shows what the auditor reports. Tests reuse these tables.
"""

from __future__ import annotations

from auditor.demo.documents import (
    SITEMAP_NS,
    Page,
    gzipped,
    redirect,
    sitemapindex,
    url,
    urlset,
    xml_page,
)
from auditor.demo.extensions_site import SITEMAPS as EXTENSION_SITEMAPS
from auditor.demo.extensions_site import extension_routes


def demo_routes(base: str, tls_base: str | None = None) -> dict[str, Page]:
    """Every route of the demo site, for a server whose root URL is `base` (no slash).

    `tls_base` is the same site over https (its own port), for the https downgrade.
    """
    tls_base = tls_base or base.replace("http://", "https://")
    return {
        **_discovery(base),
        **_sitemaps(base, tls_base),
        **_broken_documents(base),
        **_pages(base),
        **extension_routes(base),
    }


def _discovery(base: str) -> dict[str, Page]:
    robots = (
        "User-agent: *\nDisallow: /private/\nDisallow: /admin/\n\n"
        f"Sitemap: {base}/sitemap_index.xml\n"
        "Sitemap: /feeds/news.rss\n"  # relative: Google tolerates it, we report it
    )
    index = sitemapindex(
        [
            f"{base}/sitemaps/pages.xml.gz",
            f"{base}/sitemaps/posts.xml",
            f"{base}/sitemaps/products.xml",
            f"{base}/sitemaps/extra.txt",
            f"{base}/sitemaps/archive-index.xml",
            *(f"{base}{path}" for path in EXTENSION_SITEMAPS),
            f"{base}/sitemaps/moved.xml",
            f"{base}/sitemaps/legacy.xml",
            f"{base}/sitemaps/broken.xml",
            f"{base}/sitemaps/empty.xml",
            f"{base}/sitemaps/landing.html",
            f"{base}/sitemaps/missing.xml",
            f"{base}/private/sitemap.xml",
            f"{base}/sitemaps/pages.xml.gz",  # listed twice
            f"{base}/sitemap_index.xml",  # lists itself
        ]
    )
    return {
        "/robots.txt": Page(200, robots.encode(), {"Content-Type": "text/plain"}),
        "/sitemap_index.xml": xml_page(index),
    }


# Pages of the demo with a problem of their own, one per URL-check code (see `_pages`).
PROBLEM_PATHS = (
    "/old-page",
    "/temp",
    "/chain-1",
    "/loop-a",
    "/hop-12",
    "/elsewhere",
    "/bad-location",
    "/gone",
    "/error",
    "/forbidden",
    "/shielded",
    "/bad-request",
    "/noindex",
    "/slow",
    "/stalled",
    "/garbled",
    "/members",  # 401
    "/discontinued",  # a deep URL sent to the home page
    "/print/about",  # names /about as its canonical
    "/confused",  # two canonicals that disagree
    "/moved-by-meta",  # an instant meta refresh: a permanent redirect to Google
    "/expired-offer",  # unavailable_after in the past
    "/banner-head",  # an <img> ends the head before its robots meta
    "/lost",  # answers 200, titled "Page not found"
    "/print/contact",  # names a canonical that answers 404
)


def _sitemaps(base: str, tls_base: str) -> dict[str, Page]:
    """Well-formed sitemaps: gzip as a file, gzip as a transport, a feed, a text sitemap."""
    pages = urlset(
        [
            url(f"{base}/", lastmod="2026-11-02"),
            url(f"{base}/about", lastmod="2026-10-14T09:30:00+01:00"),
            url(f"{base}/contact", lastmod="2026-09-01"),
            url(f"{base}/contact?utm_source=newsletter"),  # a tracking parameter
            url(f"{base}/team#leadership"),  # crawlers drop the fragment
            url(f"{base}/changelog", lastmod="2026-01-05"),  # the page says it changed since
            url(f"{base}/blog/"),
            *(url(f"{base}{path}") for path in PROBLEM_PATHS),
            url(f"{tls_base}/secure-old"),  # https, redirecting to http
            url(f"{base}/private/report"),
            url("http://127.0.0.1:1/closed-port"),  # nothing listens on port 1
            url("http://169.254.169.254/latest/meta-data/"),  # cloud metadata: the guard says no
        ]
    )
    posts = urlset(
        [url(f"{base}/blog/post-{n}", lastmod=f"2026-0{n}-1{n}T08:00:00Z") for n in range(1, 6)]
    )
    news = (  # RSS 2.0 dates its items in RFC 822
        '<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>'
        f"<item><title>Launch</title><link>{base}/blog/post-1</link>"
        "<pubDate>Mon, 02 Nov 2026 09:00:00 GMT</pubDate></item>"
        f"<item><title>Docs</title><link>{base}/docs/</link></item></channel></rss>"
    )
    text = f"{base}/docs/\n{base}/docs/install\nsee the docs above\n{base}/docs/faq\n"
    return {
        "/sitemaps/pages.xml.gz": Page(
            200, gzipped(pages.encode()), {"Content-Type": "application/gzip"}
        ),
        "/sitemaps/posts.xml": Page(  # gzip as a transport encoding, not as a file
            200,
            gzipped(posts.encode()),
            {"Content-Type": "application/xml", "Content-Encoding": "gzip"},
        ),
        "/sitemaps/products.xml": xml_page(_products(base)),
        "/sitemaps/extra.txt": Page(200, text.encode(), {"Content-Type": "text/plain"}),
        "/feeds/news.rss": Page(200, news.encode(), {"Content-Type": "application/rss+xml"}),
    }


def _products(base: str) -> str:
    """A sitemap with one entry-level problem per entry (and a fine one first)."""
    image = (
        '<image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
        f"<image:loc>{base}/img/shoe.png</image:loc></image:image>"
    )
    return urlset(
        [
            url(f"{base}/products/shoe", lastmod="2026-11-01", extra=image),
            url(f"{base}/products/red shoes"),  # space: must be percent-encoded
            url(f"{base}/products/{'x' * 2100}"),  # 2,048 characters or more
            url("ftp://127.0.0.1/products/catalog.pdf"),  # not http(s)
            "  <url><lastmod>2026-01-01</lastmod></url>",  # no <loc>
            f"  <url><loc>{base}/products/a</loc><loc>{base}/products/b</loc></url>",
            url(f"{base}/products/sock", extra="<colour>blue</colour>"),  # unknown tag
            url(f"{base}/products/hat", lastmod="2026-02-30"),  # no such day
            url(f"{base}/products/cap", lastmod="2026-01-25 15:35:12"),  # space, no zone
            url(f"{base}/products/scarf", lastmod="2099-01-01"),  # in the future
            url(f"{base}/products/belt", lastmod="2026-05"),  # W3C yes, sitemap.xsd no
            url(f"{base}/products/glove", extra="<changefreq>sometimes</changefreq>"),
            url(f"{base}/products/boot", extra="<priority>1.5</priority>"),
            url(f"{base}/about"),  # also in pages.xml.gz
            url(f"{base.replace('http://', 'https://')}/products/coat"),  # other scheme
            url("http://shop.invalid/products/tie"),  # other host
        ]
    )


def _broken_documents(base: str) -> dict[str, Page]:
    """Documents with a problem of their own: nesting, redirects, namespace, breakage."""
    legacy = urlset([url(f"{base}/legacy/page")]).replace(
        SITEMAP_NS, "http://www.google.com/schemas/sitemap/0.84"
    )
    broken = urlset([url(f"{base}/blog/post-{n}") for n in (6, 7)])[:-40]  # cut mid-way
    html = "<!DOCTYPE html>\n<html><head><title>Welcome</title></head><body>Hi</body></html>"
    return {
        "/sitemaps/archive-index.xml": xml_page(
            sitemapindex([f"{base}/sitemaps/archive-2019.xml"])
        ),
        "/sitemaps/archive-2019.xml": xml_page(urlset([url(f"{base}/blog/2019/recap")])),
        "/sitemaps/moved.xml": redirect(301, "/sitemaps/moved-here.xml"),
        "/sitemaps/moved-here.xml": Page(  # a BOM before <?xml: allowed, a notice
            200,
            b"\xef\xbb\xbf" + urlset([url(f"{base}/moved/page")]).encode(),
            {"Content-Type": "application/xml"},
        ),
        "/sitemaps/legacy.xml": xml_page(legacy),
        "/sitemaps/broken.xml": xml_page(broken),
        "/sitemaps/empty.xml": xml_page(urlset([])),
        "/sitemaps/landing.html": Page(200, html.encode(), {"Content-Type": "text/html"}),
        "/private/sitemap.xml": xml_page(urlset([url(f"{base}/private/report")])),
    }


def _pages(base: str) -> dict[str, Page]:
    html = Page(200, b"<!doctype html><title>demo</title><p>demo page</p>", _HTML)
    paths = ["/", "/about", "/contact", "/team", "/blog/", "/new-page", "/chain-final", "/docs/"]
    paths += ["/docs/install", "/docs/faq", "/legacy/page", "/moved/page", "/blog/2019/recap"]
    pages = dict.fromkeys((*paths, "/private/report"), html)
    pages.update({f"/blog/post-{n}": html for n in range(1, 8)})
    products = ("shoe", "red shoes", "a", "sock", "hat", "cap", "scarf", "belt", "glove")
    pages.update({f"/products/{name}": html for name in (*products, "boot", "x" * 2100)})
    hops = {f"/hop-{n}": redirect(302, f"/hop-{n - 1}") for n in range(1, 13)}
    challenge = b"<html><head><title>Just a moment...</title></head><body>checking</body></html>"
    return {
        **pages,
        **_linked_pages(),
        **hops,
        "/hop-0": html,
        "/old-page": redirect(301, f"{base}/new-page"),
        "/temp": redirect(302, "/about"),
        "/chain-1": redirect(301, "/chain-2"),
        "/chain-2": redirect(302, "/chain-3"),
        "/chain-3": redirect(301, "/chain-final"),
        "/loop-a": redirect(301, "/loop-b"),
        "/loop-b": redirect(301, "/loop-a"),
        "/elsewhere": redirect(301, base.replace("127.0.0.1", "localhost") + "/about"),
        "/bad-location": redirect(302, "javascript:alert(1)"),
        "/secure-old": redirect(301, f"{base}/about"),
        "/gone": Page(404, b"not found"),
        "/error": Page(500, b"server error"),
        "/forbidden": Page(403, b"forbidden"),
        "/shielded": Page(503, challenge, {"Server": "cloudflare", "Content-Type": "text/html"}),
        "/bad-request": Page(400, b"bad request"),
        "/noindex": Page(200, b"<title>hidden</title>", {"X-Robots-Tag": "noindex"}),
        "/slow": Page(200, b"<title>slow</title>", delay_s=1.2),
        "/stalled": Page(200, b"never sent", delay_s=3600.0),
        "/garbled": Page(raw=b"HTTP/1.1 2OO OK\r\n\r\n"),  # not a status line
        "/members": Page(401, b"log in first", {"WWW-Authenticate": 'Basic realm="members"'}),
        "/discontinued": redirect(301, "/"),
        "/print/about": _html(f'<link rel="canonical" href="{base}/about">'),
        "/print/contact": _html(f'<link rel="canonical" href="{base}/contact-us">'),  # a 404
        "/confused": Page(
            200,
            b'<html><head><link rel="canonical" href="/b"></head><body>?</body></html>',
            {"Content-Type": "text/html", "Link": f'<{base}/a>; rel="canonical"'},
        ),
        "/moved-by-meta": _html('<meta http-equiv="refresh" content="0; url=/about">'),
        "/expired-offer": _html('<meta name="robots" content="unavailable_after: 2020-01-31">'),
        "/banner-head": _html('<img src="/banner.png"><meta name="robots" content="noindex">'),
        "/lost": Page(200, b"<title>Page not found</title><p>?</p>", {"Content-Type": "text/html"}),
        "/changelog": Page(
            200,
            b"<title>changelog</title>",
            {"Content-Type": "text/html", "Last-Modified": "Tue, 03 Nov 2026 10:00:00 GMT"},
        ),
    }


_HTML = {"Content-Type": "text/html"}


def _linked_pages() -> dict[str, Page]:
    """The pages `--crawl` reads from the home page (the demo runs it): each coverage code.

    /new-arrivals is linked and in no sitemap, but this site's broken sitemaps may list it (the
    docs site's /changelog/ is coverage.not_in_sitemap); the posts are a chain
    from the blog, the later ones more than three clicks deep (coverage.deep); the listed pages
    linked from nowhere are orphans (coverage.orphan). Every page linked answers, so the crawl
    covers the site; /private/ is disallowed (for Google too) and /legacy/page is nofollow.
    """
    home = (
        '<a href="/about">About</a> <a href="contact">Contact</a> <a href="/team#people">Team</a>'
        ' <a href="/blog/">Blog</a> <a href="/docs/">Docs</a> <a href="/new-arrivals">New</a>'
        ' <a href="/products/shoe">Shoe</a> <a href="/print/about">Print</a>'
        ' <a href="/private/report">Report</a> <a rel="nofollow" href="/legacy/page">Old</a>'
        ' <a href="mailto:shop@example.com">Mail</a> <a href="#top">Top</a>'
    )
    pages = {
        "/": _linking(home),
        "/blog/": _linking('<a href="post-1">First post</a>'),
        "/new-arrivals": _linking('<a href="/products/shoe">Shoe</a> <a href="/">Home</a>'),
    }
    for n in range(1, 5):  # post-1 is 2 clicks from the home page, post-5 six
        pages[f"/blog/post-{n}"] = _linking(f'<a href="/blog/post-{n + 1}">Next</a>')
    return pages


def _linking(links: str) -> Page:
    """An HTML page whose body holds `links`."""
    body = f"<!doctype html><html><head><title>demo</title></head><body>{links}</body></html>"
    return Page(200, body.encode(), _HTML)


def _html(head: str, body: str = "demo") -> Page:
    """An HTML page with `head` in its head."""
    body = f"<!doctype html><html><head><title>demo</title>{head}</head><body>{body}</body></html>"
    return Page(200, body.encode(), {"Content-Type": "text/html"})


def docs_routes(base: str) -> dict[str, Page]:
    """A second demo site, its docs, as MkDocs builds one.

    No robots.txt, so the auditor probes the known locations, and finds sitemap.xml and the
    same document again as sitemap.xml.gz. Its sitemap is read whole, and leaves out the
    changelog its home page links to (coverage.not_in_sitemap, with --crawl).
    """
    paths = ["/", "/install/", "/usage/", "/faq/"]
    sitemap = urlset([url(f"{base}{path}", lastmod="2026-11-02") for path in paths]).encode()
    routes = {path: _html(f'<link rel="canonical" href="{base}{path}">') for path in paths}
    nav = "".join(f'<a href="{path}">{path}</a> ' for path in [*paths[1:], "/changelog/"])
    routes["/"] = _html(f'<link rel="canonical" href="{base}/">', nav)
    routes["/changelog/"] = _html(f'<link rel="canonical" href="{base}/changelog/">')
    routes["/sitemap.xml"] = Page(200, sitemap, {"Content-Type": "application/xml"})
    routes["/sitemap.xml.gz"] = Page(200, gzipped(sitemap), {"Content-Type": "application/gzip"})
    return routes


CLEAN_SECTIONS = {"pages": 18, "products": 24, "posts": 12}


def clean_routes(base: str) -> dict[str, Page]:
    """A healthy site: robots.txt -> index -> three sitemaps, every page answering 200.

    What a passing audit looks like (the docs' clean screenshot, and a test that it passes).
    """
    html = Page(200, b"<!doctype html><title>page</title><p>a page</p>", {})
    routes = {
        "/robots.txt": Page(
            200,
            f"User-agent: *\nDisallow: /admin/\n\nSitemap: {base}/sitemap_index.xml\n".encode(),
            {"Content-Type": "text/plain"},
        ),
        "/": html,
    }
    children = []
    for section, count in CLEAN_SECTIONS.items():
        children.append(f"{base}/sitemaps/{section}.xml")
        paths = [f"/{section}/item-{n}" for n in range(count)]
        # Real modification dates, spread out: no build stamp (lastmod.uniform).
        entries = [
            url(f"{base}{path}", lastmod=f"2025-{1 + n % 12:02d}-{1 + n:02d}")
            for n, path in enumerate(paths)
        ]
        routes[f"/sitemaps/{section}.xml"] = xml_page(urlset(entries))
        routes.update(dict.fromkeys(paths, html))
    routes["/sitemap_index.xml"] = xml_page(sitemapindex(children))
    return routes
