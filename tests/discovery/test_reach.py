"""Why a target could not be read: the cause on the target, never "no sitemap found".

Against real loopback servers: a closed port, a certificate nobody trusts (with and without
--insecure), a name that does not resolve; and the metrics' last success, which moves only
when the site could be read.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trustme
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from auditor.report.metrics import LAST_SUCCESS
from auditor.results.verdict import Outcome
from tests.helpers import Audited, refused_port, run_audit

pytestmark = pytest.mark.usefixtures("engine")


def target_codes(audited: Audited) -> list[str]:
    return [item["code"] for target in audited.report["targets"] for item in target["findings"]]


@pytest.mark.parametrize("path", ["/", "/robots.txt", "/sitemap.xml"])
async def test_a_closed_port_is_target_connect(tmp_path: Path, path: str) -> None:
    audited = await run_audit(tmp_path, f"http://127.0.0.1:{refused_port()}{path}", retries=0)
    assert target_codes(audited) == ["target.connect"]
    assert audited.codes()["discovery.none_found"] == 0
    # Nothing of the site answered: an outage, not a site with errors (auditor.results.reach).
    assert audited.result.exit_code == ExitCode.FAILED
    assert audited.result.verdict.outcome is Outcome.UNREACHABLE
    assert audited.report["unreachable"] is True


async def test_a_name_that_does_not_resolve_is_target_dns(tmp_path: Path) -> None:
    audited = await run_audit(tmp_path, "http://no-such-host.invalid/", retries=0)
    assert target_codes(audited) == ["target.dns"]
    assert audited.report["targets"][0]["findings"][0]["detail"]["cause"] == "net.dns"
    assert audited.codes()["discovery.none_found"] == 0


async def test_a_site_that_answered_without_sitemaps_is_none_found(tmp_path: Path) -> None:
    async with serve(lambda base: {}) as served:
        audited = await run_audit(tmp_path, f"{served.base}/")
    assert target_codes(audited) == ["discovery.none_found"]


@asynccontextmanager
async def untrusted_site() -> AsyncIterator[tuple[str, Path]]:
    """An https site with a sitemap, its certificate from a CA nobody trusts; and that CA."""
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    with socket.socket() as tls_socket:
        tls_socket.bind(("127.0.0.1", 0))
        base = f"https://127.0.0.1:{tls_socket.getsockname()[1]}"

        def routes(_plain: str) -> dict[str, Route]:
            listed = urlset([url(f"{base}/a"), url(f"{base}/b")])
            return {"/sitemap.xml": xml_page(listed), "/a": Page(200, b"a"), "/b": Page(200, b"b")}

        async with serve(routes, tls=(tls_socket, context)):
            with ca.cert_pem.tempfile() as ca_file:
                yield base, Path(ca_file)


async def test_an_untrusted_certificate_is_target_tls(tmp_path: Path) -> None:
    async with untrusted_site() as (base, _ca):
        audited = await run_audit(tmp_path, f"{base}/", retries=0)
    assert target_codes(audited) == ["target.tls"]
    assert audited.codes()["discovery.none_found"] == 0


async def test_insecure_reads_the_site_and_still_reports_the_certificate(tmp_path: Path) -> None:
    metrics = tmp_path / "audit.prom"
    async with untrusted_site() as (base, ca_file):
        audited = await run_audit(
            tmp_path, f"{base}/sitemap.xml", insecure=True, no_check=False, metrics=metrics
        )
        trusted = await run_audit(tmp_path, f"{base}/sitemap.xml", ca_file=ca_file)
    assert target_codes(audited) == ["target.tls"]
    assert audited.report["targets"][0]["findings"][0]["detail"]["insecure"] is True
    assert audited.report["summary"]["urls"] == 2
    assert audited.report["summary"]["by_status_class"] == {"2xx": 2}
    assert audited.result.exit_code == ExitCode.FINDINGS  # Google cannot read it either
    assert target_codes(trusted) == []  # the right CA: nothing to say
    assert last_success(metrics) is not None  # the site was read: a success, for monitoring


def last_success(path: Path) -> float | None:
    for family in text_string_to_metric_families(path.read_text()):
        for sample in family.samples:
            if sample.name == LAST_SUCCESS:
                return sample.value
    return None


async def test_last_success_moves_only_when_the_site_could_be_read(tmp_path: Path) -> None:
    metrics = tmp_path / "audit.prom"
    await run_audit(tmp_path, f"http://127.0.0.1:{refused_port()}/", metrics=metrics, retries=0)
    assert last_success(metrics) is None  # complete, yet nothing was read
    metrics.unlink()
    routes = {"/sitemap.xml": xml_page(urlset([]))}
    async with serve(lambda base: routes) as served:
        target = f"{served.base}/sitemap.xml"
        await run_audit(tmp_path, target, metrics=metrics)
    read_at = last_success(metrics)
    assert read_at is not None
    gone = await run_audit(tmp_path, target, metrics=metrics, retries=0)  # the server is gone
    assert target_codes(gone) == ["target.connect"]
    assert last_success(metrics) == read_at


async def test_a_robots_txt_that_times_out_blocks_what_answers(tmp_path: Path) -> None:
    """RFC 9309 §2.3.1.4: no answer from robots.txt is complete disallow. A sitemap and pages
    that answer are blocked; a page that gets no answer either says only that."""

    async def silent(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(30)
        return web.Response(text="late")

    def routes(base: str) -> dict[str, Route]:
        listed = urlset([url(f"{base}/ok"), url(f"{base}/hangs")])
        return {
            "/robots.txt": silent,
            "/hangs": silent,
            "/sitemap.xml": xml_page(listed),
            "/ok": Page(200, b"ok"),
        }

    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/sitemap.xml", no_check=False, timeout_s=0.5, retries=0
        )
        base = served.base
    by_path = {
        entry["loc"].removeprefix(base): sorted(f["code"] for f in entry["findings"])
        for entry in audited.report["urls"]
    }
    assert by_path == {"/ok": ["url.blocked_by_robots"], "/hangs": ["net.timeout"]}
    assert "sitemap.blocked_by_robots" in audited.sitemap_codes("/sitemap.xml")


def robots_unreachable(audited: Audited) -> list[str]:
    """Where robots.unreachable was said: `target <input>` or `record <url>`, once each."""
    said = [
        f"target {target['input']}"
        for target in audited.report["targets"]
        for item in target["findings"]
        if item["code"] == "robots.unreachable"
    ]
    said += [
        f"record {record['url']}"
        for record in audited.report["sitemaps"]
        for item in record["findings"]
        if item["code"] == "robots.unreachable"
    ]
    return said


def busy_robots(status: int) -> Callable[[str], dict[str, Route]]:
    def routes(base: str) -> dict[str, Route]:
        return {
            "/robots.txt": Page(status, b"busy"),
            "/sitemap.xml": xml_page(urlset([url(f"{base}/a"), url(f"{base}/b")])),
            "/other.xml": xml_page(urlset([url(f"{base}/c")])),
            "/a": Page(200, b"a"),
            "/b": Page(200, b"b"),
            "/c": Page(200, b"c"),
        }

    return routes


@pytest.mark.parametrize("status", [503, 429])
async def test_a_sitemap_target_says_why_every_url_is_blocked(tmp_path: Path, status: int) -> None:
    """RFC 9309 §2.3.1.4: robots.txt answering 5xx is complete disallow; Google treats 429 as a
    5xx. Every URL is blocked, and the cause, robots.unreachable, is said once, on the first
    target of the host, however many sitemap targets share it."""
    async with serve(busy_robots(status)) as served:
        sitemap, other = f"{served.base}/sitemap.xml", f"{served.base}/other.xml"
        audited = await run_audit(tmp_path, sitemap, other, no_check=False)
    assert audited.codes()["url.blocked_by_robots"] == 3
    assert audited.codes()["robots.unreachable"] == 1
    assert robots_unreachable(audited) in ([f"target {sitemap}"], [f"target {other}"])
    assert audited.result.exit_code == ExitCode.FINDINGS


async def test_a_site_target_says_it_on_its_robots_txt_alone(tmp_path: Path) -> None:
    async with serve(busy_robots(503)) as served:
        sitemap = f"{served.base}/sitemap.xml"
        audited = await run_audit(tmp_path, f"{served.base}/", sitemap, no_check=False)
    assert robots_unreachable(audited) == [f"record {served.base}/robots.txt"]


@pytest.mark.parametrize("status", [200, 404])
async def test_a_readable_robots_txt_says_nothing_of_it(tmp_path: Path, status: int) -> None:
    """RFC 9309 §2.3.1.3: a 4xx robots.txt is no rules; a 200 is the rules it holds."""
    async with serve(busy_robots(status)) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
    assert "robots.unreachable" not in audited.codes()
    assert "url.blocked_by_robots" not in audited.codes()
