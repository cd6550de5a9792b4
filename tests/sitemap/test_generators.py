"""Multilingual sites built by real generators audit clean; one return link removed, one finding.

Hugo (Debian's `hugo`; CI installs it and sets SITEMAP_AUDIT_REQUIRE_HUGO) and Django's sitemap
framework (`i18n`, `alternates`, `x_default`), each served as built on a loopback server and
audited with checks on.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from auditor.demo.documents import Page
from auditor.demo.server import Served, serve
from tests.helpers import Audited, run_audit
from tests.sitemap.generated_sites import django_routes, drop_link, hugo_binary, hugo_routes

pytestmark = pytest.mark.slow  # real site generators (hugo, Django)

HREFLANG = "hreflang."


@asynccontextmanager
async def serve_built(build: Callable[[str], dict[str, Page]]) -> AsyncIterator[Served]:
    """A site built (in a thread: generators block) for the loopback URL it is then served on."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{bound.getsockname()[1]}"
        routes = await asyncio.to_thread(build, base)
        async with serve(lambda _base: routes, bound=bound) as served:
            assert served.base == base
            yield served


def _require_hugo() -> None:
    if hugo_binary() is None:
        if os.environ.get("SITEMAP_AUDIT_REQUIRE_HUGO"):
            pytest.fail("hugo is required here (apt-get install hugo)")
        pytest.skip("hugo is not installed (apt-get install hugo)")


def _hreflang_findings(audited: Audited) -> list[tuple[str, str, str]]:
    """(code, url, alternate) of every hreflang finding, wherever the report keeps it."""
    found = [
        (item["code"], entry["loc"], str((item.get("detail") or {}).get("alternate")))
        for entry in audited.report["urls"]
        for item in entry["findings"]
        if item["code"].startswith(HREFLANG)
    ]
    found += [
        (item["code"], item["url"], str(item["detail"].get("alternate")))
        for item in audited.report.get("run_findings", [])
    ]
    return found


async def test_a_hugo_multilingual_site_audits_clean(tmp_path: Path) -> None:
    _require_hugo()
    async with serve_built(lambda base: hugo_routes(base, tmp_path)) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
    assert audited.codes() == Counter()
    extensions = audited.report["summary"]["extensions"]
    # Home, posts list, hello, about, contact in three languages, each naming the other two.
    assert extensions["hreflang_urls"] == 15
    assert extensions["hreflang_links"] == 45
    assert audited.report["summary"]["urls"] == 16  # and the English-only post
    assert audited.report["summary"]["alternates"] == 0


async def test_hugo_without_one_return_link_gives_exactly_that_finding(tmp_path: Path) -> None:
    _require_hugo()

    def routes(base: str) -> dict[str, Page]:
        built = hugo_routes(base, tmp_path)
        french = built["/fr/sitemap.xml"]
        body = drop_link(french.body, entry=f"{base}/fr/about/", hreflang="en")
        return {**built, "/fr/sitemap.xml": Page(200, body, dict(french.headers))}

    async with serve_built(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
        base = served.base
    assert audited.codes() == Counter({"hreflang.no_return_link": 1})
    assert _hreflang_findings(audited) == [
        ("hreflang.no_return_link", f"{base}/en/about/", f"{base}/fr/about/")
    ]


async def test_a_django_i18n_sitemap_audits_clean(tmp_path: Path) -> None:
    async with serve_built(django_routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
    assert audited.codes() == Counter()
    extensions = audited.report["summary"]["extensions"]
    assert extensions == {
        "hreflang_urls": 6,
        "hreflang_links": 24,  # three languages and x-default, which no sitemap lists
        "images": 0,
        "videos": 0,
        "news": 0,
    }
    assert audited.report["summary"]["alternates"] == 0  # x-default owes nothing


async def test_django_without_one_return_link_gives_exactly_that_finding(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Page]:
        built = django_routes(base)
        sitemap = built["/sitemap.xml"]
        body = drop_link(sitemap.body, entry=f"{base}/de/contact/", hreflang="fr")
        return {**built, "/sitemap.xml": Page(200, body, dict(sitemap.headers))}

    async with serve_built(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
        base = served.base
    assert audited.codes() == Counter({"hreflang.no_return_link": 1})
    assert _hreflang_findings(audited) == [
        ("hreflang.no_return_link", f"{base}/fr/contact/", f"{base}/de/contact/")
    ]
