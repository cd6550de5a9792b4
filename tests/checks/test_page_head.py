"""What a page says about its own indexing: noindex and canonicals, in headers or its head."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.checks import page_head
from auditor.checks.page_head import (
    NOTHING_SAID,
    PageHead,
    canonical_findings,
    head_of,
    header_canonicals,
    header_noindex,
    read_head,
)
from auditor.codes import Code

AGENTS = frozenset({"googlebot"})
PAGE = "https://example.com/shoes/red"


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


def test_the_head_ends_at_its_end_tag_or_the_body() -> None:
    assert head_of(b"<head><title>t</title></head><body>x") == b"<head><title>t</title>"
    assert head_of(b"<head><title>t</title><BODY class=a>x") == b"<head><title>t</title>"
    assert head_of(b"<head><title>unfinished") is None


def test_read_head_finds_canonical_links_and_the_base() -> None:
    head = (
        b'<base href="https://cdn.example.com/"><link rel="stylesheet" href="s.css">'
        b"<LINK REL='Canonical' HREF='/shoes/red?a=1&amp;b=2'>"
    )
    assert read_head(head, AGENTS) == PageHead(
        noindex=False, canonicals=("/shoes/red?a=1&b=2",), base="https://cdn.example.com/"
    )


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
    "<title>Robots &amp; canonicals</title>", "<title>A page</title>", "noindex", "<", ">",
    " ", "&",
]  # fmt: skip


@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=8),
    agents=st.sampled_from([frozenset({"googlebot"}), frozenset(), frozenset({"bingbot", "x"})]),
)
def test_the_shortcut_reads_every_head_as_the_full_parse(
    pieces: list[str], agents: frozenset[str]
) -> None:
    """read_head skips heads and tags that name nothing that counts: never one that does."""
    head = "".join(pieces).encode()
    assert read_head(head, agents) == page_head._read_tags(head, agents, None)


def test_most_heads_say_nothing_and_are_not_parsed() -> None:
    head = b'<meta charset=utf-8><title>A page</title><link rel="stylesheet" href="s.css">'
    assert read_head(head, AGENTS) is NOTHING_SAID
    assert read_head(head + b"<meta name=robots content=noindex>", AGENTS).noindex
    assert page_head._words(frozenset({"duckduckbot"})) is None  # U+212A lower()s to k


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
    page = PageHead(noindex=False, canonicals=html, base=None) if html else None
    found = canonical_findings(PAGE, url=PAGE, header=header, page=page)
    assert [item.code for item in found] == expected
    if detail is not None:
        assert found[0].detail == detail


def test_a_base_changes_where_relative_canonicals_point() -> None:
    page = PageHead(noindex=False, canonicals=("red",), base="https://example.com/shoes/")
    assert canonical_findings(PAGE, url=PAGE, header=(), page=page) == []
    moved = PageHead(noindex=False, canonicals=("red",), base="https://example.com/boots/")
    [found] = canonical_findings(PAGE, url=PAGE, header=(), page=moved)
    assert found.code is Code.URL_CANONICAL_ELSEWHERE
