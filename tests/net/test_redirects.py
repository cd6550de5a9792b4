"""Redirect decisions, one hop at a time (next_hop)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.codes import Code
from auditor.models import Finding, Redirect
from auditor.net.redirects import Hop, chain_findings, is_redirect, next_hop
from auditor.urls import parse_http_url
from tests.helpers import deeper, url_key

START = "https://example.com/a/b"


@pytest.mark.parametrize(
    ("location", "url"),
    [
        ("/c", "https://example.com/c"),
        ("c", "https://example.com/a/c"),
        ("../up", "https://example.com/up"),
        ("//cdn.example.com/x", "https://cdn.example.com/x"),
        ("http://other.com/y", "http://other.com/y"),
        ("  /trimmed  ", "https://example.com/trimmed"),
        ("?page=2", "https://example.com/a/b?page=2"),
        ("/x%20y", "https://example.com/x%20y"),  # existing escapes are kept
        ("/a b/\u00e9?q=\u00fc x", "https://example.com/a%20b/%C3%A9?q=%C3%BC%20x"),
    ],
)
def test_next_hop_resolves_and_encodes(location: str, url: str) -> None:
    hop = next_hop(START, location, visited={START}, hops=0, max_redirects=10)
    assert hop == Hop(url, url_key(url))


def test_next_hop_key_is_normalised() -> None:
    hop = next_hop(START, "HTTPS://Example.COM:443/x#frag", visited=set(), hops=0, max_redirects=5)
    assert isinstance(hop, Hop)
    assert hop.key == "https://example.com/x"


@pytest.mark.parametrize(
    "location",
    [
        None,
        "",
        "   ",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "mailto:someone@example.com",
        "ftp://example.com/x",
        "http://[::1",
        "https://example.com:99999/",
        "HTTP:// [::]",  # a space in the authority (urlsplit would read the host "::")
        "HTTP://[::]\x80",  # junk after an IPv6 literal
    ],
)
def test_next_hop_bad_location(location: str | None) -> None:
    result = next_hop(START, location, visited=set(), hops=0, max_redirects=10)
    assert isinstance(result, Finding)
    assert result.code is Code.REDIRECT_BAD_LOCATION
    assert result.url == START


@pytest.mark.parametrize(
    "location", ["https://example.com/a/b", "HTTPS://EXAMPLE.COM:443/a/b#x", "/a/b", "b"]
)
def test_next_hop_loop(location: str) -> None:
    result = next_hop(
        START, location, visited={"https://example.com/a/b"}, hops=1, max_redirects=10
    )
    assert isinstance(result, Finding)
    assert result.code is Code.REDIRECT_LOOP


def test_next_hop_loop_to_an_earlier_hop() -> None:
    visited = {"https://example.com/first", "https://example.com/a/b"}
    result = next_hop(START, "/first", visited=visited, hops=2, max_redirects=10)
    assert isinstance(result, Finding)
    assert result.code is Code.REDIRECT_LOOP


@pytest.mark.parametrize(
    ("hops", "max_redirects", "allowed"),
    [(0, 10, True), (9, 10, True), (10, 10, False), (11, 10, False), (0, 0, False), (0, 1, True)],
)
def test_next_hop_too_many(hops: int, max_redirects: int, allowed: bool) -> None:
    result = next_hop(START, "/next", visited=set(), hops=hops, max_redirects=max_redirects)
    if allowed:
        assert isinstance(result, Hop)
    else:
        assert isinstance(result, Finding)
        assert result.code is Code.REDIRECT_TOO_MANY
        assert result.detail == {"max_redirects": max_redirects}


@pytest.mark.parametrize(
    ("status", "redirect"),
    [
        (301, True),
        (302, True),
        (303, True),
        (307, True),
        (308, True),
        (300, False),
        (304, False),
        (200, False),
        (404, False),
    ],
)
def test_is_redirect(status: int, redirect: bool) -> None:
    assert is_redirect(status) is redirect


@pytest.mark.parametrize(
    ("chain", "final", "codes"),
    [
        ([], "http://a.example/x", []),
        ([("http://a.example/x", 301)], "http://a.example/y", ["redirect.permanent"]),
        ([("http://a.example/x", 308)], "http://a.example/y", ["redirect.permanent"]),
        ([("http://a.example/x", 302)], "http://a.example/y", ["redirect.temporary"]),
        ([("http://a.example/x", 303)], "http://a.example/y", ["redirect.temporary"]),
        ([("http://a.example/x", 307)], "http://a.example/y", ["redirect.temporary"]),
        (
            [("http://a.example/x", 301), ("http://a.example/y", 302)],
            "http://a.example/z",
            ["redirect.temporary", "redirect.chain"],
        ),
        (
            [("https://a.example/x", 301)],
            "http://a.example/x",
            ["redirect.permanent", "redirect.https_downgrade"],
        ),
        ([("http://a.example/x", 301)], "https://a.example/x", ["redirect.permanent"]),
        (
            [("http://a.example/x", 301)],
            "http://www.a.example/x",
            ["redirect.other_host"],  # one finding for a moved URL: its status in the detail
        ),
        (
            [("http://a.example/x", 301)],
            "http://a.example:8080/x",
            ["redirect.other_host"],
        ),
        (
            [("http://a.example/old/product", 301)],
            "http://a.example/",
            ["redirect.permanent", "redirect.to_root"],
        ),
        # The home page's own index document sent to its folder: canonicalisation, no soft 404.
        ([("http://a.example/index.html", 301)], "http://a.example/", ["redirect.permanent"]),
        ([("http://a.example/Index.PHP", 301)], "http://a.example/", ["redirect.permanent"]),
        ([("http://a.example/default.aspx", 302)], "http://a.example/", ["redirect.temporary"]),
        (
            [("http://a.example/en/index.html", 301)],
            "http://a.example/",
            ["redirect.permanent", "redirect.to_root"],
        ),
    ],
)
def test_chain_findings(chain: list[tuple[str, int]], final: str, codes: list[str]) -> None:
    hops = [Redirect(url, status) for url, status in chain]
    loc = chain[0][0] if chain else final
    assert [item.code.value for item in chain_findings(loc, hops, final)] == codes


def test_a_non_ascii_host_is_idna_encoded_and_the_path_percent_encoded() -> None:
    hop = next_hop(
        START, "https://bücher.example/straße?q=ü#teil", visited=set(), hops=0, max_redirects=5
    )
    assert isinstance(hop, Hop)
    assert hop.url == "https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC#teil"
    user = next_hop(START, "http://\u00fc@bücher.example/", visited=set(), hops=0, max_redirects=5)
    assert isinstance(user, Hop)
    assert user.url == "http://%C3%BC@xn--bcher-kva.example/"  # user info encoded too
    bad = next_hop(START, "http://a\u3002\udcff.example/", visited=set(), hops=0, max_redirects=5)
    assert isinstance(bad, Finding)
    assert bad.code is Code.REDIRECT_BAD_LOCATION


# --- properties -----------------------------------------------------------------------------------

_LOCATIONS = st.one_of(
    st.text(max_size=30),
    st.lists(
        st.sampled_from(
            ["https://", "http://", "//", "ftp:", "javascript:", "example.com", "other.org",
             ":8080", "/", "..", ".", "a b", "\u00e9", "\u2603.com", "?q=1", "#f", "%zz", "%41",
             "[::1]", "[", "@", " ", "\t", "\x00", "xn--", "\ud800"]
        ),
        max_size=8,
    ).map("".join),
)  # fmt: skip
_BAD = {Code.REDIRECT_BAD_LOCATION, Code.REDIRECT_TOO_MANY, Code.REDIRECT_LOOP}


@deeper(2)
@given(
    url=st.sampled_from([START, "http://example.com:8080/x?y#frag", "https://[::1]/"]),
    location=st.none() | _LOCATIONS,
    hops=st.integers(0, 12),
    max_redirects=st.integers(0, 10),
    seen_start=st.booleans(),
)
def test_next_hop_is_a_hop_to_an_unseen_http_url_or_a_redirect_finding(
    url: str, location: str | None, hops: int, max_redirects: int, seen_start: bool
) -> None:
    visited = {url_key(url)} if seen_start else set()
    decided = next_hop(url, location, visited=visited, hops=hops, max_redirects=max_redirects)
    if isinstance(decided, Finding):
        assert decided.code in _BAD
        assert decided.url == url
        return
    assert hops < max_redirects
    parsed = parse_http_url(decided.url)
    assert parsed is not None
    assert parsed.key == decided.key
    assert decided.key not in visited
    assert decided.url.isascii()  # what goes on the wire is encoded
    assert not any(c in decided.url for c in " \t\r\n\x00")
