"""sitemap.parse: the same events whatever the chunking, and the right events for each document."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from itertools import pairwise
from xml.sax.saxutils import escape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.codes import Code, Severity
from auditor.limits import MAX_FIELD_CHARS
from auditor.models import Finding, JsonScalar, SitemapKind
from auditor.sitemap.parse import (
    ATOM_NS,
    LEGACY_NS,
    MAX_ENTRY_PROBLEMS,
    MAX_MARKUP_CHARS,
    SITEMAP_NS,
    SitemapParser,
    classify_root,
    parse_document,
)
from auditor.sitemap.parse.events import (
    Alternate,
    Extensions,
    MediaItem,
    ParseEvent,
    RootFound,
    SitemapEntry,
    UrlEntry,
)
from auditor.sitemap.parse.xml_reader import ATOM03_NS, MAX_XML_DEPTH, RDF_NS
from tests.helpers import deeper

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
_DECL = '<?xml version="1.0" encoding="UTF-8"?>'

URLSET_FULL = f"""{_DECL}
<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}">
  <url>
    <loc>https://example.com/a?x=1&amp;y=2</loc>
    <lastmod>2024-01-05T10:00:00+00:00</lastmod>
    <changefreq>daily</changefreq>
    <priority>0.8</priority>
    <image:image><image:loc>https://example.com/i.png</image:loc></image:image>
    <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/>
  </url>
  <url>
    <loc> https://example.com/caf\u00e9 </loc>
  </url>
</urlset>
""".encode()

SITEMAP_INDEX = f"""{_DECL}
<sitemapindex xmlns="{SITEMAP_NS}">
  <sitemap><loc>https://example.com/s1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
  <sitemap>
    <loc>https://example.com/s2.xml.gz</loc>
  </sitemap>
</sitemapindex>
""".encode()

TEXT_CRLF = (
    b"https://example.com/a\r\nhttps://example.com/b\r\nnot a url\r\n\r\nhttps://example.com/c"
)

RSS = b"""<?xml version="1.0"?>
<rss version="2.0"><channel><title>t</title><link>https://example.com/</link>
<item><title>one</title><link>https://example.com/p1</link></item>
<item><link>https://example.com/p2</link><pubDate>Sat, 07 Sep 2024 00:00:01 GMT</pubDate></item>
</channel></rss>"""

# RSS 1.0: items are siblings of the channel, dated with Dublin Core (web.resource.org/rss/1.0).
RSS1 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
 xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://example.com/"><title>t</title><link>https://example.com/</link>
<items><rdf:Seq><rdf:li resource="https://example.com/r1"/></rdf:Seq></items></channel>
<item rdf:about="https://example.com/r1"><title>one</title><link>https://example.com/r1</link>
<dc:date>2024-05-06T10:00:00Z</dc:date></item>
<item rdf:about="https://example.com/r2"><link>https://example.com/r2</link></item>
</rdf:RDF>"""

# Atom 0.3 (the draft before RFC 4287): its own namespace, `modified` for when it changed.
ATOM03 = b"""<?xml version="1.0" encoding="utf-8"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>t</title>
<link rel="alternate" type="text/html" href="https://example.com/"/>
<entry><title>a</title><link rel="alternate" type="text/html" href="https://example.com/a1"/>
<modified>2004-01-01T12:00:00Z</modified><issued>2003-12-31T09:00:00Z</issued></entry>
</feed>"""

ATOM = f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="{ATOM_NS}"><title>t</title><link href="https://example.com/"/>
<entry><title>a</title><link href="https://example.com/e1"/>
<updated>2024-01-01T00:00:00Z</updated></entry>
<entry><link rel="self" href="https://example.com/self"/><link href="https://example.com/e2"/></entry>
</feed>""".encode()

TRUNCATED_TAIL = "<url><loc>https://exa"
TRUNCATED = f"""{_DECL}
<urlset xmlns="{SITEMAP_NS}">
<url><loc>https://example.com/a</loc></url>
<url><loc>https://example.com/b</loc></url>
{TRUNCATED_TAIL}""".encode()

LATIN1 = (
    f'<?xml version="1.0" encoding="ISO-8859-1"?>\n<urlset xmlns="{SITEMAP_NS}">'
    "<url><loc>https://example.com/caf\u00e9</loc></url></urlset>"
).encode("latin-1")

_SMALL_URLSET = (
    f'{_DECL}\n<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/a</loc></url></urlset>'
)
BOM = b"\xef\xbb\xbf" + _SMALL_URLSET.encode()
LEADING_WHITESPACE = b"\n\n  " + _SMALL_URLSET.encode()
JUNK = b"Warning: x\n" + _SMALL_URLSET.encode()
HTML_DOCTYPE = b"<!DOCTYPE html>\n<html><head><title>x</title></head><body>hi</body></html>"
HTML_ROOT = b"<html><head><title>x</title></head><body>hi</body></html>"
JSON = b'{"urls": ["https://example.com/a", "https://example.com/b"]}'
BILLION_LAUGHS = f"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/&lol3;</loc></url></urlset>""".encode()
XXE = f"""<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<urlset xmlns="{SITEMAP_NS}"><url><loc>&xxe;</loc></url></urlset>""".encode()


def nested(levels: int) -> bytes:
    """A urlset with one entry, then `levels` open elements in all (the root counted), closed."""
    inner = levels - 1  # the root is one
    return (
        f'{_DECL}<urlset xmlns="{SITEMAP_NS}" xmlns:x="urn:x">'
        "<url><loc>https://example.com/a</loc></url>"
        + "<x:a>" * inner
        + "</x:a>" * inner
        + "</urlset>"
    ).encode()


