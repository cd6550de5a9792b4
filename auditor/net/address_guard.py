"""Which IP addresses the private-address guard refuses. Pure: no I/O.

See docs/explanation/design.md#private-addresses.
"""

from __future__ import annotations

import ipaddress
from enum import StrEnum

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class Reach(StrEnum):
    """Which addresses a run may connect to."""

    PUBLIC = "public"  # the targets are public: globally reachable addresses only
    # A target is private (a staging site): its own kind of network too, loopback and private
    # ranges; never link-local (169.254.169.254 is cloud metadata), multicast or unspecified.
    PRIVATE = "private"
    ANY = "any"  # --allow-private


# IPv6 prefixes whose last 32 bits are an IPv4 address that traffic may reach: NAT64's
# well-known prefix (RFC 6052) and the deprecated IPv4-compatible addresses (RFC 4291 §2.5.5.1).
_CARRYING_V4 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("::/96"))
_V4_BITS = 0xFFFFFFFF


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone ("fe80::1%eth0")
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return _carried(address) or address
    return address


def _carried(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4, compatible): judged by it."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if any(address in network for network in _CARRYING_V4) and int(address) > 1:  # not :: or ::1
        return ipaddress.IPv4Address(int(address) & _V4_BITS)
    return None


def is_public_address(text: str) -> bool:
    """Whether an IP address is globally reachable.

    Not loopback, private, link-local (cloud metadata at 169.254.169.254), shared, reserved or
    multicast; an IPv6 address carrying an IPv4 one (mapped, NAT64, 6to4) is judged by it.
    """
    address = _address(text)
    return address is not None and address.is_global and not address.is_multicast


def address_allowed(text: str, reach: Reach) -> bool:
    """Whether a run of this reach may connect to the address."""
    if reach is Reach.ANY or is_public_address(text):
        return True
    address = _address(text)
    if reach is Reach.PUBLIC or address is None:
        return False
    local = address.is_loopback or address.is_private
    return local and not (address.is_link_local or address.is_multicast or address.is_unspecified)


def ip_literal(host: str) -> str | None:
    """The host itself when it is an IP address (brackets of an IPv6 literal removed)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return None
    return bare
