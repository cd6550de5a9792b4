"""The private-address guard on real loopback requests: addresses, names, redirects.

Each test runs with both transports of the URL checks (the `engine` fixture): aiohttp's guard
sits in its resolver, libcurl's on the address it is about to connect to (OPENSOCKETFUNCTION).

See docs/explanation/design.md#private-addresses.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from aiohttp.abc import AbstractResolver, ResolveResult

from auditor.codes import Code
from auditor.config import Engine
from auditor.demo.documents import Page, redirect, sitemapindex, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.errors import BlockedAddressError, FetchError
from auditor.net.address_guard import Reach
from auditor.net.client import HttpClient, Timeouts, _Resolver
from auditor.net.curl_client import CurlTransport
from auditor.net.transport import ConnectionPolicy, Transport
from tests.helpers import run_audit

pytestmark = pytest.mark.usefixtures("engine")


def children(base: str) -> list[str]:
    by_name = base.replace("127.0.0.1", "localhost")  # resolves (through /etc/hosts) to loopback
    return [f"{base}/by-ip.xml", f"{by_name}/by-name.xml"]


@pytest.mark.parametrize("allow_private", [False, True])
async def test_a_public_run_refuses_private_addresses(tmp_path: Path, allow_private: bool) -> None:
    def routes(base: str) -> dict[str, Page]:
        return {
            "/by-ip.xml": xml_page(urlset([url(f"{base}/a")])),
            "/by-name.xml": xml_page(urlset([url(f"{base}/b")])),
        }

    async with serve(routes) as served:
        index = tmp_path / "index.xml"  # a local file: neither public nor private itself
        index.write_text(sitemapindex(children(served.base)))
        audited = await run_audit(tmp_path, str(index), allow_private=allow_private)
        hits = dict(served.hits)
    blocked = audited.codes()["net.blocked_address"]
    if allow_private:
        assert (blocked, hits) == (0, {"/by-ip.xml": 1, "/robots.txt": 2, "/by-name.xml": 1})
    else:
        assert (blocked, hits) == (2, {})  # refused before any connection


async def test_a_private_target_allows_private_addresses(tmp_path: Path) -> None:
    async with serve(lambda base: {"/s.xml": xml_page(urlset([url(f"{base}/a")]))}) as served:
        audited = await run_audit(tmp_path, f"{served.base}/s.xml", allow_private=False)
    assert audited.codes()["net.blocked_address"] == 0
    assert audited.report["summary"]["urls"] == 1


# --- names that resolve to refused addresses (a resolver seam: no DNS, loopback only) -----------


class FixedResolver(AbstractResolver):
    """Answers every name with the same addresses: DNS as an attacker would set it up."""

    def __init__(self, *addresses: str) -> None:
        self.addresses = addresses
        self.asked: list[str] = []

    def answer(self, host: str) -> tuple[str, ...]:
        """The seam of the curl transport (CURLOPT_RESOLVE): the same answers."""
        self.asked.append(host)
        return self.addresses

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        return [
            ResolveResult(
                hostname=host,
                host=address,
                port=port,
                family=socket.AF_INET6 if ":" in address else socket.AF_INET,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
            for address in self.addresses
        ]

    async def close(self) -> None:
        pass


TIMEOUTS = Timeouts(total_s=2.0, idle_s=None)
LOOPBACK_AND_PRIVATE = [
    *["127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.0.1", "192.168.1.1", "::1", "fc00::1"],
    *["fd00:ec2::254", "::ffff:127.0.0.1", "64:ff9b::a00:1"],
]
# Refused even to a run whose target is private: cloud metadata, link-local, unspecified.
NEVER = ["169.254.169.254", "fe80::1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "0.0.0.0",
         "::", "224.0.0.1", "100.64.0.1"]  # fmt: skip


def transport(engine: Engine, reach: Reach, resolver: FixedResolver | None) -> Transport:
    """One transport of `engine`, its names answered by `resolver` (no DNS)."""
    if engine is Engine.AIOHTTP:
        return HttpClient(ConnectionPolicy("test", reach=reach), resolver=resolver)
    answer = resolver.answer if resolver is not None else None
    return CurlTransport(ConnectionPolicy("test", reach=reach), resolve=answer)


async def fetch_status(
    url: str, reach: Reach, resolver: FixedResolver | None = None, *, engine: Engine
) -> int:
    """The status of one GET, or raise FetchError."""
    client = transport(engine, reach, resolver)
    assert isinstance(client, HttpClient | CurlTransport)
    async with client, await client.open(url, timeouts=TIMEOUTS) as response:
        return response.status


@pytest.mark.parametrize(
    ("reach", "address"),
    [(Reach.PUBLIC, address) for address in LOOPBACK_AND_PRIVATE + NEVER]
    + [(Reach.PRIVATE, address) for address in NEVER],
)
async def test_a_name_resolving_to_a_refused_address_is_never_connected(
    reach: Reach, address: str, engine: Engine
) -> None:
    resolver = FixedResolver(address)
    async with serve(lambda base: {"/": Page(200, b"secret")}) as served:
        name = served.base.replace("127.0.0.1", "metadata.test")
        with pytest.raises(FetchError) as caught:
            await fetch_status(f"{name}/", reach, resolver, engine=engine)
        hits = dict(served.hits)
    assert caught.value.code is Code.NET_BLOCKED_ADDRESS
    assert (resolver.asked, hits) == (["metadata.test"], {})


@pytest.mark.parametrize("reach", [Reach.PRIVATE, Reach.ANY])
async def test_the_resolver_seam_leads_to_loopback_when_allowed(
    reach: Reach, engine: Engine
) -> None:
    """The control for the test above: the same name and seam do reach the server."""
    resolver = FixedResolver("127.0.0.1")
    async with serve(lambda base: {"/": Page(200, b"ok")}) as served:
        name = served.base.replace("127.0.0.1", "metadata.test")
        assert await fetch_status(f"{name}/", reach, resolver, engine=engine) == 200
        hits = dict(served.hits)
    assert (resolver.asked, hits) == (["metadata.test"], {"/": 1})


@pytest.mark.parametrize(
    "answer",
    [("169.254.169.254", "127.0.0.1"), ("127.0.0.1", "169.254.169.254")],
    ids=["refused_first", "refused_after"],
)
async def test_a_name_answering_a_refused_address_beside_an_allowed_one_reaches_the_allowed(
    answer: tuple[str, str], engine: Engine
) -> None:
    """A private run: loopback allowed, cloud metadata never, whichever comes first.

    No packet leaves the machine: the refused address is judged before any connection to it.
    """
    resolver = FixedResolver(*answer)
    async with serve(lambda base: {"/": Page(200, b"ok")}) as served:
        name = served.base.replace("127.0.0.1", "mixed.test")
        assert await fetch_status(f"{name}/", Reach.PRIVATE, resolver, engine=engine) == 200
        hits = dict(served.hits)
    assert hits == {"/": 1}


class Rebinding(FixedResolver):
    """DNS rebinding: the first answer allowed, every later one refused."""

    def answer(self, host: str) -> tuple[str, ...]:
        self.asked.append(host)
        return self.addresses[:1] if len(self.asked) == 1 else self.addresses[1:]


async def test_libcurl_judges_the_address_of_each_new_connection() -> None:
    """A name that answers an allowed address, then a refused one (rebinding): the guard judges
    the address each new connection goes to, so the second is never connected. (aiohttp's
    guard judges each look-up's answers, which its DNS cache keeps for 300 s.)
    """
    resolver = Rebinding("127.0.0.1", "169.254.169.254")
    closing = Page(200, b"ok", {"Connection": "close"})  # no connection left to reuse
    async with serve(lambda base: {"/": closing}) as served:
        name = served.base.replace("127.0.0.1", "rebind.test")
        curl = CurlTransport(ConnectionPolicy("test", reach=Reach.PRIVATE), resolve=resolver.answer)
        async with curl:
            first = await curl.open(f"{name}/", timeouts=TIMEOUTS)
            with pytest.raises(FetchError) as caught:
                await curl.open(f"{name}/", timeouts=TIMEOUTS)
        hits = dict(served.hits)
    assert (first.status, caught.value.code) == (200, Code.NET_BLOCKED_ADDRESS)
    assert (resolver.asked, hits) == (["rebind.test", "rebind.test"], {"/": 1})


async def test_refused_answers_are_dropped_and_the_rest_kept() -> None:
    """DNS rebinding: a name that answers a public and a private address keeps the public one."""
    inner = FixedResolver("127.0.0.1", "93.184.216.34", "169.254.169.254", "2606:2800::1")
    resolver = _Resolver(reach=Reach.PUBLIC, inner=inner)
    found = await resolver.resolve("rebind.test", 80)
    assert [result["host"] for result in found] == ["93.184.216.34", "2606:2800::1"]
    with pytest.raises(BlockedAddressError):
        await _Resolver(reach=Reach.PUBLIC, inner=FixedResolver("10.0.0.1")).resolve("x.test")
    assert len(await _Resolver(reach=Reach.ANY, inner=inner).resolve("rebind.test")) == 4


# IP literals, and numeric spellings of loopback: both engines read them as the address they
# spell (WHATWG URL's IPv4 parser: aiohttp's yarl would refuse all but dotted decimal as a bad
# URL, so the guard reads them first) and refuse that; nothing is connected.
BLOCKED = Code.NET_BLOCKED_ADDRESS
SPELLINGS = [  # host, aiohttp's code, libcurl's
    *(("127.0.0.1", BLOCKED, BLOCKED), ("[::1]", BLOCKED, BLOCKED)),
    *(("[::ffff:127.0.0.1]", BLOCKED, BLOCKED), ("[0:0:0:0:0:ffff:7f00:1]", BLOCKED, BLOCKED)),
    *(("[::127.0.0.1]", BLOCKED, BLOCKED), ("[64:ff9b::7f00:1]", BLOCKED, BLOCKED)),
    *(("127.1", BLOCKED, BLOCKED), ("2130706433", BLOCKED, BLOCKED)),
    ("0x7f000001", BLOCKED, BLOCKED),
    ("0177.0.0.1", BLOCKED, BLOCKED),
    ("127.0.0.1.", BLOCKED, BLOCKED),  # the root's dot
]


@pytest.mark.parametrize(("host", "aiohttp_code", "curl_code"), SPELLINGS)
async def test_a_public_run_refuses_every_spelling_of_loopback(
    host: str, aiohttp_code: Code, curl_code: Code, engine: Engine
) -> None:
    async with serve(lambda base: {"/": Page(200, b"secret")}) as served:
        port = served.base.rsplit(":", 1)[1]
        with pytest.raises(FetchError) as caught:
            await fetch_status(f"http://{host}:{port}/", Reach.PUBLIC, engine=engine)
        hits = dict(served.hits)
    assert caught.value.code is (aiohttp_code if engine is Engine.AIOHTTP else curl_code)
    assert hits == {}


# Where a redirect may try to lead: cloud metadata in every spelling, the same on both engines.
METADATA = [
    ("http://169.254.169.254/latest/meta-data/", "net.blocked_address"),
    ("http://[fe80::1]/", "net.blocked_address"),
    ("http://[::ffff:169.254.169.254]/", "net.blocked_address"),
    ("http://[64:ff9b::a9fe:a9fe]/", "net.blocked_address"),
    ("http://0xa9fea9fe/", "net.blocked_address"),
    ("http://169.254.43518/", "net.blocked_address"),
    ("http://2852039166/", "net.blocked_address"),  # decimal
    ("http://0251.0376.0251.0376/", "net.blocked_address"),  # octal
    ("http://169.254.169.254./", "net.blocked_address"),  # the root's dot
    ("http://0.0.0.0/", "net.blocked_address"),
]


async def test_redirects_into_refused_addresses_are_refused(tmp_path: Path, engine: Engine) -> None:
    """A private target (a staging site) redirecting its URLs and a sitemap to cloud metadata."""

    def routes(base: str) -> dict[str, Page]:
        pages = {f"/r{n}": redirect(302, target) for n, (target, _) in enumerate(METADATA)}
        listed = urlset([url(f"{base}/r{n}") for n in range(len(METADATA))])
        return {
            **pages,
            "/s.xml": xml_page(listed),
            "/moved.xml": redirect(301, "http://169.254.169.254/s.xml"),
        }

    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path,
            f"{served.base}/s.xml",
            f"{served.base}/moved.xml",
            allow_private=False,
            no_check=False,
            retries=0,
        )
    assert sorted(audited.url_codes()) == sorted(
        (f"{served.base}/r{n}", [code]) for n, (_, code) in enumerate(METADATA)
    )
    assert [e["status"] for e in audited.report["urls"]] == [302] * len(METADATA)
    assert audited.sitemap_codes("/moved.xml")["net.blocked_address"] == 1