TOO_DEEP = nested(MAX_XML_DEPTH + 1)
# XML 1.0 Appendix F.1: each wider encoding, with its byte order mark and without.
WIDE = {
    "utf_32_be": ("UTF-32BE", _SMALL_URLSET.encode("utf-32-be")),
    "utf_32_le": ("UTF-32LE", _SMALL_URLSET.encode("utf-32-le")),
    "utf_16_be": ("UTF-16BE", _SMALL_URLSET.encode("utf-16-be")),
    "utf_16_le": ("UTF-16LE", _SMALL_URLSET.encode("utf-16-le")),
    "utf_32_bom": ("UTF-32BE", ("\ufeff" + _SMALL_URLSET).encode("utf-32-be")),
    "utf_16_bom": ("UTF-16LE", ("\ufeff" + _SMALL_URLSET).encode("utf-16-le")),
    "utf_16_text": ("UTF-16LE", "https://example.com/a\n".encode("utf-16-le")),
}

# The representative documents: each must give the same events however it is chunked.
CASES: dict[str, bytes] = {
    "urlset_full": URLSET_FULL,
    "sitemap_index": SITEMAP_INDEX,
    "text_crlf": TEXT_CRLF,
    "rss": RSS,
    "rss1": RSS1,
    "atom03": ATOM03,
    "atom": ATOM,
    "truncated": TRUNCATED,
    "latin1": LATIN1,
    "bom": BOM,
    "leading_whitespace": LEADING_WHITESPACE,
    "junk": JUNK,
    "html_doctype": HTML_DOCTYPE,
    "html_root": HTML_ROOT,
    "json": JSON,
    "billion_laughs": BILLION_LAUGHS,
    "xxe": XXE,
    "too_deep": TOO_DEEP,
    "utf_32_be": WIDE["utf_32_be"][1],
    "utf_16_bom": WIDE["utf_16_bom"][1],
    "empty": b"",
}


# --- helpers -------------------------------------------------------------------------------------


def feed_chunks(chunks: Iterable[bytes]) -> list[ParseEvent]:
    """Every event of one parser fed these chunks, then closed."""
    parser = SitemapParser()
    events: list[ParseEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return events


def findings(events: Iterable[ParseEvent]) -> list[Finding]:
    return [event for event in events if isinstance(event, Finding)]


def codes(events: Iterable[ParseEvent]) -> list[Code]:
    return [item.code for item in findings(events)]


def details(events: Iterable[ParseEvent], code: Code) -> list[dict[str, JsonScalar]]:
    return [dict(item.detail or {}) for item in findings(events) if item.code is code]


def roots(events: Iterable[ParseEvent]) -> list[RootFound]:
    return [event for event in events if isinstance(event, RootFound)]


def url_entries(events: Iterable[ParseEvent]) -> list[UrlEntry]:
    return [event for event in events if isinstance(event, UrlEntry)]


def index_entries(events: Iterable[ParseEvent]) -> list[SitemapEntry]:
    return [event for event in events if isinstance(event, SitemapEntry)]


def problem_view(
    problems: Iterable[Finding],
) -> list[tuple[Code, str | None, Mapping[str, JsonScalar]]]:
    return [(item.code, item.url, dict(item.detail or {})) for item in problems]


# --- chunking invariance -------------------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_whole_feed_matches_parse_document(name: str) -> None:
    document = CASES[name]
    assert feed_chunks([document]) == parse_document(document)


@pytest.mark.parametrize("name", CASES)
def test_byte_by_byte_matches_whole(name: str) -> None:
    document = CASES[name]
    single_bytes = [document[i : i + 1] for i in range(len(document))]
    assert feed_chunks(single_bytes) == parse_document(document)


@pytest.mark.parametrize("name", CASES)
def test_byte_by_byte_with_empty_chunks_matches_whole(name: str) -> None:
    document = CASES[name]
    chunks = [piece for i in range(len(document)) for piece in (b"", document[i : i + 1])]
    assert feed_chunks([*chunks, b""]) == parse_document(document)


@pytest.mark.parametrize("name", CASES)
def test_every_two_way_split_matches_whole(name: str) -> None:
    document = CASES[name]
    whole = parse_document(document)
    for point in range(len(document) + 1):
        assert feed_chunks([document[:point], document[point:]]) == whole, point


@pytest.mark.parametrize(
    "document",
    [
        b"<!DOCTYPE html><html><body>caf\xe9</body></html>",
        f'<urlset xmlns="{SITEMAP_NS}"></oops><url>caf\xe9</url>'.encode("latin-1"),
    ],
    ids=["html_then_latin1", "malformed_then_latin1"],
)
def test_bad_bytes_past_a_refusal_are_not_counted_whatever_the_chunking(document: bytes) -> None:
    whole = parse_document(document)
    assert feed_chunks([document[i : i + 1] for i in range(len(document))]) == whole
    assert Code.XML_ENCODING not in codes(whole)  # the document stopped before them


# --- the events of each representative document -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("urlset_full", []),
        ("sitemap_index", []),
        ("text_crlf", [Code.SITEMAP_INVALID_TEXT_LINE]),
        ("rss", []),
        ("atom", []),
        ("truncated", [Code.XML_MALFORMED]),
        ("latin1", [Code.XML_ENCODING, Code.XML_ENCODING]),
        ("bom", [Code.XML_BOM]),
        ("leading_whitespace", [Code.XML_LEADING_WHITESPACE]),
        ("junk", [Code.XML_LEADING_WHITESPACE]),
        ("html_doctype", [Code.SITEMAP_UNSUPPORTED_FORMAT]),
        ("html_root", [Code.SITEMAP_UNSUPPORTED_FORMAT]),
        ("json", [Code.SITEMAP_UNSUPPORTED_FORMAT]),
        ("billion_laughs", [Code.XML_FORBIDDEN]),
        ("xxe", [Code.XML_FORBIDDEN]),
        ("empty", []),
    ],
)
def test_finding_codes_per_document(name: str, expected: list[Code]) -> None:
    assert codes(parse_document(CASES[name])) == expected


