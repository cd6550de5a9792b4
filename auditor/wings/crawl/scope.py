"""Where the crawl may go: the targets' origins, their `www.` aliases, and hosts the user adds.

A link leaves the site when its scheme, host or port differs from every origin in scope (the
sitemaps.org location rule's same-origin test, auditor.urls.Scope); `www.example.com` and
`example.com` are one site to the crawl, as Search Console's "Path mismatch: missing www"
treats them. Pure: no I/O.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from auditor.urls import DEFAULT_PORTS, HttpUrl, parse_http_url


@dataclass(frozen=True, slots=True)
class CrawlScope:
    """The origins the crawl follows links into, as (scheme, host, port)."""

    origins: frozenset[tuple[str, str, int]]

    @classmethod
    def of(cls, urls: Iterable[str], *, hosts: Iterable[str] = ()) -> CrawlScope:
        """The origins of `urls` with their `www.` aliases.

        `hosts` (`host[:port]`) are added under each scheme of `urls`.
        """
        origins: set[tuple[str, str, int]] = set()
        for text in urls:
            parsed = parse_http_url(text)
            if parsed is None:
                continue
            for host in _aliases(parsed.host):
                origins.add((parsed.scheme, host, parsed.port))
        schemes = {scheme for scheme, _, _ in origins}
        for extra in hosts:
            for scheme in schemes:
                parsed = parse_http_url(f"{scheme}://{extra.strip().rstrip('/')}/")
                if parsed is not None:
                    for host in _aliases(parsed.host):
                        origins.add((scheme, host, parsed.port))
        return cls(frozenset(origins))

    def contains(self, url: HttpUrl) -> bool:
        """Whether the crawl may follow a link to `url`."""
        return (url.scheme, url.host, url.port) in self.origins

    def origin_urls(self) -> list[str]:
        """Each origin as `scheme://host[:port]`, sorted (the report says them)."""
        found = []
        for scheme, host, port in sorted(self.origins):
            shown = f"[{host}]" if ":" in host else host
            suffix = "" if port == DEFAULT_PORTS[scheme] else f":{port}"
            found.append(f"{scheme}://{shown}{suffix}")
        return found


def _aliases(host: str) -> tuple[str, ...]:
    """The host and its `www.` twin; an IP address or a bare name (`localhost`) has none."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return (host,)
    if host.startswith("www."):
        return (host, host.removeprefix("www."))
    if "." not in host and host != "localhost":
        return (host,)
    return (host, f"www.{host}")
