"""Which IP addresses the private-address guard refuses (DESIGN §7). Pure: no I/O."""

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


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone ("fe80::1%eth0")
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # judged by its IPv4 address
    return address


def is_public_address(text: str) -> bool:
    """Whether an IP address is globally reachable.

    Not loopback, private, link-local (cloud metadata at 169.254.169.254), shared, reserved or
    multicast; an IPv4-mapped IPv6 address is judged by its IPv4 address.
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
