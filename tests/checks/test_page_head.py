"""What a page says about its own indexing: its head read as HTML, robots rules, canonicals."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.checks import page_head
from auditor.checks.canonical import canonical_findings, header_canonicals
from auditor.checks.page_head import NOTHING_SAID, instant_refresh, read_head
from auditor.checks.robots_rules import RobotsRules, header_noindex, header_robots, robots_rules
from auditor.codes import Code

AGENTS = frozenset({"googlebot"})
PAGE = "https://example.com/shoes/red"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("values", "noindex"),
    [
        (["noindex"], True),
        (["NoIndex, nofollow"], True),
        (["none"], True),
        (["nofollow"], False),
        (["googlebot: noindex"], True),
        (["sitemap-auditor: noindex"], False),  # judged as Googlebot, not as us
        (["GoogleBot: noindex"], True),
        (["otherbot: noindex"], False),
        (["otherbot: noindex", "nofollow"], False),
        (["unavailable_after: 25 Jun 2010 15:00:00 PST"], False),
        (["max-snippet: 20, noindex"], True),
        ([], False),
    ],
)
def test_header_noindex(values: list[str], noindex: bool) -> None:
    assert header_noindex(values, AGENTS) is noindex


@pytest.mark.parametrize(
    ("html", "noindex"),
    [
        (b'<meta name="robots" content="noindex, follow">', True),
        (b"<META CONTENT='NONE' NAME='GoogleBot'>", True),
        (b"<meta name=robots content=noindex>", True),
        (b'<meta name="otherbot" content="noindex">', False),
        (b'<meta name="description" content="noindex is a word">', False),
        (b'<meta name="robots" content="index, follow">', False),
        (b"<p>noindex</p>", False),
    ],
)
def test_meta_noindex(html: bytes, noindex: bool) -> None:
    assert read_head(html, AGENTS).noindex is noindex


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (['<https://example.com/a>; rel="canonical"'], ("https://example.com/a",)),
        (["<https://example.com/a>; rel=canonical"], ("https://example.com/a",)),
        (['<https://example.com/a>; rel="alternate canonical"'], ("https://example.com/a",)),
        (
            ['<https://example.com/a.pdf>; rel="canonical", <https://x.com/>; rel="next"'],
            ("https://example.com/a.pdf",),
        ),
        (['<https://example.com/fr>; rel="alternate"; hreflang="fr"'], ()),
        (["</relative>; REL=Canonical"], ("/relative",)),
        (["not a link"], ()),
    ],
)
def test_link_header_canonicals(values: list[str], expected: tuple[str, ...]) -> None:
    assert header_canonicals(values) == expected


def test_read_head_finds_canonical_links_the_base_and_the_title() -> None:
    head = (
        b'<head><base href="https://cdn.example.com/"><link rel="stylesheet" href="s.css">'
        b"<LINK REL='Canonical' HREF='/shoes/red?a=1&amp;b=2'><title>Red &amp; shoes</title>"
    )
    said = read_head(head + b"</head><body>x", AGENTS)
    assert said.canonicals == ("/shoes/red?a=1&b=2",)
    assert said.base == "https://cdn.example.com/"
    assert (said.ended, said.cut_by, said.hidden) == (True, None, ())


# --- the head is HTML (Google: "Use valid HTML to specify page metadata") ---------------------


@pytest.mark.parametrize(
    "head",
    [
        b'<!-- <meta name="robots" content="noindex"> --><link rel="canonical" href="/x">',
        (
            b'<script>var t = \'<meta name="robots" content="noindex">\';</script>'
            b'<link rel="canonical" href="/x">'
        ),
        b'<style>/* <meta name="robots" content="noindex"> */</style><link rel=canonical href=/x>',
        b'<template><meta name="robots" content="noindex"></template><link rel=canonical href=/x>',
        b'<noscript><img src="/pixel.gif"></noscript><link rel="canonical" href="/x">',
        b'<title><meta name="robots" content="noindex"></title><link rel=canonical href=/x>',
        # A "</head>" inside a script is no end of the head.
        b'<script>document.write("</head>")</script><link rel="canonical" href="/x">',
        b'<meta content="</head>" name="description"><link rel="canonical" href="/x">',
    ],
)
def test_comments_scripts_and_styles_hold_no_tags(head: bytes) -> None:
    said = read_head(b"<!doctype html><html><head>" + head + b"</head><body>page", AGENTS)
    assert not said.noindex
    assert said.canonicals == ("/x",)
    assert said.cut_by is None


@pytest.mark.parametrize(
    ("head", "cut_by", "hidden"),
    [
        (b'<img src="/logo.png"><link rel="canonical" href="/x">', "img", ("canonical",)),
        (b'<div>ad</div><meta name="robots" content="noindex">', "div", ("robots",)),
        (b'<iframe src="/t"></iframe><meta name=googlebot content=noindex>', "iframe", ("robots",)),
        (b'stray text<link rel="canonical" href="/x">', "text", ("canonical",)),
        (b'<img src="/logo.png"><meta name="description" content="d">', None, ()),  # hid nothing
    ],
)
def test_an_element_that_does_not_belong_ends_the_head(
    head: bytes, cut_by: str | None, hidden: tuple[str, ...]
) -> None:
    """Google ignores any elements that appear after the invalid element."""
    said = read_head(b"<html><head><title>t</title>" + head + b"</head><body>page", AGENTS)
    assert not said.noindex
    assert said.canonicals == ()
    assert (said.cut_by, said.hidden) == (cut_by, hidden)
    assert said.ended


def test_a_head_still_open_at_the_end_of_what_was_read() -> None:
    start = b"<html><head><title>t</title><style>" + b"p{color:red}" * 100
    assert not read_head(start, AGENTS, complete=False).ended
    assert read_head(start + b"</style></head><body>", AGENTS, complete=False).ended
    body_started = b"<html><head><title>t</title><p>" + b"text " * 100
    assert read_head(body_started, AGENTS, complete=False).ended  # <p> ended it
    in_comment = b"<html><head><title>t</title><!-- </head><body> " + b"x" * 100
    assert not read_head(in_comment, AGENTS, complete=False).ended


# Pieces of heads: the tags that count, written every way the parser reads them (cases,
# quotes, character references), and tags and text that only look alike.
_PIECES = [
    '<meta name="robots" content="noindex">', "<META NAME=ROBOTS CONTENT='none'>",
    '<meta name="googlebot" content="noindex">', '<meta name="GoogleBot" content="nofollow">',
    '<meta name="&#114;obots" content="noindex">', '<meta name="bingbot" content="noindex">',
    '<meta name="description" content="robots and canonical">', "<meta charset=utf-8>",
    '<link rel="canonical" href="/a">', "<LINK REL=Canonical HREF='/b?x=1&amp;y=2'>",
    '<link rel="&#99;anonical" href="/c">', '<link rel="stylesheet" href="/canonical.css">',
    '<link rel="alternate" hreflang="fr" href="/fr">', '<base href="/base/">', "<BASE HREF=/B/>",
    "<title>Robots &amp; canonicals</title>", "<title>A page</title>", "<title>404</title>",
    "<title>Page not found</title>", '<meta http-equiv="refresh" content="0; url=/new">',
    "<img src=x>", "<!-- <link rel=canonical href=/d> -->", "<script>'<base href=/s/>'</script>",
    "<!-- </head> -->", "<script>'</head>'</script>", '<meta content="</head>">', "<title>",
    "noindex", "<", ">", " ", "&",
]  # fmt: skip


@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=8),
    agents=st.sampled_from([frozenset({"googlebot"}), frozenset(), frozenset({"bingbot", "x"})]),
)
def test_the_shortcut_reads_every_head_as_the_full_parse(
    pieces: list[str], agents: frozenset[str]
) -> None:
    """read_head skips heads that name nothing that counts: never one that does."""
    body = b"<html><head>" + "".join(pieces).encode() + b"</head><body>x"
    end = page_head._HEAD_END.search(body)
    assert read_head(body, agents) == page_head._parse(body, agents, first_end=end)


def test_most_heads_say_nothing_and_are_not_parsed() -> None:
    head = b'<meta charset=utf-8><title>A page</title><link rel="stylesheet" href="s.css">'
    assert read_head(head + b"</head>", AGENTS) is NOTHING_SAID
    assert read_head(head + b"<meta name=robots content=noindex></head>", AGENTS).noindex
    assert page_head._words(frozenset({"duckduckbot"})) is None  # U+212A lower()s to k


# --- robots rules: unavailable_after -----------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("unavailable_after: 2020-09-21", RobotsRules(unavailable_after="2020-09-21")),
        (
            "noindex, unavailable_after: 25 Jun 2010 15:00:00 PST",
            RobotsRules(noindex=True, unavailable_after="25 Jun 2010 15:00:00 PST"),
        ),
        (  # RFC 850: the day's name is followed by a comma
            "unavailable_after: Friday, 25-Jun-10 15:00:00 GMT, nofollow",
            RobotsRules(unavailable_after="Friday, 25-Jun-10 15:00:00 GMT", nofollow=True),
        ),
        (
            "unavailable_after: 2030-01-01T00:00:00+01:00",
            RobotsRules(unavailable_after="2030-01-01T00:00:00+01:00"),
        ),
        ("unavailable_after: soon", RobotsRules()),  # unreadable: nothing said
        ("index, follow", RobotsRules()),
    ],
)
def test_robots_rules_read_unavailable_after(content: str, said: RobotsRules) -> None:
    assert robots_rules(content) == said


@pytest.mark.parametrize(
    ("date", "expired"),
    [
        ("2020-09-21", True),
        ("25 Jun 2010 15:00:00 PST", True),
        ("2030-01-01T00:00:00+01:00", False),
        ("2026-11-23", False),  # today: not over before its last moment anywhere
        ("2026-11-22", False),  # ends at UTC-12, on Nov 23 12:00Z: not yet past at 12:00Z
        ("2026-11-21", True),
        ("2026-11-23T11:00:00Z", True),
    ],
)
def test_an_unavailable_after_date_passes_at_its_latest_moment(date: str, expired: bool) -> None:
    assert RobotsRules(unavailable_after=date).expired(NOW) is expired


def test_the_header_says_unavailable_after_for_its_agent() -> None:
    said = header_robots(["googlebot: unavailable_after: 25 Jun 2010 15:00:00 PST"], AGENTS)
    assert said.expired(NOW)
    assert header_robots(["otherbot: unavailable_after: 2010-06-25"], AGENTS) == RobotsRules()
    assert header_robots(["unavailable_after: 2010-06-25"], AGENTS).expired(NOW)


# --- meta refresh ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "url"),
    [
        ("0; url=https://example.com/new", "https://example.com/new"),
        ("0;URL='/new'", "/new"),
        ('0, url="/new"', "/new"),
        ("0 /new", "/new"),
        ("0.5; url=/new", "/new"),  # the whole seconds count: 0
        ("0", None),  # reloads the page itself
        ("5; url=/new", None),  # delayed: Google reads it as temporary, not instant
        ("; url=/new", None),
        ("", None),
    ],
)
def test_instant_refresh(content: str, url: str | None) -> None:
    assert instant_refresh(content) == url


def test_the_head_says_its_instant_refresh() -> None:
    head = b'<html><head><meta http-equiv="Refresh" content="0; url=/moved"></head>'
    assert read_head(head, AGENTS).refresh == "/moved"


# --- canonicals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "html", "expected", "detail"),
    [
        ((), (), [], None),
        ((), (PAGE,), [], None),  # names itself
        ((), ("HTTPS://EXAMPLE.COM:443/shoes/%72ed",), [], None),  # itself, written otherwise
        ((), ("/shoes/red",), [], None),  # relative, resolved against the page
        (
            (),
            ("/shoes/",),
            [Code.URL_CANONICAL_ELSEWHERE],
            {"canonical": "https://example.com/shoes/", "source": "html"},
        ),
        (
            ("https://example.com/shoes",),
            (),
            [Code.URL_CANONICAL_ELSEWHERE],
            {"canonical": "https://example.com/shoes", "source": "header"},
        ),
        (
            ("https://example.com/b",),
            ("https://example.com/b",),
            [Code.URL_CANONICAL_ELSEWHERE],
            {"canonical": "https://example.com/b", "source": "header+html"},
        ),
        (
            ("https://example.com/a",),
            ("https://example.com/b",),
            [Code.URL_CANONICAL_CONFLICT],
            None,
        ),
        (
            (),
            ("https://example.com/a", "https://example.com/b"),
            [Code.URL_CANONICAL_CONFLICT],
            None,
        ),
        ((), ("javascript:alert(1)",), [], None),  # not a URL Google would follow
    ],
)
def test_canonical_findings(
    header: tuple[str, ...],
    html: tuple[str, ...],
    expected: list[Code],
    detail: dict[str, str] | None,
) -> None:
    found = canonical_findings(PAGE, url=PAGE, header=header, html=html, base=None)
    assert [item.code for item in found] == expected
    if detail is not None:
        assert found[0].detail == detail


def test_a_base_changes_where_relative_canonicals_point() -> None:
    base = "https://example.com/shoes/"
    assert canonical_findings(PAGE, url=PAGE, header=(), html=("red",), base=base) == []
    moved = "https://example.com/boots/"
    [found] = canonical_findings(PAGE, url=PAGE, header=(), html=("red",), base=moved)
    assert found.code is Code.URL_CANONICAL_ELSEWHERE


@pytest.mark.parametrize(
    ("listed", "final", "canonical"),
    [
        # Astro, Docusaurus: /a redirects to /a/, whose canonical is /a: the redirect is the fault.
        ("http://h/a", "http://h/a/", "http://h/a"),
        # RFC 3987 §3.1: an IRI and its percent-encoded URI are one URL.
        ("http://h/café.html", "http://h/café.html", "http://h/caf%C3%A9.html"),
        ("http://h/caf%C3%A9.html", "http://h/caf%C3%A9.html", "http://h/café.html"),
        ("http://h/caf%c3%a9.html", "http://h/caf%c3%a9.html", "http://h/café.html"),
        ("http://h/my page", "http://h/my page", "http://h/my%20page"),
        ("http://h/q?x=é", "http://h/q?x=é", "http://h/q?x=%C3%A9"),
    ],
)
def test_a_canonical_naming_the_listed_url_itself_is_no_finding(
    listed: str, final: str, canonical: str
) -> None:
    assert canonical_findings(final, url=listed, header=(), html=(canonical,), base=None) == []


def test_a_canonical_elsewhere_after_a_redirect_is_still_one() -> None:
    found = canonical_findings("http://h/a/", url="http://h/a", header=(), html=("/b",), base=None)
    assert [item.code for item in found] == [Code.URL_CANONICAL_ELSEWHERE]
