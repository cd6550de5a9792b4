"""The four extensions read in the parser's one streaming pass: as written, bounded, chunk-proof.

Every document gives the same events whole, byte by byte, and split at every byte, like the
core parser's (tests/sitemap/test_parse.py); hostile entries stay within their caps.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from auditor.limits import MAX_FIELD_CHARS
from auditor.sitemap.parse import SitemapParser, parse_document
from auditor.sitemap.parse.events import (
    Alternate,
    Extensions,
    MediaItem,
    ParseEvent,
    RootFound,
    UrlEntry,
)
from auditor.sitemap.parse.extensions import MAX_ALTERNATES, MAX_ITEMS, MAX_PATHS
from tests.helpers import deeper

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NAMESPACES = (
    f'xmlns="{SITEMAP_NS}" xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'
)


def document(*entries: str, namespaces: str = NAMESPACES) -> bytes:
    body = "\n".join(entries)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {namespaces}>\n{body}\n</urlset>'.encode()
    )


ALL_FOUR = document(
    """<url><loc>https://example.com/en/</loc>
  <xhtml:link rel="alternate" hreflang="en" href="https://example.com/en/"/>
  <xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/?a=1&amp;b=2"/>
  <image:image><image:loc>https://cdn.example.com/a.jpg</image:loc>
    <image:caption>A &lt;caption&gt;</image:caption></image:image>
  <video:video>
    <video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>
    <video:title><![CDATA[Grilling & more]]></video:title>
    <video:description>Steaks.</video:description>
    <video:player_loc allow_embed="yes">https://example.com/p?v=1</video:player_loc>
    <video:restriction relationship="allow">IE GB</video:restriction>
    <video:tag>steak</video:tag><video:tag>grill</video:tag>
    <video:uploader info="https://example.com/chef">Chef</video:uploader>
  </video:video>
  <news:news><news:publication><news:name>Times</news:name>
    <news:language>en</news:language></news:publication>
    <news:publication_date>2026-11-23</news:publication_date>
    <news:title>Launch</news:title></news:news>
</url>
<url><loc>https://example.com/plain</loc></url>"""
)

EXPECTED = Extensions(
    alternates=(
        Alternate("en", "https://example.com/en/", "alternate"),
        Alternate("fr", "https://example.com/fr/?a=1&b=2", "alternate"),
    ),
    links=2,
    media=(
        MediaItem("image", 6, {"loc": "https://cdn.example.com/a.jpg", "caption": "A <caption>"}),
        MediaItem(
            "video",
            8,
            {
                "thumbnail_loc": "https://example.com/t.jpg",
                "title": "Grilling & more",
                "description": "Steaks.",
                "player_loc@allow_embed": "yes",
                "player_loc": "https://example.com/p?v=1",
                "restriction@relationship": "allow",
                "restriction": "IE GB",
                "uploader@info": "https://example.com/chef",
                "uploader": "Chef",
            },
            tags=2,
        ),
        MediaItem(
            "news",
            17,
            {
                "publication/name": "Times",
                "publication/language": "en",
                "publication": "",
                "publication_date": "2026-11-23",
                "title": "Launch",
            },
        ),
    ),
    images=1,
    videos=1,
    news=1,
)


def feed_chunks(chunks: Iterable[bytes]) -> list[ParseEvent]:
    parser = SitemapParser()
    events: list[ParseEvent] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    return events + parser.close()


def entries(events: list[ParseEvent]) -> list[UrlEntry]:
    return [event for event in events if isinstance(event, UrlEntry)]


def test_every_extension_is_read_into_its_entry() -> None:
    first, plain = entries(parse_document(ALL_FOUR))
    assert first.extensions == EXPECTED
    assert first.problems == ()
    assert plain.extensions is None


def test_the_root_says_which_extensions_it_declares() -> None:
    [root] = [event for event in parse_document(ALL_FOUR) if isinstance(event, RootFound)]
    assert root.extensions == frozenset({"xhtml", "image", "video", "news"})


def test_split_at_every_byte_gives_the_same_entries() -> None:
    whole = parse_document(ALL_FOUR)
    assert feed_chunks(ALL_FOUR[i : i + 1] for i in range(len(ALL_FOUR))) == whole
    for point in range(len(ALL_FOUR) + 1):
        assert feed_chunks([ALL_FOUR[:point], ALL_FOUR[point:]]) == whole, point


def test_elements_are_matched_on_their_namespace_not_their_prefix() -> None:
    """Concrete CMS writes `x:link`; a `xhtml:` prefix bound elsewhere is no hreflang (and, as
    any element of a namespace of one's own, allowed: sitemaps.org "Extending")."""
    odd = document(
        '<url><loc>https://example.com/a</loc><x:link xmlns:x="http://www.w3.org/1999/xhtml" '
        'rel="alternate" hreflang="de" href="https://example.com/de"/>'
        '<xhtml:link xmlns:xhtml="urn:other" hreflang="fr" href="https://example.com/fr"/></url>',
        namespaces=f'xmlns="{SITEMAP_NS}"',
    )
    [entry] = entries(parse_document(odd))
    assert entry.extensions is not None
    assert entry.extensions.alternates == (Alternate("de", "https://example.com/de", "alternate"),)
    assert entry.problems == ()


