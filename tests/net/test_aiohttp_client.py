"""The aiohttp transport on its own, against real loopback servers: what only it does.

The check path's and the sitemap reader's tests run on it too; this covers a body aiohttp's
C parser leaves open when its connection closes (auditor.net.client._BodyWatch).
"""

from __future__ import annotations

import asyncio

import pytest

from auditor.codes import Code
from auditor.demo.server import serve
from auditor.errors import FetchError
from auditor.net.client import AiohttpResponse, HttpClient
from auditor.net.transport import ConnectionPolicy, Timeouts
from tests.fault_server import broken_chunked_late

# A hung read ends at the idle bound as net.timeout, which the test tells from net.protocol.
TIMEOUTS = Timeouts(total_s=10.0, idle_s=5.0)


async def read_to_end(response: AiohttpResponse) -> None:
    while await response.read():
        pass


# 0.0: the read is waiting when the body breaks; 0.6: the read comes after the break.
@pytest.mark.parametrize("wait_s", [0.0, 0.6])
async def test_a_body_broken_after_its_first_piece_fails_as_a_protocol_error(
    wait_s: float,
) -> None:
    site = serve(lambda base: {"/broken": broken_chunked_late(base)})
    async with site as served, HttpClient(ConnectionPolicy("test")) as client:
        response = await client.open(f"{served.base}/broken", timeouts=TIMEOUTS)
        async with response:
            assert response.status == 200
            assert (await response.read()).startswith(b"<?xml")
            await asyncio.sleep(wait_s)
            with pytest.raises(FetchError) as caught:
                await read_to_end(response)
    assert caught.value.code is Code.NET_PROTOCOL, caught.value.message