@pytest.mark.parametrize(
    ("name", "kind", "namespace"),
    [
        ("urlset_full", SitemapKind.URLSET, SITEMAP_NS),
        ("sitemap_index", SitemapKind.SITEMAPINDEX, SITEMAP_NS),
        ("text_crlf", SitemapKind.TEXT, None),
        ("rss", SitemapKind.RSS, None),
        ("atom", SitemapKind.ATOM, ATOM_NS),
        ("truncated", SitemapKind.URLSET, SITEMAP_NS),
        ("latin1", SitemapKind.URLSET, SITEMAP_NS),
        ("bom", SitemapKind.URLSET, SITEMAP_NS),
        ("leading_whitespace", SitemapKind.URLSET, SITEMAP_NS),
        ("junk", SitemapKind.URLSET, SITEMAP_NS),
    ],
)
def test_root_kind_and_namespace(name: str, kind: SitemapKind, namespace: str | None) -> None:
    events = parse_document(CASES[name])
    [root] = roots(events)
    assert (root.kind, root.namespace) == (kind, namespace)
    # The root comes before every entry.
    first_entry = next(i for i, e in enumerate(events) if isinstance(e, UrlEntry | SitemapEntry))
    assert events.index(root) < first_entry


@pytest.mark.parametrize(
    "name", ["html_doctype", "html_root", "json", "billion_laughs", "xxe", "empty"]
)
def test_no_root_and_no_entries_for_refused_documents(name: str) -> None:
    events = parse_document(CASES[name])
    assert roots(events) == []
    assert url_entries(events) == []
    assert index_entries(events) == []


def test_parser_kind_property_follows_the_root() -> None:
    parser = SitemapParser()
    assert parser.kind is None
    parser.feed(SITEMAP_INDEX[: SITEMAP_INDEX.index(b"<sitemap>")])
    assert parser.kind is SitemapKind.SITEMAPINDEX


def test_urlset_entries_keep_every_value_as_written() -> None:
    events = parse_document(URLSET_FULL)
    extensions = Extensions(
        alternates=(Alternate("de", "https://example.com/de/a", "alternate"),),
        links=1,
        media=(MediaItem("image", 8, {"loc": "https://example.com/i.png"}),),
        images=1,
    )
    assert url_entries(events) == [
        UrlEntry(
            "https://example.com/a?x=1&y=2",
            3,
            "2024-01-05T10:00:00+00:00",
            "daily",
            "0.8",
            extensions=extensions,
        ),
        UrlEntry("https://example.com/caf\u00e9", 11),
    ]


def test_extension_elements_are_not_reported() -> None:
    events = parse_document(URLSET_FULL)
    assert findings(events) == []
    assert all(entry.problems == () for entry in url_entries(events))


def test_sitemap_index_entries() -> None:
    events = parse_document(SITEMAP_INDEX)
    assert index_entries(events) == [
        SitemapEntry("https://example.com/s1.xml", 3, "2024-01-01"),
        SitemapEntry("https://example.com/s2.xml.gz", 4),
    ]
    assert url_entries(events) == []


def test_text_sitemap_crlf_lines_and_invalid_line() -> None:
    events = parse_document(TEXT_CRLF)
    assert url_entries(events) == [
        UrlEntry("https://example.com/a", 1),
        UrlEntry("https://example.com/b", 2),
        UrlEntry("https://example.com/c", 5),
    ]
    assert details(events, Code.SITEMAP_INVALID_TEXT_LINE) == [{"line": 3, "value": "not a url"}]


def test_text_sitemap_line_numbers_count_leading_blank_lines() -> None:
    events = parse_document(b"\n\nhttps://example.com/a\nftp://example.com/b\n")
    assert roots(events) == [RootFound(SitemapKind.TEXT, None)]
    assert url_entries(events) == [UrlEntry("https://example.com/a", 3)]
    assert details(events, Code.SITEMAP_INVALID_TEXT_LINE) == [
        {"line": 4, "value": "ftp://example.com/b"}
    ]


def test_rss_items_links_are_entries_not_the_channel_link() -> None:
    assert url_entries(parse_document(RSS)) == [
        UrlEntry("https://example.com/p1", 3),
        UrlEntry("https://example.com/p2", 4, "Sat, 07 Sep 2024 00:00:01 GMT"),  # pubDate
    ]


def test_rss_1_0_items_beside_the_channel() -> None:
    """RSS 1.0 (RDF) is read as peers read it; dc:date is the entry's lastmod."""
    events = parse_document(RSS1)
    assert roots(events) == [RootFound(SitemapKind.RSS, RDF_NS)]
    assert findings(events) == []
    assert url_entries(events) == [
        UrlEntry("https://example.com/r1", 6, "2024-05-06T10:00:00Z"),
        UrlEntry("https://example.com/r2", 8),
    ]


def test_atom_0_3_entries() -> None:
    """Atom 0.3 is read too; `modified` is the entry's lastmod."""
    events = parse_document(ATOM03)
    assert roots(events) == [RootFound(SitemapKind.ATOM, ATOM03_NS)]
    assert findings(events) == []
    assert url_entries(events) == [UrlEntry("https://example.com/a1", 4, "2004-01-01T12:00:00Z")]


