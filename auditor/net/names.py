"""Host names looked up: whether a target is itself private (a staging site).

Through the event loop's getaddrinfo, whichever transport the run uses.
See docs/explanation/design.md#private-addresses.
"""

from __future__ import annotations

import asyncio
import socket

from auditor.net.address_guard import ip_literal, is_public_address


async def is_private_host(host: str) -> bool:
    """Whether a host is, or resolves to, a private address (a staging site).

    A name that does not resolve is not private: its requests will fail on their own.
    """
    literal = ip_literal(host)
    if literal is not None:
        return not is_public_address(literal)
    if host.rstrip(".").lower().endswith(".invalid"):
        return False
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):  # UnicodeError: a label idna refuses (empty, too long)
        return False
    return any(not is_public_address(str(info[4][0])) for info in infos)
