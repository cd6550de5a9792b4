"""A page's links as a browser resolves them (auditor.wings.crawl.links). Pure."""

from __future__ import annotations

from html import escape

import pytest

from auditor.wings.crawl.links import LinkReader, header_nofollow, page_url

PAGE = "https://example.com/shop/list?page=2"


def links(
    body: str, *, url: str = PAGE, agents: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    found = LinkReader(agents).read(body.encode(), url=url)
    return found.followed, found.nofollow, found.anchors


def test_relative_links_resolve_against_the_page() -> None:
    body = '<a href="item">1</a><a href="../about">2</a><a href="/top">3</a><a href="?page=3">4</a>'
    followed, _, _ = links(body)
    assert followed == (
        "https://example.com/shop/item",
        "https://example.com/about",
        "https://example.com/top",
        "https://example.com/shop/list?page=3",
    )


def test_base_href_changes_where_relative_links_lead() -> None:
    body = '<head><base href="/catalog/"><base href="/ignored/"></head><a href="item">x</a>'
    assert links(body)[0] == ("https://example.com/catalog/item",)
    # A base that is no http(s) URL resolves nothing: the page's own URL stands.
    assert links('<base href="javascript:void(0)"><a href="x">x</a>')[0] == (
        "https://example.com/shop/x",
    )


def test_schemes_that_are_no_pages_and_fragments_are_left_out() -> None:
    body = (
        '<a href="mailto:a@b.c">m</a><a href="javascript:go()">j</a><a href="tel:+1">t</a>'
        '<a href="data:text/html,hi">d</a><a href="#top">f</a><a href="/x#part">x</a><a>no</a>'
    )
    followed, nofollow, anchors = links(body)
    assert followed == ("https://example.com/x",)
    assert nofollow == ()
    assert anchors == 6  # every <a href>, whatever it names


def test_whitespace_around_and_inside_an_href_is_dropped_as_browsers_do() -> None:
    assert links('<a href="  /a\n/b\t ">x</a>')[0] == ("https://example.com/a/b",)


def test_comments_scripts_and_templates_hold_no_links() -> None:
    body = (
        '<!-- <a href="/c">c</a> --><script>document.write("<a href=/s>s</a>")</script>'
        '<template><a href="/t">t</a></template><textarea><a href="/ta"></textarea>'
        '<a href="/real">r</a>'
    )
    assert links(body)[0] == ("https://example.com/real",)


@pytest.mark.parametrize("rel", ["nofollow", "NoFollow", "noopener nofollow", "ugc nofollow"])
def test_rel_nofollow_marks_one_link(rel: str) -> None:
    followed, nofollow, _ = links(f'<a rel="{rel}" href="/n">n</a><a rel="ugc" href="/u">u</a>')
    assert nofollow == ("https://example.com/n",)
    assert followed == ("https://example.com/u",)  # ugc is a hint of another kind


@pytest.mark.parametrize(
    ("meta", "agents", "all_nofollow"),
    [
        ('<meta name="robots" content="noindex, nofollow">', frozenset(), True),
        ('<meta name="ROBOTS" content="NONE">', frozenset(), True),
        ('<meta name="googlebot" content="nofollow">', frozenset({"googlebot"}), True),
        ('<meta name="bingbot" content="nofollow">', frozenset({"googlebot"}), False),
        ('<meta name="robots" content="noindex">', frozenset(), False),
    ],
)
def test_a_robots_meta_nofollow_marks_every_link(
    meta: str, agents: frozenset[str], all_nofollow: bool
) -> None:
    followed, nofollow, _ = links(f'<head>{meta}</head><a href="/a">a</a>', agents=agents)
    assert (nofollow, followed) == (
        (("https://example.com/a",), ()) if all_nofollow else ((), ("https://example.com/a",))
    )


def test_header_nofollow_is_read_as_noindex_is() -> None:
    googlebot = frozenset({"googlebot"})
    assert header_nofollow(("nofollow",), googlebot)
    assert header_nofollow(("googlebot: noindex, nofollow",), googlebot)
    assert not header_nofollow(("otherbot: nofollow",), googlebot)
    assert not header_nofollow(("noindex", "unavailable_after: 2026-01-01"), googlebot)


def test_the_same_hrefs_on_another_page_resolve_against_that_page() -> None:
    reader = LinkReader(frozenset())
    first = reader.read(b'<a href="item">x</a>', url="https://example.com/a/").followed
    second = reader.read(b'<a href="item">x</a>', url="https://example.com/b/").followed
    assert (first, second) == (("https://example.com/a/item",), ("https://example.com/b/item",))


@pytest.mark.parametrize(
    ("href", "requested"),
    [
        # As a browser requests them (WHATWG URL Standard): the UTF-8 of non-ASCII, and the
        # path percent-encode set.
        ("/café", "https://example.com/caf%C3%A9"),
        ("/a b", "https://example.com/a%20b"),
        ('/q"<>^`{}', "https://example.com/q%22%3C%3E%5E%60%7B%7D"),
        ("/s?q=é d", "https://example.com/s?q=%C3%A9%20d"),
        # and what RFC 3986 forbids raw, as a sitemap must write it
        ("/a|b?q=^`{|}\\", "https://example.com/a%7Cb?q=%5E%60%7B%7C%7D%5C"),
        ("..\\a\\b?c\\d", "https://example.com/a/b?c%5Cd"),  # WHATWG: \ is / in a path
        ("https://bücher.example/x", "https://xn--bcher-kva.example/x"),  # RFC 5891
    ],
)
def test_raw_characters_are_percent_encoded_as_a_sitemap_lists_them(
    href: str, requested: str
) -> None:
    assert links(f'<a href="{escape(href)}">x</a>')[0] == (requested,)


@pytest.mark.parametrize(
    "href", ["/caf%C3%A9", "/a%20b", "/100%", "/a[c]@d;e=f!$&()*+,~'", "/s?q=it's&%27"]
)
def test_what_rfc_3986_allows_stays_as_written(href: str) -> None:
    assert links(f'<a href="{escape(href)}">x</a>')[0] == (f"https://example.com{href}",)


def test_a_url_that_is_no_page_gives_none() -> None:
    assert page_url("mailto:a@example.com") is None
    assert page_url("https://é..example/x") is None  # no IDNA form: no browser goes there
    assert page_url("https://example.com/é#part") == "https://example.com/%C3%A9"
