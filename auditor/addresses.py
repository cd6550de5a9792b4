"""Which IP addresses the private-address guard refuses (DESIGN §7). Pure: no I/O."""

from __future__ import annotations

import ipaddress


def is_public_address(text: str) -> bool:
    """Whether an IP address is globally reachable.

    Not loopback, private, link-local (cloud metadata at 169.254.169.254), shared, reserved or
    multicast; an IPv4-mapped IPv6 address is judged by its IPv4 address.
    """
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone ("fe80::1%eth0")
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def ip_literal(host: str) -> str | None:
    """The host itself when it is an IP address (brackets of an IPv6 literal removed)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return None
    return bare
