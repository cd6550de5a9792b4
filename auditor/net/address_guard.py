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
    """The address a host is, when it is one; None for a name.

    An IPv6 literal (brackets removed), or an IPv4 address in any spelling a URL allows, in
    dotted decimal: `2852039166`, `0251.0376.0251.0376` and `169.254.169.254.` are all
    169.254.169.254, as libcurl and browsers read them.
    """
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return ipv4_spelling(bare)
    return bare


def ipv4_spelling(host: str) -> str | None:
    """The IPv4 address a host spells, in dotted decimal; None when it spells none.

    WHATWG URL Standard, "IPv4 parser": one to four numbers (decimal, octal with a leading 0,
    hex with 0x; one trailing dot allowed), the last one filling the bytes left.
    """
    parts = host.split(".")
    if len(parts) > 1 and not parts[-1]:
        parts.pop()
    numbers = [_ipv4_number(part) for part in parts]
    if not 0 < len(numbers) <= _IPV4_PARTS or None in numbers:
        return None
    *leading, last = [number for number in numbers if number is not None]
    if any(number > _BYTE for number in leading) or last >= 256 ** (_IPV4_PARTS - len(leading)):
        return None
    value = last + sum(number << (8 * (3 - index)) for index, number in enumerate(leading))
    return str(ipaddress.IPv4Address(value))


_IPV4_PARTS = 4
_BYTE = 255
_MAX_PART_CHARS = 40  # more digits than any 32-bit number needs, in any base (int() limits)
_DIGITS = {
    10: frozenset("0123456789"),
    8: frozenset("01234567"),
    16: frozenset("0123456789abcdefABCDEF"),
}


def _ipv4_number(part: str) -> int | None:
    """One part of an IPv4 spelling: `0x` hex, a leading `0` octal, else decimal."""
    if not part or len(part) > _MAX_PART_CHARS:
        return None
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not digits:
        return 0  # "0x" alone
    return int(digits, base) if set(digits) <= _DIGITS[base] else None