def test_atom_entries_alternate_link_and_updated() -> None:
    assert url_entries(parse_document(ATOM)) == [
        UrlEntry("https://example.com/e1", 3, "2024-01-01T00:00:00Z"),
        UrlEntry("https://example.com/e2", 5),
    ]


def test_truncated_keeps_complete_entries_and_reports_position() -> None:
    events = parse_document(TRUNCATED)
    assert [entry.loc for entry in url_entries(events)] == [
        "https://example.com/a",
        "https://example.com/b",
    ]
    [malformed] = details(events, Code.XML_MALFORMED)
    assert malformed["line"] == 5
    assert malformed["column"] == len(TRUNCATED_TAIL)
    assert isinstance(events[-1], Finding)
    assert events[-1].code is Code.XML_MALFORMED


def test_malformed_line_counts_the_skipped_leading_whitespace() -> None:
    document = b"\n\n" + f'{_DECL}\n<urlset xmlns="{SITEMAP_NS}">\n<url></urlset>'.encode()
    events = parse_document(document)
    [malformed] = details(events, Code.XML_MALFORMED)
    assert malformed["line"] == 5


def test_malformed_column_counts_a_prefix_on_the_same_line() -> None:
    body = f'{_DECL}<urlset xmlns="{SITEMAP_NS}"><url></urlset>'.encode()
    [plain] = details(parse_document(body), Code.XML_MALFORMED)
    [prefixed] = details(parse_document(b"   " + body), Code.XML_MALFORMED)
    assert prefixed["line"] == plain["line"] == 1
    assert isinstance(plain["column"], int)
    assert prefixed["column"] == plain["column"] + 3


def test_latin1_bytes_and_declared_encoding() -> None:
    events = parse_document(LATIN1)
    assert details(events, Code.XML_ENCODING) == [
        {"declared": "ISO-8859-1"},
        {"offset": LATIN1.index(b"\xe9"), "count": 1},
    ]
    # Reading goes on: the bad byte becomes U+FFFD and the entry is kept.
    assert url_entries(events) == [UrlEntry("https://example.com/caf\ufffd", 2)]


def test_invalid_bytes_are_counted() -> None:
    document = (
        f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://e.com/\xe9\xe8\xff</loc></url></urlset>'
    )
    data = document.encode("latin-1")
    events = parse_document(data)
    assert details(events, Code.XML_ENCODING) == [{"offset": data.index(b"\xe9"), "count": 3}]


@pytest.mark.parametrize("declared", ["ISO-8859-1", "windows-1252", "UTF-16", "us-ascii"])
def test_declared_non_utf8_encoding_is_reported(declared: str) -> None:
    document = f'<?xml version="1.0" encoding="{declared}"?><urlset xmlns="{SITEMAP_NS}"/>'
    events = parse_document(document.encode())
    assert details(events, Code.XML_ENCODING) == [{"declared": declared}]
    assert roots(events) == [RootFound(SitemapKind.URLSET, SITEMAP_NS)]


@pytest.mark.parametrize("declared", ["UTF-8", "utf-8", "utf8"])
def test_declared_utf8_is_fine(declared: str) -> None:
    document = f'<?xml version="1.0" encoding="{declared}"?><urlset xmlns="{SITEMAP_NS}"/>'
    assert findings(parse_document(document.encode())) == []


@pytest.mark.parametrize(
    ("document", "kind", "line"),
    [
        (LEADING_WHITESPACE, "whitespace", 4),
        (JUNK, "junk", 3),
    ],
    ids=["whitespace", "junk"],
)
def test_leading_whitespace_kinds(document: bytes, kind: str, line: int | None) -> None:
    events = parse_document(document)
    assert details(events, Code.XML_LEADING_WHITESPACE) == [{"kind": kind}]
    assert events[0] == findings(events)[0]  # reported before the root
    assert roots(events) == [RootFound(SitemapKind.URLSET, SITEMAP_NS)]
    assert [entry.line for entry in url_entries(events)] == ([] if line is None else [line])


@pytest.mark.parametrize(
    ("document", "expected", "line"),
    [
        (BOM, [Code.XML_BOM], 2),
        (b"\xef\xbb\xbf" + f'<urlset xmlns="{SITEMAP_NS}"/>'.encode(), [Code.XML_BOM], None),
        # A BOM, then whitespace before <?xml: the whitespace is the problem.
        (b"\xef\xbb\xbf\n" + _SMALL_URLSET.encode(), [Code.XML_LEADING_WHITESPACE], 3),
    ],
    ids=["bom", "bom_without_declaration", "bom_and_whitespace"],
)
def test_a_bom_alone_is_a_notice(document: bytes, expected: list[Code], line: int | None) -> None:
    """XML 1.0 allows a UTF-8 BOM before `<?xml`; only what else comes is wrong."""
    events = parse_document(document)
    assert codes(events) == expected
    if expected == [Code.XML_LEADING_WHITESPACE]:
        assert details(events, Code.XML_LEADING_WHITESPACE) == [{"kind": "whitespace", "bom": True}]
    assert roots(events) == [RootFound(SitemapKind.URLSET, SITEMAP_NS)]
    assert [entry.line for entry in url_entries(events)] == ([] if line is None else [line])


def test_whitespace_before_a_root_without_declaration_is_not_reported() -> None:
    events = parse_document(f'\n  <urlset xmlns="{SITEMAP_NS}"/>'.encode())
    assert findings(events) == []
    assert roots(events) == [RootFound(SitemapKind.URLSET, SITEMAP_NS)]


