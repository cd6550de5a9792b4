"""The private-address guard's classification (DESIGN §7)."""

from __future__ import annotations

import pytest

from auditor.addresses import ip_literal, is_public_address


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
