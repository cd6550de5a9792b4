"""A page's links as a browser resolves them (auditor.crawl.links). Pure."""

from __future__ import annotations

import pytest

from auditor.crawl.links import LinkReader, header_nofollow

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