def test_junk_too_far_before_the_declaration_is_unsupported() -> None:
    document = b"x" * 2000 + _SMALL_URLSET.encode()
    events = parse_document(document)
    assert codes(events) == [Code.SITEMAP_UNSUPPORTED_FORMAT]
    assert roots(events) == []


@pytest.mark.parametrize(
    ("name", "root"),
    [("html_doctype", None), ("html_root", "html"), ("json", None)],
)
def test_not_a_sitemap(name: str, root: str | None) -> None:
    events = parse_document(CASES[name])
    [detail] = details(events, Code.SITEMAP_UNSUPPORTED_FORMAT)
    assert detail["root"] == root


@pytest.mark.parametrize(
    "document",
    [
        b"\n\n<!doctype HTML>\n<html></html>",
        (
            b'<?xml version="1.0"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
            b'"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html/>'
        ),
        b"<rss xmlns='urn:x'><channel/></rss>",
        b"<feed><entry/></feed>",
        b"just some words, no url",
    ],
    ids=["doctype_lowercase", "xhtml_doctype", "rss_in_a_namespace", "feed_without_atom", "prose"],
)
def test_other_unsupported_documents(document: bytes) -> None:
    events = parse_document(document)
    assert codes(events) == [Code.SITEMAP_UNSUPPORTED_FORMAT]
    assert roots(events) == []


def test_parser_is_done_after_an_unsupported_document() -> None:
    parser = SitemapParser()
    assert codes(parser.feed(HTML_DOCTYPE)) == [Code.SITEMAP_UNSUPPORTED_FORMAT]
    assert parser.done
    assert parser.feed(_SMALL_URLSET.encode()) == []
    assert parser.close() == []


@pytest.mark.parametrize(
    "document",
    [
        BILLION_LAUGHS,
        XXE,
        b'<?xml version="1.0"?>\n<!DOCTYPE urlset SYSTEM "file:///etc/passwd">\n<urlset/>',
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>\n'
            b"<urlset/>"
        ),
    ],
    ids=["billion_laughs", "xxe_entity", "external_dtd", "parameter_entity"],
)
def test_dtds_are_refused_and_nothing_leaks(document: bytes) -> None:
    events = parse_document(document)
    assert details(events, Code.XML_FORBIDDEN) == [{"kind": "dtd"}]
    assert len(events) == 1
    shown = repr(events)
    assert "root:" not in shown
    assert "/etc/passwd" not in shown
    assert "lollol" not in shown


def test_undefined_entity_is_malformed_not_expanded() -> None:
    document = f'<urlset xmlns="{SITEMAP_NS}"><url><loc>&foo;</loc></url></urlset>'.encode()
    events = parse_document(document)
    assert codes(events) == [Code.XML_MALFORMED]
    assert url_entries(events) == []


@pytest.mark.parametrize(
    ("namespace_attr", "kind", "namespace"),
    [
        (f' xmlns="{LEGACY_NS}"', "legacy", LEGACY_NS),
        ("", "missing", None),
        (
            ' xmlns="http://www.sitemaps.org/schemas/sitemap/0.8"',
            "wrong",
            "http://www.sitemaps.org/schemas/sitemap/0.8",
        ),
        (f' xmlns="{ATOM_NS}"', "wrong", ATOM_NS),
    ],
)
@pytest.mark.parametrize(
    ("root", "entry", "sitemap_kind"),
    [("urlset", "url", SitemapKind.URLSET), ("sitemapindex", "sitemap", SitemapKind.SITEMAPINDEX)],
)
def test_bad_namespace(
    namespace_attr: str,
    kind: str,
    namespace: str | None,
    root: str,
    entry: str,
    sitemap_kind: SitemapKind,
) -> None:
    document = f"<{root}{namespace_attr}><{entry}><loc>https://e.com/</loc></{entry}></{root}>"
    events = parse_document(document.encode())
    assert roots(events) == [RootFound(sitemap_kind, namespace)]
    assert details(events, Code.SITEMAP_BAD_NAMESPACE) == [{"kind": kind, "namespace": namespace}]
    # Entries are still read in the wrong namespace.
    locs = [entry.loc for entry in url_entries(events)] + [
        entry.loc for entry in index_entries(events)
    ]
    assert locs == ["https://e.com/"]


@pytest.mark.parametrize("root", ["urlset", "sitemapindex"])
def test_an_https_namespace_is_a_notice(root: str) -> None:
    """Google's own example writes https://www.sitemaps.org/... (Search Central blog, 2014)."""
    entry = "url" if root == "urlset" else "sitemap"
    namespace = "https://www.sitemaps.org/schemas/sitemap/0.9"
    document = f'<{root} xmlns="{namespace}"><{entry}><loc>https://e.com/</loc></{entry}></{root}>'
    events = parse_document(document.encode())
    problems = [event.code for event in events if isinstance(event, Finding)]
    assert problems == [Code.SITEMAP_NAMESPACE_HTTPS]
    assert Code.SITEMAP_NAMESPACE_HTTPS.severity is Severity.NOTICE
    locs = [e.loc for e in url_entries(events)] + [e.loc for e in index_entries(events)]
    assert locs == ["https://e.com/"]


DUPLICATES = f"""<urlset xmlns="{SITEMAP_NS}" xmlns:image="{IMAGE_NS}">
<url>
<loc>https://e.com/1</loc>
<loc>https://e.com/2</loc>
<lastmod>2024</lastmod><lastmod>2025</lastmod>
<foo>x</foo>
<image:image><image:loc>x</image:loc><image:unknown/></image:image>
</url>
<bogus>x</bogus>
<x:meta xmlns:x="urn:x"/>
<url><loc>https://e.com/3</loc></url>
</urlset>""".encode()


