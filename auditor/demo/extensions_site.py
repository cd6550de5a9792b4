"""The demo site's sitemap extensions: hreflang clusters, images, videos and news.

Each cluster or item is fine first, then shows one kind of mistake, so that the demo reports
every `hreflang.*`, `image.*`, `video.*` and `news.*` code once (Google Search Central's
sitemap extensions; the rules are auditor.sitemap.extensions').
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from auditor.demo.documents import XML_HEAD, Page, url, xml_page

NAMESPACES = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
)
SITEMAPS = ("/sitemaps/i18n.xml", "/sitemaps/media.xml", "/sitemaps/news.xml")
_PAGE = Page(200, b"<!doctype html><title>demo</title><p>demo page</p>", {})


def _urlset(entries: list[str]) -> str:
    body = "\n".join(entries)
    return f"{XML_HEAD}<urlset {NAMESPACES}>\n{body}\n</urlset>\n"


def _links(base: str, pairs: list[tuple[str, str]]) -> str:
    """`<xhtml:link>`s to (hreflang, path) pairs on the demo site."""
    return "".join(
        f'<xhtml:link rel="alternate" hreflang="{lang}" href="{base}{path}"/>'
        for lang, path in pairs
    )


def extension_routes(base: str, now: datetime | None = None) -> dict[str, Page]:
    """The three extension sitemaps and the pages they list; `now` dates the fresh news."""
    now = now or datetime.now(UTC)
    routes = {
        SITEMAPS[0]: xml_page(_i18n(base)),
        SITEMAPS[1]: xml_page(_media(base, now)),
        SITEMAPS[2]: xml_page(_news(base, now)),
    }
    pages = ["/en/", "/fr/", "/de/", "/guide/en", "/guide/fr-ca", "/pricing/en", "/pricing/de"]
    pages += ["/help/en", "/help/uk", "/uk/help", "/help/de"]
    pages += [f"/watch/{n}" for n in range(1, 4)] + ["/gallery", "/gallery/huge"]
    pages += ["/news/today", "/news/old", "/news/sloppy", "/news/flood"]
    routes.update(dict.fromkeys(pages, _PAGE))
    return routes


def _i18n(base: str) -> str:
    """hreflang: a sound cluster, then each classic mistake."""
    home = [("en", "/en/"), ("fr", "/fr/"), ("de", "/de/"), ("x-default", "/")]
    return _urlset(
        [
            # Sound, but names /es/, which no sitemap lists (and which answers 404).
            url(f"{base}/en/", extra=_links(base, [*home, ("es", "/es/")])),
            url(f"{base}/fr/", extra=_links(base, home)),
            # Does not name itself among its alternates.
            url(f"{base}/de/", extra=_links(base, [("en", "/en/"), ("fr", "/fr/")])),
            # Names /guide/fr-ca as `fr`, which calls itself `fr-ca`.
            url(
                f"{base}/guide/en",
                extra=_links(base, [("en", "/guide/en"), ("fr", "/guide/fr-ca")]),
            ),
            url(
                f"{base}/guide/fr-ca",
                extra=_links(base, [("en", "/guide/en"), ("fr-ca", "/guide/fr-ca")]),
            ),
            # /pricing/de does not link back to /pricing/en.
            url(
                f"{base}/pricing/en",
                extra=_links(base, [("en", "/pricing/en"), ("de", "/pricing/de")]),
            ),
            url(f"{base}/pricing/de", extra=_links(base, [("de", "/pricing/de")])),
            # A code that is a region (jp), a reserved region (en-UK), Ukrainian on a British
            # path (uk), a relative href, rel="canonical", two pages for one language.
            url(f"{base}/help/en", extra=_help_links(base)),
        ]
    )


def _help_links(base: str) -> str:
    pairs = [("en", "/help/en"), ("jp", "/help/ja"), ("en-UK", "/help/uk"), ("uk", "/uk/help")]
    pairs += [("de", "/help/de"), ("de", "/help/de2")]
    relative = '<xhtml:link rel="alternate" hreflang="fr" href="help/fr"/>'
    canonical = f'<xhtml:link rel="canonical" hreflang="en" href="{base}/help/en"/>'
    return _links(base, pairs) + relative + canonical


def _media(base: str, now: datetime) -> str:
    """Images and videos: a sound one of each, then their mistakes."""
    image = "<image:image><image:loc>{}</image:loc>{}</image:image>"
    sound_video = (
        f"<video:video><video:thumbnail_loc>{base}/thumbs/1.jpg</video:thumbnail_loc>"
        "<video:title>Grilling steaks</video:title>"
        "<video:description>How to grill steaks.</video:description>"
        f"<video:content_loc>{base}/video/1.mp4</video:content_loc>"
        "<video:duration>600</video:duration><video:rating>4.2</video:rating>"
        '<video:restriction relationship="allow">IE GB US CA</video:restriction>'
        "<video:family_friendly>yes</video:family_friendly></video:video>"
    )
    expired = (now - timedelta(days=30)).strftime("%Y-%m-%d")
    flawed_video = (
        # No thumbnail; the page itself as content; out-of-range numbers; a bad flag.
        "<video:video><video:title>Untitled</video:title>"
        "<video:description>A clip.</video:description>"
        f"<video:content_loc>{base}/watch/2</video:content_loc>"
        "<video:duration>30000</video:duration><video:rating>6</video:rating>"
        "<video:family_friendly>true</video:family_friendly>"
        f"<video:expiration_date>{expired}</video:expiration_date>"
        "<video:publication_date>last week</video:publication_date></video:video>"
    )
    listed_video = (
        # Restriction without its relationship, an unknown platform, 33 tags, a category.
        f"<video:video><video:thumbnail_loc>{base}/thumbs/3.jpg</video:thumbnail_loc>"
        f"<video:title>{'A very long title ' * 6}</video:title>"
        f"<video:description>{'Long. ' * 350}</video:description>"
        "<video:player_loc>player.swf?v=3</video:player_loc>"
        "<video:restriction>US CA</video:restriction>"
        '<video:platform relationship="allow">web desktop</video:platform>'
        + "".join(f"<video:tag>tag {n}</video:tag>" for n in range(33))
        + "<video:category>cooking</video:category>"
        '<video:uploader info="https://videos.example.com/chef">Chef</video:uploader>'
        "</video:video>"
    )
    huge = "".join(image.format(f"{base}/img/{n}.jpg", "") for n in range(1001))
    return _urlset(
        [
            url(f"{base}/watch/1", extra=sound_video),
            url(f"{base}/watch/2", extra=flawed_video),
            url(f"{base}/watch/3", extra=listed_video),
            url(
                f"{base}/gallery",
                extra=image.format(f"{base}/img/a.jpg", "")
                + image.format("img/b.jpg", "")  # relative
                + "<image:image><image:caption>No loc</image:caption></image:image>",
            ),
            url(f"{base}/gallery/huge", extra=huge),  # 1,001 images
        ]
    )


def _news(base: str, now: datetime) -> str:
    """News: a fresh article, then a stale one, a sloppy one, and too many items."""

    def news(title: str, published: str, *, language: str = "en", extra: str = "") -> str:
        return (
            "<news:news><news:publication><news:name>Demo Times</news:name>"
            f"<news:language>{language}</news:language></news:publication>"
            f"<news:publication_date>{published}</news:publication_date>"
            f"<news:title>{title}</news:title>{extra}</news:news>"
        )

    today = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    sloppy = (
        "<news:news><news:publication><news:name>Demo Times</news:name>"
        "<news:language>english</news:language></news:publication>"
        "<news:publication_date>yesterday</news:publication_date>"
        "<news:keywords>demo, sloppy</news:keywords></news:news>"  # no title; keywords
    )
    flood = "".join(news(f"Item {n}", today) for n in range(1000))
    return _urlset(
        [
            url(f"{base}/news/today", extra=news("Launch day", today)),
            url(f"{base}/news/old", extra=news("Last winter", "2026-01-05")),
            url(f"{base}/news/sloppy", extra=sloppy),
            url(f"{base}/news/flood", extra=flood),  # past 1,000 in the sitemap
        ]
    )
