"""The private-address guard's classification (docs/explanation/design.md#private-addresses)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.net.address_guard import Reach, address_allowed, ip_literal, is_public_address


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("93.184.216.34", True),
        ("2001:4860:4860::8888", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),  # cloud metadata
        ("100.64.0.1", False),  # shared address space (carrier-grade NAT)
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("::1", False),
        ("fc00::1", False),
        ("fe80::1%eth0", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped loopback
        ("::ffff:8.8.8.8", True),
        ("64:ff9b::a9fe:a9fe", False),  # 169.254.169.254 through a NAT64 gateway
        ("64:ff9b::8.8.8.8", True),
        ("2002:7f00:1::1", False),  # 6to4 of 127.0.0.1
        ("::127.0.0.1", False),  # IPv4-compatible (deprecated)
        ("not an address", False),
    ],
)
def test_is_public_address(address: str, public: bool) -> None:
    assert is_public_address(address) is public


@pytest.mark.parametrize(
    ("host", "literal"),
    [("127.0.0.1", "127.0.0.1"), ("[::1]", "::1"), ("::1", "::1"), ("example.com", None)],
)
def test_ip_literal(host: str, literal: str | None) -> None:
    assert ip_literal(host) == literal


# --- properties -----------------------------------------------------------------------------------

# Networks the guard must refuse to a public run, whatever the address inside them.
_REFUSED_V4 = ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
               "100.64.0.0/10", "0.0.0.0/8", "224.0.0.0/4"]  # fmt: skip
_REFUSED_V6 = ["::1/128", "fc00::/7", "fe80::/10", "ff00::/8"]


def _inside(
    networks: list[str],
) -> st.SearchStrategy[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    def pick(network: str, offset: int) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        net = ipaddress.ip_network(network)
        return net[offset % net.num_addresses]

    return st.builds(pick, st.sampled_from(networks), st.integers(0, 2**128))


# An IPv6 address can carry an IPv4 one: the guard must judge what it carries.
_CARRIERS = {
    "mapped": lambda v4: f"::ffff:{v4}",  # RFC 4291 §2.5.5.2
    "nat64": lambda v4: f"64:ff9b::{v4}",  # RFC 6052: reaches v4 through a NAT64 gateway
    "6to4": lambda v4: str(ipaddress.IPv6Address((0x2002 << 112) | (int(v4) << 80) | 1)),
    "compatible": lambda v4: f"::{v4}",  # RFC 4291 §2.5.5.1, deprecated
}


@given(address=_inside(_REFUSED_V4) | _inside(_REFUSED_V6), zone=st.sampled_from(["", "%eth0"]))
def test_no_private_address_is_public(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, zone: str
) -> None:
    text = f"{address}{zone if address.version == 6 else ''}"
    assert not is_public_address(text)
    assert not address_allowed(text, Reach.PUBLIC)
    assert address_allowed(text, Reach.ANY)
    if address.is_link_local or address.is_multicast:  # 169.254.169.254: cloud metadata
        assert not address_allowed(text, Reach.PRIVATE)


@given(
    v4=_inside(_REFUSED_V4) | _inside(["8.8.8.0/24", "93.184.216.0/24"]),
    carrier=st.sampled_from(list(_CARRIERS)),
)
def test_an_ipv6_address_carrying_an_ipv4_one_is_judged_by_it(
    v4: ipaddress.IPv4Address, carrier: str
) -> None:
    text = _CARRIERS[carrier](v4)
    for reach in Reach:
        assert address_allowed(text, reach) is address_allowed(str(v4), reach), (text, reach)