def test_duplicate_and_unknown_tags_inside_an_entry() -> None:
    events = parse_document(DUPLICATES)
    first, second = url_entries(events)
    assert (first.loc, first.lastmod, first.line) == ("https://e.com/1", "2024", 2)
    assert problem_view(first.problems) == [
        (Code.ENTRY_DUPLICATE_TAG, "https://e.com/1", {"tag": "loc", "line": 4}),
        (Code.ENTRY_DUPLICATE_TAG, "https://e.com/1", {"tag": "lastmod", "line": 5}),
        (Code.ENTRY_UNKNOWN_TAG, "https://e.com/1", {"tag": "foo", "line": 6}),
    ]
    assert second == UrlEntry("https://e.com/3", 11)


def test_unknown_tag_directly_under_the_root_is_an_event_and_extensions_are_not() -> None:
    events = parse_document(DUPLICATES)
    assert details(events, Code.ENTRY_UNKNOWN_TAG) == [{"tag": "bogus", "line": 9}]
    assert codes(events) == [Code.ENTRY_UNKNOWN_TAG]


def test_index_entry_problems() -> None:
    document = (
        f'<sitemapindex xmlns="{SITEMAP_NS}"><sitemap><loc>https://e.com/a.xml</loc>'
        "<loc>https://e.com/b.xml</loc><changefreq>daily</changefreq></sitemap></sitemapindex>"
    )
    [entry] = index_entries(parse_document(document.encode()))
    assert entry.loc == "https://e.com/a.xml"
    assert problem_view(entry.problems) == [
        (Code.ENTRY_DUPLICATE_TAG, "https://e.com/a.xml", {"tag": "loc", "line": 1}),
        (Code.ENTRY_UNKNOWN_TAG, "https://e.com/a.xml", {"tag": "changefreq", "line": 1}),
    ]


def test_unknown_tags_without_namespace_when_the_namespace_is_missing() -> None:
    document = (
        b'<urlset><url><loc>https://e.com/</loc><foo/><x:y xmlns:x="urn:x"/></url><bar/></urlset>'
    )
    events = parse_document(document)
    [entry] = url_entries(events)
    assert problem_view(entry.problems) == [
        (Code.ENTRY_UNKNOWN_TAG, "https://e.com/", {"tag": "foo", "line": 1})
    ]
    assert codes(events) == [Code.SITEMAP_BAD_NAMESPACE, Code.ENTRY_UNKNOWN_TAG]
    assert details(events, Code.ENTRY_UNKNOWN_TAG) == [{"tag": "bar", "line": 1}]


def test_empty_and_missing_loc_are_kept_as_entries() -> None:
    document = f'<urlset xmlns="{SITEMAP_NS}">\n<url><loc></loc></url>\n<url/>\n</urlset>'
    assert url_entries(parse_document(document.encode())) == [
        UrlEntry("", 2),
        UrlEntry(None, 3),
    ]


def test_problem_without_loc_has_no_url() -> None:
    document = f'<urlset xmlns="{SITEMAP_NS}"><url><foo/></url></urlset>'
    [entry] = url_entries(parse_document(document.encode()))
    assert entry.loc is None
    assert problem_view(entry.problems) == [
        (Code.ENTRY_UNKNOWN_TAG, None, {"tag": "foo", "line": 1})
    ]


@pytest.mark.parametrize(
    ("namespace", "local", "kind", "problem"),
    [
        (SITEMAP_NS, "urlset", SitemapKind.URLSET, None),
        (SITEMAP_NS, "sitemapindex", SitemapKind.SITEMAPINDEX, None),
        (LEGACY_NS, "urlset", SitemapKind.URLSET, "legacy"),
        (None, "sitemapindex", SitemapKind.SITEMAPINDEX, "missing"),
        ("urn:other", "urlset", SitemapKind.URLSET, "wrong"),
        (None, "rss", SitemapKind.RSS, None),
        (RDF_NS, "RDF", SitemapKind.RSS, None),
        (ATOM_NS, "feed", SitemapKind.ATOM, None),
        (ATOM03_NS, "feed", SitemapKind.ATOM, None),
    ],
)
def test_classify_root_sitemaps(
    namespace: str | None, local: str, kind: SitemapKind, problem: str | None
) -> None:
    found_kind, found = classify_root(namespace, local)
    assert found_kind is kind
    if problem is None:
        assert found is None
    else:
        assert found is not None
        assert found.code is Code.SITEMAP_BAD_NAMESPACE
        assert found.detail == {"kind": problem, "namespace": namespace}


@pytest.mark.parametrize(
    ("namespace", "local"),
    [
        (None, "html"),
        (XHTML_NS, "html"),
        ("urn:x", "rss"),
        (None, "feed"),
        (SITEMAP_NS, "url"),
        (None, "RDF"),  # RDF without its namespace is no RSS 1.0
    ],
)
def test_classify_root_unsupported(namespace: str | None, local: str) -> None:
    kind, found = classify_root(namespace, local)
    assert kind is None
    assert found is not None
    assert found.code is Code.SITEMAP_UNSUPPORTED_FORMAT
    assert found.detail == {"root": local, "namespace": namespace}


# --- properties ---------------------------------------------------------------------------------

_PATH_CHARS = st.sampled_from("abcxyz0189-_.~/&<>'\"é€😀")
_EVENT_TYPES = (RootFound, UrlEntry, SitemapEntry, Finding)


