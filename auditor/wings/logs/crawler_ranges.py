"""Whether an address is one a crawler crawls from: Google's and Bing's published ranges.

Google publishes its common crawlers' addresses in googlebot.json, Bing Bingbot's in
bingbot.json (Google Search Central, "Verifying Googlebot and other Google crawlers"; Bing
Webmaster Tools, "Verify Bingbot"), both `{"creationTime": ..., "prefixes": [{"ipv4Prefix":
...}, {"ipv6Prefix": ...}]}`. A dated snapshot of both ships with the package
(crawler_ranges.json, refreshed by `python -m auditor.wings.logs.refresh_ranges`);
`--crawler-ranges` gives newer ones. Pure: no I/O.
"""

from __future__ import annotations

import ipaddress
import json
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from auditor.wings.logs.crawler_names import Family

_KEPT = 65_536  # claims' addresses remembered (crawlers use a few thousand; spoofers more)


class Address(Enum):
    """What a log line's client address is, for a claim made from it."""

    VERIFIED = "verified"  # in the claimed crawler's published ranges
    OUTSIDE = "outside"  # a public address outside them: the claim is false
    PRIVATE = "private"  # loopback, private, link-local: a proxy's, most likely
    NOT_AN_ADDRESS = "not_an_address"  # a host name (HostnameLookups), "-", junk


@dataclass(frozen=True, slots=True)
class RangeSource:
    """Where one crawler's ranges come from, and how old they are."""

    family: Family
    creation_time: str | None  # the published file's creationTime, as written
    origin: str  # the URL it was published at, or the file it was read from
    prefixes: int


class RangesError(ValueError):
    """A ranges file that is not one (the caller names the file)."""


@dataclass(frozen=True, slots=True)
class _Spans:
    """Sorted, merged [start, end] address spans of one family and IP version."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        at = bisect_right(self.starts, value) - 1
        return at >= 0 and value <= self.ends[at]


def _spans(networks: Iterable[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> _Spans:
    merged: list[list[int]] = []
    for start, end in sorted((int(n.network_address), int(n.broadcast_address)) for n in networks):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return _Spans(tuple(span[0] for span in merged), tuple(span[1] for span in merged))


class CrawlerRanges:
    """Each crawler family's published ranges; `check` says what a claim's address is."""

    def __init__(
        self, published: Mapping[Family, Mapping[str, object]], origins: Mapping[Family, str]
    ) -> None:
        """`published`: each family's file as published (creationTime, prefixes)."""
        self._spans: dict[tuple[Family, int], _Spans] = {}
        sources = []
        for family, document in published.items():
            networks = _networks(document)
            for version in (4, 6):
                self._spans[family, version] = _spans(n for n in networks if n.version == version)
            created = document.get("creationTime")
            sources.append(
                RangeSource(
                    family,
                    created if isinstance(created, str) else None,
                    origins[family],
                    len(networks),
                )
            )
        self.sources = tuple(sources)
        self._known: dict[tuple[bytes, Family], Address] = {}

    def check(self, address: bytes, family: Family) -> Address:
        """What `address` (as logged) is for a claim to be `family`'s crawler (remembered)."""
        key = (address, family)
        known = self._known
        found = known.get(key)
        if found is None:
            if len(known) >= _KEPT:
                known.clear()
            found = known[key] = self._checked(address, family)
        return found

    def _checked(self, address: bytes, family: Family) -> Address:
        parsed = parse_address(address)
        if parsed is None:
            return Address.NOT_AN_ADDRESS
        version, value = parsed
        spans = self._spans.get((family, abs(version)))
        if spans is not None and value in spans:
            return Address.VERIFIED
        return Address.PRIVATE if version < 0 else Address.OUTSIDE


# RFC 1918 private networks, RFC 6598 shared (carrier NAT), loopback, link-local, "this" network:
# an address a proxy or a load balancer logs, never a crawler's own.
_PRIVATE_V4 = tuple(
    (int(network.network_address), int(network.broadcast_address))
    for network in map(
        ipaddress.IPv4Network,
        (
            *("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8"),
            *("169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16"),
        ),
    )
)


def parse_address(address: bytes) -> tuple[int, int] | None:
    """(IP version, integer value) of a logged address, the version negative for a private one.

    None for anything that is no IP address (a host name, `-`, junk).
    """
    parts = address.split(b".")
    if len(parts) == 4 and all(part.isdigit() and len(part) <= 3 for part in parts):
        a, b, c, d = (int(part) for part in parts)
        if max(a, b, c, d) > 255:
            return None
        value = (a << 24) | (b << 16) | (c << 8) | d
        private = any(low <= value <= high for low, high in _PRIVATE_V4)
        return (-4 if private else 4), value
    return _parse_other(address)


def _parse_other(address: bytes) -> tuple[int, int] | None:
    try:
        text = address.decode("ascii")
        if text.startswith("[") and text.endswith("]"):  # an IPv6 literal as some servers log it
            text = text[1:-1]
        ip = ipaddress.ip_address(text)
    except (UnicodeDecodeError, ValueError):
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        # ::ffff:66.249.66.1, as a dual-stack socket logs an IPv4 client
        return parse_address(str(ip.ipv4_mapped).encode())
    private = ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_unspecified
    return (-ip.version if private else ip.version), int(ip)


def _networks(
    document: Mapping[str, object],
) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """The prefixes of a published file; RangesError when it has none or a bad one."""
    prefixes = document.get("prefixes")
    if not isinstance(prefixes, list) or not prefixes:
        raise RangesError('no prefixes (want {"prefixes": [{"ipv4Prefix": ...}, ...]})')
    networks = []
    for item in prefixes:
        text = None
        if isinstance(item, dict):
            text = item.get("ipv4Prefix", item.get("ipv6Prefix"))
        if not isinstance(text, str):
            raise RangesError(f"a prefix that is not one: {str(item)[:80]!r}")
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise RangesError(f"not an address range: {text[:80]!r}") from None
    return networks


def read_ranges(text: str, *, name: Family | None) -> dict[Family, dict[str, object]]:
    """The published files a ranges file holds, by family; RangesError when it is not one.

    Either our snapshot (`{"crawlers": {"googlebot": {...}, "bingbot": {...}}}`, as the refresh
    script writes it), or one crawler's file as published, for `name`.
    """
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise RangesError(f"not JSON ({exc})") from None
    if not isinstance(document, dict):
        raise RangesError("not a JSON object")
    crawlers = document.get("crawlers")
    if name is not None:
        if "prefixes" not in document:
            raise RangesError('not a published ranges file (no "prefixes")')
        _networks(document)
        return {name: document}
    if not isinstance(crawlers, dict):
        raise RangesError('no "crawlers" (give a published file as googlebot=FILE or bingbot=FILE)')
    found: dict[Family, dict[str, object]] = {}
    for key, value in crawlers.items():
        try:
            family = Family(key)
        except ValueError:
            raise RangesError(f"unknown crawler {key!r} (googlebot, bingbot)") from None
        if not isinstance(value, dict):
            raise RangesError(f"{key}: not a JSON object")
        _networks(value)
        found[family] = value
    return found
