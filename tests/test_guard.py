"""The private-address guard on real loopback requests (DESIGN §7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.demo.server import serve
from auditor.demo.site import Page, sitemapindex, url, urlset, xml_page
from tests.helpers import run_audit


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
