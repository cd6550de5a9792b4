"""robots.txt: Sitemap: lines, rules through protego, cross-submission keys."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.discovery.robots import RobotsTxt, SitemapDirective, parse_robots, robots_detail

ROBOTS_URL = "https://example.com/robots.txt"
ROBOTS = """# a comment line
User-agent: *
Disallow: /private/
Allow: /private/public
Disallow: /*.pdf$
Disallow: /tmp*/x

SITEMAP: https://example.com/sitemap.xml # the main one
sitemap:/relative.xml
  SiteMap :  sub/s.xml
Sitemap: //cdn.example.com/s.xml
Sitemap: ftp://example.com/s.xml
Sitemap: javascript:alert(1)
Sitemap:
Sitemap: # only a comment

User-agent: Googlebot
Disallow: /nogoogle
Sitemap: https://EXAMPLE.com:443/other.xml
"""


def test_robots_sitemap_lines() -> None:
    robots = parse_robots(ROBOTS, url=ROBOTS_URL)
    assert robots.url == ROBOTS_URL
    assert robots.sitemaps == (
        SitemapDirective(
            8, "https://example.com/sitemap.xml", "https://example.com/sitemap.xml", False
        ),
        SitemapDirective(9, "/relative.xml", "https://example.com/relative.xml", True),
        SitemapDirective(10, "sub/s.xml", "https://example.com/sub/s.xml", True),
        SitemapDirective(11, "//cdn.example.com/s.xml", "https://cdn.example.com/s.xml", True),
        SitemapDirective(12, "ftp://example.com/s.xml", None, False),
        SitemapDirective(13, "javascript:alert(1)", None, False),
        SitemapDirective(
            19, "https://EXAMPLE.com:443/other.xml", "https://EXAMPLE.com:443/other.xml", False
        ),
    )


def test_relative_sitemap_resolves_against_the_robots_folder() -> None:
    robots = parse_robots("Sitemap: maps/s.xml\n", url="http://example.com:8080/sub/robots.txt")
    assert robots.sitemaps == (
        SitemapDirective(1, "maps/s.xml", "http://example.com:8080/sub/maps/s.xml", True),
    )


@pytest.mark.parametrize("text", ["", "User-agent: *\nDisallow:\n", "# Sitemap: https://e.com/s"])
def test_robots_without_sitemap_lines(text: str) -> None:
    assert parse_robots(text, url=ROBOTS_URL).sitemaps == ()


@pytest.mark.parametrize(
    ("url", "agent", "allowed"),
    [
        ("https://example.com/", "auditor", True),
        ("https://example.com/private/x", "auditor", False),
        ("https://example.com/private/public", "auditor", True),  # longer Allow wins
        ("https://example.com/private/public/page", "auditor", True),
        ("https://example.com/a.pdf", "auditor", False),
        ("https://example.com/dir/a.pdf", "auditor", False),
        ("https://example.com/a.pdf?x=1", "auditor", True),  # $ anchors the end
        ("https://example.com/tmpfoo/x", "auditor", False),  # * in the middle
        ("https://example.com/tmp/y", "auditor", True),
        ("https://example.com/nogoogle", "Googlebot", False),
        ("https://example.com/nogoogle", "auditor", True),
        ("https://example.com/private/x", "Googlebot", True),  # its own group only
        ("https://example.com/private/x", "googlebot", True),
    ],
)
def test_robots_allows(url: str, agent: str, allowed: bool) -> None:
    assert parse_robots(ROBOTS, url=ROBOTS_URL).allows(url, agent) is allowed


@pytest.mark.parametrize(
    ("group", "applies"),
    [
        ("Googlebot/2.1", True),  # Google's parser keeps the product token: Googlebot
        ("googlebot/2.1 # the crawler", True),
        ("Googlebot 2.1", True),
        ("Googlebot", True),
        ("Googlebot-Image/1.0", False),  # another crawler's token
        ("Mozilla/5.0 (compatible; Googlebot/2.1)", False),  # Mozilla's group, as for Google
    ],
)
def test_a_versioned_user_agent_is_its_product_token(group: str, applies: bool) -> None:
    """google/robotstxt (robots.cc, ExtractUserAgent): a value counts up to its [a-zA-Z_-]."""
    text = f"User-agent: {group}\nDisallow: /g/\n\nUser-agent: *\nDisallow: /all/\n"
    robots = parse_robots(text, url=ROBOTS_URL)
    assert robots.allows("https://example.com/g/x", "Googlebot") is not applies
    assert robots.allows("https://example.com/all/x", "Googlebot") is applies


def test_an_unreachable_robots_txt_disallows_everything_but_itself() -> None:
    """RFC 9309 §2.3.1.4: server or network errors mean complete disallow."""
    robots = RobotsTxt.unreachable(ROBOTS_URL, status=503)
    assert not robots.allows("https://example.com/", "Googlebot")
    assert not robots.allows("https://example.com/sitemap.xml", "auditor")
    assert robots.allows("https://example.com/robots.txt", "Googlebot")
    assert robots.may_block
    assert not robots.without_rules().allows("https://example.com/", "x")
    assert robots_detail(robots, agent="Googlebot") == {
        "robots": ROBOTS_URL,
        "agent": "Googlebot",
        "unreachable": True,
        "robots_status": 503,
    }


@pytest.mark.parametrize(
    ("keys", "named"),
    [
        ({"https://example.com/other.xml"}, True),  # written with upper case and :443
        ({"https://example.com/relative.xml"}, True),  # a relative line, resolved
        ({"https://cdn.example.com/s.xml"}, True),
        ({"https://example.com/nope.xml", "https://example.com/sitemap.xml"}, True),
        ({"https://example.com/nope.xml"}, False),
        ({"ftp://example.com/s.xml"}, False),
        (set(), False),
    ],
)
def test_robots_names_any(keys: set[str], named: bool) -> None:
    assert parse_robots(ROBOTS, url=ROBOTS_URL).names_any(frozenset(keys)) is named


_LINES = st.sampled_from(
    [
        "User-agent: *",
        "user-agent: Googlebot",
        "Allow: /",
        "Allow: /private$",
        "Disallow:",
        "Disallow:   # nothing",
        "Sitemap: https://example.com/s.xml",
        "Crawl-delay: 5",
        "# Disallow: /commented",
        "",
        "Disallow: /private",
        "Disallow: *",
        "disallow:/a",
        "Dissallow: /typo",  # protego reads some misspellings
        "\ufeffDisallow: /bom",
        "Noindex: /x",
        "Disallow: /Private/",
        "Disallow: /a/b.html # old",
        "Disallow: /~user",
    ]
)
_PATHS = st.sampled_from(
    ["/", "/private", "/private/x", "/a", "/typo", "/bom", "/x.pdf", "/Private/x", "/PRIVATE",
     "/%70rivate", "/a/b.html", "/a/b%2Ehtml", "/~user/x", "/%7Euser", "?q=/private", "#/a",
     "/x?/private", "/\u00e9/private", "/a/../private", ""]
)  # fmt: skip


@given(lines=st.lists(_LINES, max_size=8), path=_PATHS, agent=st.sampled_from(["*", "googlebot"]))
def test_a_robots_txt_that_cannot_block_allows_what_protego_allows(
    lines: list[str], path: str, agent: str
) -> None:
    robots = parse_robots("\n".join(lines), url=ROBOTS_URL)
    assert robots.rules is not None
    protego_says = robots.rules.can_fetch(f"https://example.com{path}", agent)
    assert robots.allows(f"https://example.com{path}", agent) is protego_says
    if not robots.may_block:
        assert protego_says


def test_only_lines_that_can_forbid_make_rules_apply() -> None:
    assert not parse_robots("User-agent: *\nAllow: /\nDisallow:\n", url=ROBOTS_URL).may_block
    assert parse_robots(ROBOTS, url=ROBOTS_URL).may_block


_NOISE = st.text(st.sampled_from("Sitemap:Disallow/Allow User-agent*$#?=% \t\r\n\ufeff\x00\u00e9"))


@pytest.mark.slow
@given(text=_NOISE | st.text(), path=st.text(max_size=20))
def test_any_text_parses_and_answers(text: str, path: str) -> None:
    robots = parse_robots(text, url=ROBOTS_URL)
    url = f"https://example.com/{path}"
    assert robots.rules is not None
    # The fast paths (nothing can forbid; no plain Disallow starts the path) say what protego does.
    assert robots.allows(url, "Googlebot") is bool(robots.rules.can_fetch(url, "Googlebot"))
    if not robots.may_block:
        assert robots.rules.can_fetch(url, "Googlebot")
    for line in robots.sitemaps:
        assert line.value
        assert line.url is None or line.url.startswith(("http://", "https://", "HTTP", "Http"))
    assert robots.without_rules().sitemap_keys == robots.sitemap_keys


_SITEMAP_VALUES = st.sampled_from(
    ["https://example.com/a.xml", "HTTPS://Example.com/b.xml", "/rel.xml", "rel/x.xml",
     "//cdn.example.com/c.xml", "ftp://example.com/d.xml", "javascript:alert(1)"]
)  # fmt: skip


@given(
    lines=st.lists(
        st.tuples(
            st.booleans(), _LINES, _SITEMAP_VALUES, st.sampled_from(["Sitemap:", "sitemap :"])
        )
    )
)
def test_every_sitemap_line_is_found_on_its_line(
    lines: list[tuple[bool, str, str, str]],
) -> None:
    text_lines = [
        f"{key} {value}" if is_sitemap else other for is_sitemap, other, value, key in lines
    ]
    expected = [
        (number, value)
        for number, (is_sitemap, _, value, _) in enumerate(lines, start=1)
        if is_sitemap
    ]
    robots = parse_robots("\n".join(text_lines), url=ROBOTS_URL)
    found = [(line.line, line.value) for line in robots.sitemaps if line.line in dict(expected)]
    assert found == expected
    for line in robots.sitemaps:
        if line.value.startswith("/") and not line.value.startswith("//"):
            assert (line.url, line.relative) == (f"https://example.com{line.value}", True)
        elif line.value.lower().startswith("https://"):
            assert (line.url, line.relative) == (line.value, False)
        elif line.value.startswith(("ftp:", "javascript:")):
            assert line.url is None
