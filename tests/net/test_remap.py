"""`--remap 'REGEX REPLACEMENT'` as lychee reads it: the first matching rule rewrites every match;
`$1`, `${1}`, `$name`, `${name}` name groups, `$$` is a dollar; the result must be http(s)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from auditor.demo.documents import Page, redirect, url
from auditor.demo.server import serve
from auditor.net.remap import Remap, origin_rule, parse_rule
from tests.helpers import run_audit
from tests.sitemap.test_parse_extensions import document


@pytest.mark.parametrize(
    ("rules", "url", "requested"),
    [
        ([], "https://a.example/x", "https://a.example/x"),
        (
            ["^https://a.example http://127.0.0.1:8000"],
            "https://a.example/x?q#f",
            "http://127.0.0.1:8000/x?q#f",
        ),
        (["a\\.example b.example"], "https://a.example/a.example", "https://b.example/b.example"),
        (
            ["^https://(\\w+)\\.example/(.*) http://$1.test/$2"],
            "https://shop.example/p/1",
            "http://shop.test/p/1",
        ),
        (
            ["^https://(?P<h>\\w+)\\.example/ http://${h}.test/"],
            "https://docs.example/",
            "http://docs.test/",
        ),
        (
            ["^https://(\\w+)\\.example/ http://${1}x.test/"],
            "https://a.example/",
            "http://ax.test/",
        ),
        (["^https://a.example/ http://b.example/$$/"], "https://a.example/", "http://b.example/$/"),
        (
            ["^https://a.example/ http://b.example/\\x/"],
            "https://a.example/",
            "http://b.example/\\x/",
        ),
        # the first rule that matches wins, whatever follows
        (
            ["a.example b.example", "b.example c.example"],
            "https://a.example/",
            "https://b.example/",
        ),
        (["nomatch z.example", "a.example c.example"], "https://a.example/", "https://c.example/"),
    ],
)
def test_rules_as_lychee_reads_them(rules: list[str], url: str, requested: str) -> None:
    assert Remap.of(rules).requested(url) == requested


@pytest.mark.parametrize(
    "text",
    ["just-a-pattern", "a b c", "", "(unclosed http://x.example/", "(?<=look)behind http://x/"],
)
def test_a_rule_that_cannot_be_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        parse_rule(text)


def test_a_rule_that_makes_no_http_url_fails_that_request() -> None:
    remap = Remap.of(["^https:// ftp://"])
    with pytest.raises(ValueError, match="--remap"):
        remap.requested("https://a.example/")
    assert remap.shown("https://a.example/") is None
    assert remap.requested("http://a.example/") == "http://a.example/"  # no rule matches


@pytest.mark.parametrize(
    ("url", "requested"),
    [
        ("https://docs.example.com/", "http://127.0.0.1:9/"),
        ("https://docs.example.com", "http://127.0.0.1:9"),
        ("https://docs.example.com:443/a/?b#c", "http://127.0.0.1:9/a/?b#c"),
        ("HTTPS://Docs.Example.COM/a", "http://127.0.0.1:9/a"),
        # Not that origin: another scheme, port, or a longer host name.
        ("http://docs.example.com/a", "http://docs.example.com/a"),
        ("https://docs.example.com:8443/a", "https://docs.example.com:8443/a"),
        ("https://docs.example.com.evil.example/a", "https://docs.example.com.evil.example/a"),
        (
            "https://other.example/https://docs.example.com/",
            "https://other.example/https://docs.example.com/",
        ),
    ],
)
def test_an_origin_rule_maps_that_origin_alone(url: str, requested: str) -> None:
    remap = Remap.of([origin_rule("https://docs.example.com", "http://127.0.0.1:9")])
    assert remap.requested(url) == requested


def test_an_origin_with_its_own_port_and_an_ipv6_host() -> None:
    remap = Remap.of([origin_rule("http://[::1]:8080", "http://127.0.0.1:9")])
    assert remap.requested("http://[::1]:8080/x") == "http://127.0.0.1:9/x"
    assert remap.requested("http://[::1]/x") == "http://[::1]/x"


HTML = {"Content-Type": "text/html"}


def staging_routes(production: str) -> Callable[[str], dict[str, Page]]:
    """The build under test: it names production's URLs everywhere, as a generator would."""

    def routes(_base: str) -> dict[str, Page]:
        a, fr = f"{production}/a", f"{production}/fr"
        links = (
            f'<xhtml:link rel="alternate" hreflang="en" href="{a}"/>'
            f'<xhtml:link rel="alternate" hreflang="fr" href="{fr}"/>'
        )
        listed = [url(a, extra=links), url(f"{production}/old"), url(f"{production}/canon")]
        canonical = f'<html><head><link rel="canonical" href="{production}/c"></head></html>'
        page = b'<html><head><link rel="alternate" hreflang="en" href="/a"></head></html>'
        return {
            "/robots.txt": Page(200, b"User-agent: *\nAllow: /\n"),
            "/sitemap.xml": Page(200, document(*listed), {"Content-Type": "application/xml"}),
            "/a": Page(200, page, HTML),
            "/fr": Page(200, b"<html><head></head></html>", HTML),
            "/old": redirect(301, a),  # an absolute Location on production's name
            "/canon": Page(200, canonical.encode(), HTML),
            "/c": Page(200, b"<html><head></head></html>", HTML),  # where the canonical leads
        }

    return routes


@pytest.mark.usefixtures("engine")
async def test_every_request_goes_where_the_rule_says_and_reports_name_the_site(
    tmp_path: Path,
) -> None:
    """robots.txt, the sitemap, listed URLs, a redirect's hop, a canonical, an alternate."""
    async with (
        serve(lambda _base: {}) as production,  # counts every request it gets
        serve(staging_routes(production.base)) as staging,
    ):
        rule = origin_rule(production.base, staging.base)
        audited = await run_audit(
            tmp_path, f"{production.base}/sitemap.xml", no_check=False, remap=(rule,)
        )
        asked = dict(staging.hits)
    assert dict(production.hits) == {}
    assert {"/robots.txt", "/sitemap.xml", "/a", "/fr", "/old", "/canon", "/c"} <= set(asked)
    by_loc = {entry["loc"]: entry for entry in audited.report["urls"]}
    assert set(by_loc) == {f"{production.base}/{p}" for p in ("a", "fr", "old", "canon")}
    for loc, entry in by_loc.items():
        assert entry["remapped"] == loc.replace(production.base, staging.base)
        assert not any(item["code"].startswith("net.") for item in entry["findings"])
    moved = by_loc[f"{production.base}/old"]
    assert moved["final_url"] == f"{production.base}/a"  # named as the site names it
    assert [item["code"] for item in moved["findings"]] == ["redirect.permanent"]
    [sitemap] = [s for s in audited.report["sitemaps"] if s["url"].endswith("/sitemap.xml")]
    assert sitemap["remapped"] == f"{staging.base}/sitemap.xml"
    assert audited.report["config"]["remap"] == [rule]
