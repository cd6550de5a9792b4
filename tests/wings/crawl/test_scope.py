"""Where the crawl may go (auditor.wings.crawl.scope). Pure."""

from __future__ import annotations

import pytest

from auditor.urls import parse_http_url
from auditor.wings.crawl.scope import CrawlScope

SCOPE = CrawlScope.of(["https://example.com/"], hosts=["shop.example.net"])


@pytest.mark.parametrize(
    ("url", "inside"),
    [
        ("https://example.com/a", True),
        ("https://www.example.com/a", True),  # the www. alias
        ("https://EXAMPLE.com:443/a", True),  # the same origin, written otherwise
        ("http://example.com/a", False),  # another scheme
        ("https://example.com:8443/a", False),  # another port
        ("https://blog.example.com/a", False),  # another host
        ("https://shop.example.net/a", True),  # added
        ("https://www.shop.example.net/a", True),  # ... with its alias
        ("http://shop.example.net/a", False),  # added under the targets' schemes only
    ],
)
def test_scope(url: str, inside: bool) -> None:
    parsed = parse_http_url(url)
    assert parsed is not None
    assert SCOPE.contains(parsed) is inside


def test_a_www_target_has_the_bare_host_as_alias() -> None:
    scope = CrawlScope.of(["https://www.example.com/sitemap.xml"])
    assert scope.origin_urls() == ["https://example.com", "https://www.example.com"]


def test_an_address_and_a_bare_name_have_no_alias() -> None:
    scope = CrawlScope.of(["http://127.0.0.1:8080/", "http://intranet/"])
    assert scope.origin_urls() == ["http://127.0.0.1:8080", "http://intranet"]
