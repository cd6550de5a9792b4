"""TARGET arguments: site, robots.txt, sitemap URL, local file."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.config import Target, TargetKind
from auditor.discovery.targets import parse_target
from auditor.errors import TargetError


def no_files(_path: Path) -> bool:
    return False


@pytest.mark.parametrize(
    ("text", "kind", "url"),
    [
        ("https://example.com", TargetKind.SITE, "https://example.com/"),
        ("https://example.com/", TargetKind.SITE, "https://example.com/"),
        ("HTTPS://Example.COM:443/blog/", TargetKind.SITE, "https://example.com/blog/"),
        ("http://example.com:8080/", TargetKind.SITE, "http://example.com:8080/"),
        ("https://example.com/robots.txt", TargetKind.ROBOTS, "https://example.com/robots.txt"),
        ("https://example.com/sitemap.xml", TargetKind.SITEMAP, "https://example.com/sitemap.xml"),
        ("https://example.com/?sitemap=1", TargetKind.SITEMAP, "https://example.com/?sitemap=1"),
        ("example.com", TargetKind.SITE, "https://example.com/"),
        ("www.example.co.uk/maps/", TargetKind.SITE, "https://www.example.co.uk/maps/"),
        ("example.com/sitemap.xml", TargetKind.SITEMAP, "https://example.com/sitemap.xml"),
        # a bare host:port: the two well-known ports say their scheme (RFC 9110 §4.2)
        ("example.com:443", TargetKind.SITE, "https://example.com/"),
        ("localhost:80/sitemap.xml", TargetKind.SITEMAP, "http://localhost:80/sitemap.xml"),
    ],
)
def test_url_targets(text: str, kind: TargetKind, url: str) -> None:
    target = parse_target(text, is_file=no_files)
    assert target == Target(text, kind, url)


@pytest.mark.parametrize(
    "text", ["127.0.0.1:18090", "localhost:8000/sitemap.xml", "example.com:8443", "[::1]:8080/"]
)
def test_a_bare_host_and_port_asks_which_scheme(text: str) -> None:
    """Taken as https, a plain-http dev server failed every request with a TLS error, exit 1."""
    with pytest.raises(TargetError) as raised:
        parse_target(text, is_file=no_files)
    assert f"http://{text}" in str(raised.value)  # the suggestion is a URL that can be pasted


def test_local_file_target() -> None:
    asked: list[Path] = []

    def is_file(path: Path) -> bool:
        asked.append(path)
        return path == Path("maps/sitemap.xml")

    target = parse_target("maps/sitemap.xml", is_file=is_file)
    absolute = Path("maps/sitemap.xml").absolute()
    assert target == Target("maps/sitemap.xml", TargetKind.SITEMAP, absolute.as_uri(), absolute)
    assert Path("maps/sitemap.xml") in asked
    assert target.label == "sitemap"


def test_file_uri_target_is_unquoted() -> None:
    def is_file(path: Path) -> bool:
        return path == Path("/srv/data/my maps.xml")

    target = parse_target("file:///srv/data/my%20maps.xml", is_file=is_file)
    assert target.kind is TargetKind.SITEMAP
    assert target.path == Path("/srv/data/my maps.xml")
    assert target.url == "file:///srv/data/my%20maps.xml"


@pytest.mark.parametrize("text", ["/srv/site/robots.txt", "file:///srv/site/robots.txt"])
def test_local_robots_target(text: str) -> None:
    def is_file(path: Path) -> bool:
        return path == Path("/srv/site/robots.txt")

    target = parse_target(text, is_file=is_file)
    assert target.kind is TargetKind.ROBOTS
    assert target.path == Path("/srv/site/robots.txt")


def test_url_target_label_is_the_host() -> None:
    assert parse_target("https://Shop.Example.com/s.xml", is_file=no_files).label == (
        "shop.example.com"
    )


@pytest.mark.parametrize(
    "text",
    [
        "nonsense",
        "ftp://example.com/sitemap.xml",
        "file:///srv/missing.xml",
        "https://",
        "https://exa mple.com/",
        "http://[::1",
        "",
        "example",
        # A file name that is no existing file, never a host (no domain ends in .xml or .txt).
        "sitemap.xml",
        "sitemap.xml.gz",
        "SITEMAP.XML",
        "urls.txt",
        "sitemap.xml/",
        "sitemap_index.xml/extra",
    ],
)
def test_target_errors(text: str) -> None:
    with pytest.raises(TargetError):
        parse_target(text, is_file=no_files)


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "example.com.",  # the root's dot
        "a" * 63 + ".example",
        "_dmarc.example.com",  # no letter rule: DNS labels are octets
        "xn--bcher-kva.de",
        "b\u00fccher.de",
        "127.0.0.1",
        "[::1]",
        "c" * 60 + "." + "d" * 60 + "." + "e" * 60 + "." + "f" * 60 + ".com",  # 248 characters
    ],
)
def test_a_host_any_resolver_takes_is_a_target(host: str) -> None:
    assert parse_target(f"https://{host}/", is_file=no_files).kind is TargetKind.SITE


@pytest.mark.parametrize(
    "host",
    ["..", "a..b", ".a", "a.b..", "a" * 64 + ".example", "b" * 250 + ".example"],
)
def test_a_host_no_resolver_takes_is_refused(host: str) -> None:
    """RFC 1035 §2.3.4: labels of 1 to 63 characters, 253 in all."""
    with pytest.raises(TargetError):
        parse_target(f"http://{host}/sitemap.xml", is_file=no_files)
