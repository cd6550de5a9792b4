"""The JSON report: streamed while the run goes on, atomic, honest about incomplete runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import web

import auditor.report.json_writer
import auditor.sitemap.validated_entries
from auditor.clock import FixedClock
from auditor.config import AuditConfig, Method
from auditor.demo.documents import SITEMAP_NS, Page, sitemapindex, url, urlset, xml_page
from auditor.demo.server import Handler, serve
from auditor.errors import ExitCode
from auditor.flow.audit import audit
from auditor.models import UrlRecord
from auditor.report.encode import config_json
from auditor.sitemap.parse.events import UrlEntry
from auditor.sitemap.validate import EntryContext, LocVerdict, validate_url_entry
from tests.helpers import NOW, run_audit, target, validate_report

HEAD = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{SITEMAP_NS}">'


def held_sitemap(count: int, release: asyncio.Event) -> Handler:
    """A sitemap that sends `count` URLs, then waits for `release` before ending."""

    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/xml"})
        await response.prepare(request)
        base = f"http://{request.host}"
        await response.write((HEAD + "".join(url(f"{base}/p/{n}") for n in range(count))).encode())
        await release.wait()
        await response.write(b"</urlset>")
        return response

    return handler


async def test_urls_are_written_while_the_sitemap_is_still_being_read(tmp_path: Path) -> None:
    release = asyncio.Event()
    report = tmp_path / "r.json"
    spool = Path("not yet")  # `.r.json.<random>.urls.part`
    async with serve(lambda base: {"/s.xml": held_sitemap(30_000, release)}) as served:
        config = AuditConfig(targets=(target(f"{served.base}/s.xml"),), json=report, no_check=True)
        async with asyncio.TaskGroup() as group:
            run = group.create_task(audit(config, clock=FixedClock(NOW)))
            for _ in range(200):  # the sitemap is not finished, yet its URLs are on disk
                await asyncio.sleep(0.05)
                spool = next(tmp_path.glob(".r.json.*.urls.part"), spool)
                if spool.exists() and spool.stat().st_size > 1_000_000:
                    break
            assert spool.stat().st_size > 1_000_000
            assert not report.exists()
            release.set()
        result = run.result()
    assert result.exit_code == ExitCode.OK
    assert json.loads(report.read_text())["summary"]["urls"] == 30_000
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.html", "r.json"]


async def test_stop_writes_what_was_gathered(tmp_path: Path) -> None:
    release, stop = asyncio.Event(), asyncio.Event()
    async with serve(lambda base: {"/s.xml": held_sitemap(5, release)}) as served:
        config = AuditConfig(
            targets=(target(f"{served.base}/s.xml"),), json=tmp_path / "r.json", no_check=True
        )
        async with asyncio.TaskGroup() as group:
            run = group.create_task(audit(config, clock=FixedClock(NOW), stop=stop))
            while not served.hits.get("/s.xml"):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
            stop.set()
        result = run.result()
    assert (result.complete, result.failed, result.exit_code) == (False, False, ExitCode.FAILED)
    report = json.loads(result.json_path.read_text())
    validate_report(report)
    assert report["complete"] is False
    assert report["summary"]["urls"] == 5  # the URLs read before the stop are kept


async def test_a_bug_while_reading_one_document_is_reported_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode_on_b(entry: UrlEntry, ctx: EntryContext) -> LocVerdict:
        if entry.loc and entry.loc.endswith("/boom"):
            raise RuntimeError("a bug")
        return validate_url_entry(entry, ctx)

    monkeypatch.setattr(auditor.sitemap.validated_entries, "validate_url_entry", explode_on_b)

    def routes(base: str) -> dict[str, Page]:
        return {
            "/idx.xml": xml_page(sitemapindex([f"{base}/a.xml", f"{base}/b.xml"])),
            "/a.xml": xml_page(urlset([url(f"{base}/a1"), url(f"{base}/a2")])),
            "/b.xml": xml_page(urlset([url(f"{base}/boom")])),
        }

    async with serve(routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/idx.xml")
    assert audited.codes()["internal.error"] == 1
    assert audited.report["complete"] is True
    assert audited.report["summary"]["urls"] == 2  # the other sitemap was read in full
    assert audited.result.exit_code == ExitCode.FINDINGS


async def test_a_failure_in_the_sink_still_writes_an_incomplete_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(record: UrlRecord) -> dict[str, object]:
        raise RuntimeError("a bug in the writer")

    monkeypatch.setattr(auditor.report.json_writer, "url_json", broken)
    async with serve(lambda base: {"/s.xml": xml_page(urlset([url(f"{base}/a")]))}) as served:
        config = AuditConfig(
            targets=(target(f"{served.base}/s.xml"),), json=tmp_path / "r.json", no_check=True
        )
        result = await audit(config, clock=FixedClock(NOW))
    assert (result.complete, result.failed, result.exit_code) == (False, True, ExitCode.FAILED)
    report = json.loads(result.json_path.read_text())
    validate_report(report)
    assert report["complete"] is False


@pytest.mark.parametrize(
    ("method", "html_read"), [(Method.GET, True), (Method.HEAD, False), (Method.AUTO, False)]
)
def test_the_reports_config_says_which_page_checks_ran(method: Method, html_read: bool) -> None:
    """The default GET reads each page's head; HEAD only its headers."""
    config = AuditConfig(targets=(target("https://example.com/"),), method=method)
    checks = config_json(config)["page_checks"]
    assert isinstance(checks, list)
    assert {"x-robots-tag", "link-canonical", "robots.txt"} <= set(checks)
    assert ({"meta-robots", "html-canonical"} <= set(checks)) is html_read
    quiet = config_json(AuditConfig(targets=(target("https://example.com/"),), no_check=True))
    assert quiet["page_checks"] == []
