"""sitemap.validated_entries: a document's bytes to its validated entries, every rule applied."""

from __future__ import annotations

from auditor.codes import Code
from auditor.demo.documents import sitemapindex, urlset
from auditor.models import Finding
from auditor.sitemap.validated_entries import (
    DocumentSpec,
    DocumentValidator,
    Validated,
    ValidatedSitemap,
    ValidatedUrl,
)
from auditor.urls import Scope, parse_http_url
from tests.helpers import NOW


def validated(body: bytes, url: str = "https://example.com/sitemap.xml") -> list[Validated]:
    validator = DocumentValidator(DocumentSpec(url, NOW, None, 1 << 26))
    return [item for piece in [*validator.feed(body), *validator.close()] for item in piece]


def codes(items: list[Validated]) -> list[Code]:
    found = [f for item in items if isinstance(item, ValidatedUrl) for f in item.findings]
    return [item.code for item in [*found, *(i for i in items if isinstance(i, Finding))]]


def test_a_long_lastmod_is_not_blamed_on_a_short_loc() -> None:
    """A 9,000-character <lastmod> cut by the parser made loc.too_long on a short loc."""
    loc = "https://example.com/a"
    body = urlset([f"<url><loc>{loc}</loc><lastmod>{'9' * 9000}</lastmod></url>"]).encode()
    assert codes(validated(body)) == [Code.LASTMOD_INVALID]


def test_a_long_loc_is_still_too_long_and_cut() -> None:
    loc = "https://example.com/" + "a" * 9000
    [item] = [
        i
        for i in validated(urlset([f"<url><loc>{loc}</loc></url>"]).encode())
        if isinstance(i, ValidatedUrl)
    ]
    [too_long] = [f for f in item.findings if f.code is Code.LOC_TOO_LONG]
    assert too_long.detail == {"length": 8192, "cut": True}


def rss(*items: str) -> bytes:
    body = "".join(
        f"<item><link>https://example.com/{n}</link>{item}</item>" for n, item in enumerate(items)
    )
    return f'<?xml version="1.0"?><rss version="2.0"><channel>{body}</channel></rss>'.encode()


def test_an_rss_pubdate_is_rfc_822_not_w3c() -> None:
    """RSS 2.0 dates its items in RFC 822; a valid one is no lastmod.invalid."""
    good = rss(
        "<pubDate>Sat, 07 Sep 2024 00:00:01 GMT</pubDate>",
        "<pubDate>7 Sep 2024 10:00 +0200</pubDate>",
    )
    assert codes(validated(good)) == []
    bad = rss("<pubDate>2024-09-07</pubDate>", "<pubDate>Caturday</pubDate>")
    found = [f for item in validated(bad) if isinstance(item, ValidatedUrl) for f in item.findings]
    assert [(f.code, (f.detail or {}).get("grammar")) for f in found] == [
        (Code.LASTMOD_INVALID, "RFC 822"),
        (Code.LASTMOD_INVALID, "RFC 822"),
    ]
    future = rss("<pubDate>Sat, 07 Sep 2030 00:00:01 GMT</pubDate>")
    assert codes(validated(future)) == [Code.LASTMOD_FUTURE]


def test_a_feed_item_without_a_link_is_a_notice() -> None:
    """RSS 2.0: "All elements of an item are optional"; Atom (RFC 4287 §4.1.1) likewise."""
    feed = b'<?xml version="1.0"?><rss version="2.0"><channel><item><title>t</title></item>'
    assert codes(validated(feed + b"</channel></rss>")) == [Code.FEED_ITEM_WITHOUT_LINK]
    atom = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>t</title>'
        b"<content>c</content></entry></feed>"
    )
    assert codes(validated(atom)) == [Code.FEED_ITEM_WITHOUT_LINK]
    assert codes(validated(urlset(["<url><lastmod>2024-05-01</lastmod></url>"]).encode())) == [
        Code.LOC_MISSING
    ]


def test_an_rss_1_0_date_is_w3c() -> None:
    body = (
        b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"'
        b' xmlns:dc="http://purl.org/dc/elements/1.1/"><item><link>https://example.com/a</link>'
        b"<dc:date>2024-05-06T10:00:00Z</dc:date></item><item><link>https://example.com/b</link>"
        b"<dc:date>Sat, 07 Sep 2024 00:00:01 GMT</dc:date></item></rdf:RDF>"
    )
    assert codes(validated(body)) == [Code.LASTMOD_INVALID]


def test_index_children_obey_the_folder_rule() -> None:
    """Children of an index stand in its folder or below (Google's sitemap index rule)."""
    url = "https://example.com/shop/index.xml"
    final = parse_http_url(url)
    assert final is not None
    spec = DocumentSpec(url, NOW, None, 1 << 26, index_scope=Scope.of(final, with_folder=True))
    validator = DocumentValidator(spec)
    body = sitemapindex(
        [
            "https://example.com/shop/a.xml",
            "https://example.com/shop/x/b.xml",
            "https://example.com/c.xml",
            "https://other.example/d.xml",
        ]
    ).encode()
    children = [
        i
        for p in [*validator.feed(body), *validator.close()]
        for i in p
        if isinstance(i, ValidatedSitemap)
    ]
    assert [[f.code for f in child.findings] for child in children] == [
        [],
        [],
        [Code.LOC_OUT_OF_SCOPE],
        [Code.LOC_HOST_MISMATCH],
    ]
    assert [child.waivable for child in children] == [
        None,
        None,
        "https://example.com",
        "https://other.example",
    ]