def test_unknown_elements_of_an_extension_namespace_are_named() -> None:
    odd = document("<url><loc>https://example.com/a</loc><image:picture>x</image:picture></url>")
    [entry] = entries(parse_document(odd))
    assert entry.extensions == Extensions(unknown=("image:picture",))


def test_alternates_past_the_cap_are_counted_not_kept() -> None:
    links = "".join(
        f'<xhtml:link rel="alternate" hreflang="en" href="https://example.com/{n}"/>'
        for n in range(MAX_ALTERNATES + 5)
    )
    [entry] = entries(parse_document(document(f"<url><loc>https://e.com/</loc>{links}</url>")))
    assert entry.extensions is not None
    assert len(entry.extensions.alternates) == MAX_ALTERNATES
    assert entry.extensions.links == MAX_ALTERNATES + 5
    assert entry.extensions.dropped == 5


def test_items_past_their_cap_are_counted_not_kept() -> None:
    cap = MAX_ITEMS["video"]
    videos = "<video:video><video:title>t</video:title></video:video>" * (cap + 3)
    [entry] = entries(parse_document(document(f"<url><loc>https://e.com/</loc>{videos}</url>")))
    assert entry.extensions is not None
    assert (entry.extensions.videos, len(entry.extensions.media)) == (cap + 3, cap)
    assert entry.extensions.dropped == 3


def test_a_huge_value_is_cut_and_flagged_however_it_is_chunked() -> None:
    title = "t" * (MAX_FIELD_CHARS * 3)
    body = document(
        f"<url><loc>https://e.com/</loc><video:video><video:title>{title}</video:title>"
        "</video:video></url>"
    )
    whole = parse_document(body)
    [entry] = entries(whole)
    assert entry.extensions is not None
    [video] = entry.extensions.media
    assert (len(video.values["title"]), video.cut) == (MAX_FIELD_CHARS, True)
    assert feed_chunks([body[i : i + 4096] for i in range(0, len(body), 4096)]) == whole


def test_an_item_with_endless_distinct_children_keeps_a_bounded_few() -> None:
    children = "".join(f"<video:x{n}>v</video:x{n}>" for n in range(MAX_PATHS * 4))
    body = document(f"<url><loc>https://e.com/</loc><video:video>{children}</video:video></url>")
    [entry] = entries(parse_document(body))
    assert entry.extensions is not None
    [video] = entry.extensions.media
    assert (len(video.values), video.cut) == (MAX_PATHS, True)


def test_a_repeated_child_is_noted_and_its_first_value_kept() -> None:
    body = document(
        "<url><loc>https://e.com/</loc><news:news><news:title>one</news:title>"
        "<news:title>two</news:title></news:news></url>"
    )
    [entry] = entries(parse_document(body))
    assert entry.extensions is not None
    [news] = entry.extensions.media
    assert (news.values["title"], news.repeated) == ("one", ("title",))


# A grammar of extension pieces, valid and broken, for the chunking property.
_PIECES = st.sampled_from(
    [
        '<xhtml:link rel="alternate" hreflang="en" href="https://e.com/en"/>',
        '<xhtml:link hreflang="x-default" href="/rel"/>',
        "<xhtml:link/>",
        "<image:image><image:loc>https://e.com/i.png</image:loc></image:image>",
        "<image:image><image:caption>c &amp; d</image:caption></image:image>",
        "<video:video><video:tag>a</video:tag><video:title><![CDATA[x]]></video:title>",
        "</video:video>",
        "<news:news><news:publication><news:name>n</news:name></news:publication></news:news>",
        "<news:keywords>k</news:keywords>",
        '<video:player_loc autoplay="ap">https://e.com/p</video:player_loc>',
        "<image:image>",
        "</image:image>",
        "<lastmod>2026-01-01</lastmod>",
        "<b>text</b>",
        "\u00e9",
        "&bogus;",
    ]
)


@st.composite
def extension_documents(draw: st.DrawFn) -> bytes:
    urls = [
        f"<url><loc>https://e.com/{n}</loc>{''.join(draw(st.lists(_PIECES, max_size=6)))}</url>"
        for n in range(draw(st.integers(0, 3)))
    ]
    body = document(*urls)
    if draw(st.booleans()):
        body = body[: draw(st.integers(0, len(body)))]  # cut anywhere
    return body


@deeper(1.5)
@given(extension_documents(), st.lists(st.integers(min_value=0, max_value=5_000), max_size=10))
def test_any_chunking_of_an_extension_document_gives_the_whole_document_events(
    body: bytes, points: list[int]
) -> None:
    whole = parse_document(body)
    cuts = sorted({point % (len(body) + 1) for point in points})
    chunks = [body[start:end] for start, end in pairwise([0, *cuts, len(body)])]
    assert feed_chunks(chunks) == whole