@st.composite
def urlsets(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """A valid urlset of a few URLs (some with a lastmod), and the URLs it lists."""
    paths = draw(st.lists(st.text(_PATH_CHARS, max_size=16), min_size=1, max_size=5))
    urls = [f"https://example.com/{path}" for path in paths]
    entries = []
    for url in urls:
        lastmod = "<lastmod>2024-05-06</lastmod>" if draw(st.booleans()) else ""
        entries.append(f"<url>\n  <loc>{escape(url)}</loc>{lastmod}\n</url>\n")
    document = f'{_DECL}\n<urlset xmlns="{SITEMAP_NS}">\n{"".join(entries)}</urlset>\n'
    return document.encode(), urls


def split_at(document: bytes, points: list[int]) -> list[bytes]:
    cuts = sorted({point % (len(document) + 1) for point in points})
    return [document[start:end] for start, end in pairwise([0, *cuts, len(document)])]


@deeper(1.5)
@given(urlsets(), st.lists(st.integers(min_value=0, max_value=100_000), max_size=12))
def test_any_chunking_of_a_urlset_gives_the_whole_document_events(
    urlset: tuple[bytes, list[str]], points: list[int]
) -> None:
    document, urls = urlset
    whole = parse_document(document)
    assert feed_chunks(split_at(document, points)) == whole
    assert [entry.loc for entry in url_entries(whole)] == urls
    assert findings(whole) == []


@deeper(1.5)
@given(
    st.sampled_from(
        [b"", b"\xef\xbb\xbf", _DECL.encode(), f'<urlset xmlns="{SITEMAP_NS}"><url><loc>'.encode()]
    ),
    st.binary(max_size=300),
    st.lists(st.integers(min_value=0, max_value=1000), max_size=6),
)
def test_random_bytes_never_raise(prefix: bytes, body: bytes, points: list[int]) -> None:
    document = prefix + body
    for events in (parse_document(document), feed_chunks(split_at(document, points))):
        assert all(isinstance(event, _EVENT_TYPES) for event in events)


# A grammar of sitemaps, valid and broken: every piece below is a way real sitemaps go wrong.
_PREFIXES = ["", "", "", "\ufeff", "\n  ", "junk ", "\ufeff\n"]
_DECLARATIONS = ["", _DECL, _DECL, '<?xml version="1.0" encoding="ISO-8859-1"?>', "<?xml?>"]
_ROOTS = [
    ("urlset", f' xmlns="{SITEMAP_NS}"'),
    ("urlset", f' xmlns="{LEGACY_NS}"'),
    ("urlset", ""),
    ("sitemapindex", f' xmlns="{SITEMAP_NS}"'),
    ("sitemapindex", ' xmlns="urn:wrong"'),
    ("rss", ""),
    ("feed", f' xmlns="{ATOM_NS}"'),
    ("feed", ' xmlns="http://purl.org/atom/ns#"'),
    ("html", ""),
]
_VALUES = st.sampled_from(
    ["https://example.com/a", "/relative", "", " https://e.com/\u00e9 ", "x" * 40, "2024-05-06",
     "daily", "0.5", "1.5", "&amp;", "&bogus;", "&#0;", "<![CDATA[https://e.com/c]]>", "\ud7ff"]
)  # fmt: skip
_FIELDS = st.sampled_from(
    ["loc", "loc", "lastmod", "changefreq", "priority", "link", "updated", "image:image", "b"]
)
_BREAKS = st.sampled_from(
    [*[""] * 24, "<!DOCTYPE urlset>", '<!ENTITY x "y">', "<url>", "</url>", "<a b=>", "\x00",
     "<!-- c -->", "<?pi x?>", "]]>", "<loc>https://e.com/open"]
)  # fmt: skip


@st.composite
def sitemaps(draw: st.DrawFn) -> bytes:
    """A document from the grammar above: prolog, root, entries of fields, breakage anywhere."""
    tag, attributes = draw(st.sampled_from(_ROOTS))
    entry_tag = {"sitemapindex": "sitemap", "rss": "item", "feed": "entry"}.get(tag, "url")
    entries = []
    for _ in range(draw(st.integers(0, 4))):
        fields = []
        for name in draw(st.lists(_FIELDS, max_size=4)):
            value = draw(_VALUES)
            if name == "link" and tag == "feed":
                fields.append(f'<link href="{escape(value)}"/>')
            else:
                fields.append(f"<{name}>{value}</{name}>")
            fields.append(draw(_BREAKS))
        entries.append(f"<{entry_tag}>{''.join(fields)}</{entry_tag}>\n")
    body = "".join(entries)
    if tag == "rss":
        body = f"<channel>{body}</channel>"
    image = ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    text = (
        draw(st.sampled_from(_PREFIXES))
        + draw(st.sampled_from(_DECLARATIONS))
        + draw(_BREAKS)
        + f"\n<{tag}{attributes}{image}>\n{body}</{tag}>\n"
    )
    document = text.encode("utf-8", "surrogatepass")
    # Broken bytes (invalid UTF-8) and truncation, at drawn places.
    if draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(0, len(document)))
        document = (
            document[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xe2\x82"])) + document[at:]
        )
    if draw(st.integers(0, 3)) == 0:
        document = document[: draw(st.integers(0, len(document)))]
    return document


@deeper(2)
@given(sitemaps(), st.lists(st.integers(min_value=0, max_value=100_000), max_size=12))
def test_any_chunking_of_any_sitemap_gives_the_whole_document_events(
    document: bytes, points: list[int]
) -> None:
    whole = parse_document(document)
    assert all(isinstance(event, _EVENT_TYPES) for event in whole)
    assert feed_chunks(split_at(document, points)) == whole
    assert feed_chunks(split_at(document, list(range(len(document))))) == whole  # byte by byte


# --- hostile entries stay bounded ---------------------------------------------------------------


def test_a_repeated_problem_inside_one_entry_is_counted_not_repeated() -> None:
    body = "<b/>" * 200_000 + "<lastmod>2024</lastmod>" * 50_000
    document = f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://e.com/</loc>{body}</url></urlset>'
    [entry] = url_entries(parse_document(document.encode()))
    assert [(p.code, dict(p.detail or {})) for p in entry.problems] == [
        (Code.ENTRY_UNKNOWN_TAG, {"tag": "b", "line": 1, "count": 200_000}),
        (Code.ENTRY_DUPLICATE_TAG, {"tag": "lastmod", "line": 1, "count": 49_999}),
    ]
    assert entry.lastmod == "2024"  # the first one is kept


def test_many_distinct_unknown_tags_fold_past_the_limit() -> None:
    body = "".join(f"<t{n}/>" for n in range(5_000))
    document = f'<urlset xmlns="{SITEMAP_NS}"><url><loc>https://e.com/</loc>{body}</url></urlset>'
    [entry] = url_entries(parse_document(document.encode()))
    assert len(entry.problems) == MAX_ENTRY_PROBLEMS + 1
    folded = entry.problems[-1].detail or {}
    assert (folded["tag"], folded["count"]) == ("*", 5_000 - MAX_ENTRY_PROBLEMS)


def test_a_huge_value_is_cut_and_flagged_the_same_whatever_the_chunking() -> None:
    loc = "https://e.com/" + "x" * 1_000_000
    document = f'<urlset xmlns="{SITEMAP_NS}"><url><loc>{loc}</loc></url></urlset>'.encode()
    whole = parse_document(document)
    [entry] = url_entries(whole)
    assert entry.loc == loc[:MAX_FIELD_CHARS]
    assert entry.loc_cut is True
    chunks = [document[i : i + 7_001] for i in range(0, len(document), 7_001)]
    assert feed_chunks(chunks) == whole


def test_a_huge_text_sitemap_line_is_cut_and_flagged() -> None:
    line = "https://e.com/" + "y" * 500_000
    document = f"https://e.com/a\n{line}\nhttps://e.com/b\n".encode()
    entries = url_entries(
        feed_chunks([document[i : i + 4096] for i in range(0, len(document), 4096)])
    )
    assert [(len(e.loc or ""), e.loc_cut) for e in entries] == [
        (15, False),
        (MAX_FIELD_CHARS, True),
        (15, False),
    ]


@pytest.mark.parametrize(
    "opening",
    [b"<!--", b"<?pi ", b'<url a="', b"<url "],
    ids=["comment", "processing_instruction", "attribute", "tag"],
)
def test_markup_that_never_ends_is_refused_past_its_limit_in_linear_time(opening: bytes) -> None:
    """expat 2.5 scans unfinished markup again at each chunk: 50 MiB of it took minutes."""
    head = f'{_DECL}<urlset xmlns="{SITEMAP_NS}"><url><loc>https://example.com/a</loc></url>'
    parser = SitemapParser()
    events = parser.feed(head.encode() + opening)
    started = time.monotonic()
    fed = 0
    while not parser.done and fed < 8 * MAX_MARKUP_CHARS:
        events += parser.feed(b" " * 65536)
        fed += 65536
    events += parser.close()
    assert time.monotonic() - started < 2.0
    assert fed <= MAX_MARKUP_CHARS + 2 * 65536
    [problem] = [event for event in events if isinstance(event, Finding)]
    assert (problem.code, (problem.detail or {})["error"]) == (
        Code.XML_MALFORMED,
        "markup too long",
    )
    assert [event.loc for event in events if isinstance(event, UrlEntry)] == [
        "https://example.com/a"
    ]  # the entries before it are kept


def test_nesting_past_its_limit_is_malformed_and_the_entries_before_are_kept() -> None:
    """expat keeps every open element: 16 million unclosed ones from a 50 KB gzip held 2 GB."""
    events = parse_document(TOO_DEEP)
    assert [(c, d.get("error")) for c in codes(events) for d in details(events, c)] == [
        (Code.XML_MALFORMED, "nesting too deep")
    ]
    assert [entry.loc for entry in url_entries(events)] == ["https://example.com/a"]


def test_nesting_up_to_its_limit_is_read() -> None:
    events = parse_document(nested(MAX_XML_DEPTH))
    assert codes(events) == []
    assert len(url_entries(events)) == 1


@pytest.mark.parametrize("name", WIDE)
def test_a_document_in_utf_16_or_utf_32_is_not_utf_8(name: str) -> None:
    """Sitemaps are UTF-8 (sitemaps.org): UTF-32BE without a BOM said unsupported_format,
    UTF-16LE without one was read by expat as if it were fine."""
    encoding, document = WIDE[name]
    events = parse_document(document)
    assert codes(events) == [Code.XML_ENCODING]
    assert url_entries(events) == []
    assert details(events, Code.XML_ENCODING) == [{"encoding": encoding}]


def test_long_text_and_markup_under_the_limit_are_read() -> None:
    comment = b"<!--" + b"c" * (MAX_MARKUP_CHARS // 2) + b"-->"
    loc = "https://example.com/" + "a" * (MAX_MARKUP_CHARS * 2)  # text: not markup
    document = f'{_DECL}<urlset xmlns="{SITEMAP_NS}">'.encode() + comment
    document += f"<url><loc>{loc}</loc></url></urlset>".encode()
    parser = SitemapParser()
    events = [
        e for n in range(0, len(document), 65536) for e in parser.feed(document[n : n + 65536])
    ]
    events += parser.close()
    assert [e.code for e in events if isinstance(e, Finding)] == []
    assert len([e for e in events if isinstance(e, UrlEntry)]) == 1
