"""The monitoring job end to end: two runs against a loopback site that changed between them."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path

import defusedxml.ElementTree as SafeET
import pytest
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from auditor.cli.main import main
from auditor.config import FailOn
from auditor.demo.documents import sitemapindex, url, urlset
from auditor.demo.server import serve
from auditor.errors import ExitCode
from tests.fault_server import run_cli
from tests.helpers import run_audit, validate_report


class Site:
    """A site whose state the test changes between runs."""

    def __init__(self) -> None:
        self.changed = False
        self.base = ""
        self.sitemap_answers: list[tuple[str, int, int]] = []  # path, status, body bytes sent

    def sitemap(self, request: web.Request, text: str) -> web.StreamResponse:
        """A sitemap with an ETag of its body; 304 when the request names it (RFC 9110 §13.1.2)."""
        body = text.encode()
        etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
        if request.headers.get("If-None-Match") == etag:
            self.sitemap_answers.append((request.path, 304, 0))
            return web.Response(status=304, headers={"ETag": etag})
        self.sitemap_answers.append((request.path, 200, len(body)))
        return web.Response(body=body, content_type="application/xml", headers={"ETag": etag})

    def routes(self, base: str) -> dict[str, web.StreamResponse | object]:
        self.base = base

        async def index(request: web.Request) -> web.StreamResponse:
            children = [f"{base}/a.xml"] if self.changed else [f"{base}/a.xml", f"{base}/b.xml"]
            return self.sitemap(request, sitemapindex(children))

        async def a(request: web.Request) -> web.StreamResponse:
            pages = ["p1", "p2", "p3", *(["p9"] if self.changed else [])]
            return self.sitemap(request, urlset([url(f"{base}/{page}") for page in pages]))

        async def b(request: web.Request) -> web.StreamResponse:
            return self.sitemap(request, urlset([url(f"{base}/b1")]))

        async def page(request: web.Request) -> web.StreamResponse:
            if self.changed and request.path == "/p2":
                return web.Response(status=404)
            return web.Response(text="ok")

        pages = {f"/{name}": page for name in ("p1", "p2", "p3", "p9", "b1")}
        return {"/index.xml": index, "/a.xml": a, "/b.xml": b, **pages}


async def test_second_run_names_exactly_what_changed(tmp_path: Path) -> None:
    site = Site()
    metrics, junit = tmp_path / "audit.prom", tmp_path / "junit.xml"
    async with serve(site.routes) as served:  # type: ignore[arg-type]
        base = served.base
        first = await run_audit(
            tmp_path / "1", f"{base}/index.xml", no_check=False, json=tmp_path / "1.json"
        )
        assert first.result.exit_code == ExitCode.OK
        site.changed = True
        second = await run_audit(
            tmp_path,
            f"{base}/index.xml",
            no_check=False,
            json=tmp_path / "2.json",
            baseline=tmp_path / "1.json",
            metrics=metrics,
            junit=junit,
        )
    assert second.result.exit_code == ExitCode.FINDINGS
    diff = second.report["diff"]
    assert diff["sitemaps_added"] == []
    assert diff["sitemaps_removed"] == [f"{base}/b.xml"]
    assert (diff["urls_added"], diff["urls_added_examples"]) == (1, [f"{base}/p9"])
    assert (diff["urls_removed"], diff["urls_removed_examples"]) == (1, [f"{base}/b1"])
    assert diff["urls_changed"] == 1
    [change] = diff["urls_changed_examples"]
    assert change["url"] == f"{base}/p2"
    assert change["changes"] == [
        {"field": "status", "before": "200", "after": "404"},
        {"field": "indexability", "before": "indexable", "after": "client_error"},
        {"field": "codes", "before": "none", "after": "+http.not_found"},
    ]
    assert diff["urls_broken_examples"] == [f"{base}/p2"]
    assert diff["new_findings"] == {"http.not_found": 1}
    assert diff["resolved_findings"] == {}
    assert diff["regressions"] == 1  # one URL, however many of its findings are new
    families = {f.name: f for f in text_string_to_metric_families(metrics.read_text())}
    assert families["sitemap_audit_regressions"].samples[0].value == 1
    root = SafeET.parse(junit).getroot()
    assert root is not None
    failing = {
        (suite.get("name"), case.get("name"), case.get("file"), failure.get("type"))
        for suite in root
        for case in suite.findall("testcase")
        for failure in case.findall("failure")
    }
    assert failing == {  # the broken URL fails once: as the regression, the URL and its code
        ("regressions", f"{base}/p2 http.not_found", "/a.xml", "regression"),  # its path
    }
    [case] = [c for c in root.iter("testcase") if c.get("name") == f"{base}/p2"]
    assert case.find("failure") is None  # its own case passes, its findings in system-out
    assert "http.not_found" in (case.findtext("system-out") or "")
    assert second.result.verdict.line.startswith("FAIL: 1 regression since the baseline; ")
    page = second.result.html_path.read_text()
    # As read: a URL's line breaks (<wbr>, its parts' spans) and the cards' labels left out.
    page = re.sub(r'<wbr>|</?span>| data-label="[^"]*"', "", page)
    assert "Changes since the baseline" in page
    # The HTML names each change too: the sitemap removed, the URLs added, removed and broken.
    minus = "\u2212"  # the HTML's minus sign
    for shown in (
        f"{minus} {base}/b.xml",
        f"+ {base}/p9",
        f"{minus} {base}/b1",
        "<td>status</td><td>200</td><td>404</td>",
    ):
        assert shown in page


async def test_regressions_fail_even_when_fail_on_passes(tmp_path: Path) -> None:
    """The exit code, the verdict line, JUnit and the metrics all say so."""
    site = Site()
    junit, metrics = tmp_path / "junit.xml", tmp_path / "audit.prom"
    async with serve(site.routes) as served:  # type: ignore[arg-type]
        target = f"{served.base}/index.xml"
        await run_audit(tmp_path, target, no_check=False, json=tmp_path / "1.json")
        site.changed = True
        second = await run_audit(
            tmp_path,
            target,
            no_check=False,
            json=tmp_path / "2.json",
            baseline=tmp_path / "1.json",
            fail_on=FailOn.NEVER,
            junit=junit,
            metrics=metrics,
        )
        assert second.result.exit_code == ExitCode.FINDINGS
        # One regression: the URL that went from 200 to 404 (--fail-on never fails on nothing).
        assert second.report["diff"]["regressions"] == 1
        assert second.result.verdict.line.startswith("FAIL: 1 regression since the baseline; ")
        root = SafeET.parse(junit).getroot()
        assert root is not None
        regressions = root.find("testsuite[@name='regressions']")
        assert regressions is not None
        names = [c.get("name") for c in regressions.findall("testcase")]
        assert names == [f"{served.base}/p2 http.not_found"]
        assert regressions.get("failures") == root.get("failures") == "1"
        families = {f.name: f for f in text_string_to_metric_families(metrics.read_text())}
        assert families["sitemap_audit_exit_code"].samples[0].value == ExitCode.FINDINGS
        third = await run_audit(
            tmp_path,
            target,
            no_check=False,
            json=tmp_path / "3.json",
            baseline=tmp_path / "2.json",
            fail_on=FailOn.NEVER,
        )
    assert third.report["diff"]["regressions"] == 0
    assert third.result.exit_code == ExitCode.OK
    assert third.result.verdict.line.startswith("PASS: ")
    assert third.result.verdict.line.endswith("; no regressions since the baseline")


async def test_a_third_run_with_state_downloads_no_sitemap_body(tmp_path: Path) -> None:
    site = Site()
    state = tmp_path / "audit.state"
    async with serve(site.routes) as served:  # type: ignore[arg-type]
        target = f"{served.base}/index.xml"
        await run_audit(tmp_path, target, no_check=False, json=tmp_path / "1.json", state=state)
        site.changed = True
        second = await run_audit(
            tmp_path,
            target,
            no_check=False,
            json=tmp_path / "2.json",
            baseline=tmp_path / "1.json",
            state=state,
        )
        assert sorted(answer[:2] for answer in site.sitemap_answers[3:]) == [
            ("/a.xml", 200),  # changed: read in full, and kept anew
            ("/index.xml", 200),
        ]
        site.sitemap_answers.clear()
        third = await run_audit(
            tmp_path,
            target,
            no_check=False,
            json=tmp_path / "3.json",
            baseline=tmp_path / "2.json",
            state=state,
        )
    # The server's log: every sitemap answered 304, not one byte of a sitemap body sent.
    assert sorted(site.sitemap_answers) == [("/a.xml", 304, 0), ("/index.xml", 304, 0)]
    assert all(record["from_state"] for record in third.report["sitemaps"])
    diff = third.report["diff"]
    assert (diff["urls_added"], diff["urls_removed"], diff["urls_changed"]) == (0, 0, 0)
    assert (diff["new_findings"], diff["regressions"]) == ({}, 0)

    def urls(report: dict[str, list[dict[str, object]]]) -> list[dict[str, object]]:
        entries = [{k: v for k, v in u.items() if k != "elapsed_ms"} for u in report["urls"]]
        return sorted(entries, key=lambda entry: str(entry["loc"]))

    assert urls(third.report) == urls(second.report)  # the same entries, findings and checks
    assert third.report["summary"]["by_code"] == second.report["summary"]["by_code"]


def _report(tmp_path: Path) -> Path:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("https://example.com/a")]))
    path = tmp_path / "old.json"
    assert main(["--no-check", "--quiet", "--json", str(path), str(sitemap)]) == 0
    validate_report(json.loads(path.read_bytes()))
    return path


@pytest.mark.parametrize("damage", ["missing", "truncated", "version", "not_report", "not_json"])
def test_bad_baselines_exit_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    good = _report(tmp_path)
    text = good.read_bytes()
    bad = tmp_path / "bad.json"
    match damage:
        case "truncated":
            bad.write_bytes(text[: len(text) // 2])
        case "version":
            bad.write_bytes(text.replace(b'"schema_version":1', b'"schema_version":99', 1))
        case "not_report":
            bad.write_bytes(b'{"hello": [1, 2, 3]}')
        case "not_json":
            bad.write_bytes(b"<html>")
    capsys.readouterr()
    argv = ["--no-check", "--json", str(tmp_path / "new.json"), "--baseline", str(bad)]
    assert main([*argv, str(tmp_path / "s.xml")]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert not (tmp_path / "new.json").exists()


# A baseline is untrusted input: whatever its shape, a clear usage error in bounded memory.
HOSTILE = {
    "nested": b"[" * 100_000 + b"]" * 100_000,
    "nested_in_the_head": b'{"schema_version":1,"tool":' + b"[" * 6_000_000 + b"]" * 6_000_000,
    "nested_in_a_record": b"@head@" + b"[" * 12_000_000 + b"]" * 12_000_000 + b"\n],\n",
    "wide_in_a_record": b"@head@[" + b"[]," * 4_000_000 + b"[]]\n],\n",
    "one_long_line": b'{"schema_version":1,"x":"' + b"a" * (40 << 20) + b'"}',
}
MAX_HOSTILE_RSS_MB = 200  # SECURITY.md


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_a_hostile_baseline_is_refused_in_bounded_memory(tmp_path: Path, shape: str) -> None:
    good = _report(tmp_path)
    head = good.read_bytes().split(b"\n", 1)[0] + b'\n"sitemaps":[\n'
    hostile = tmp_path / "hostile.json"
    hostile.write_bytes(HOSTILE[shape].replace(b"@head@", head))
    argv = ["--no-check", "--workers", "1", "--json", str(tmp_path / "new.json")]
    argv += ["--baseline", str(hostile), str(tmp_path / "s.xml")]
    run = asyncio.run(run_cli(argv, tmp_path=tmp_path, limit_s=60))
    assert run.exit_code == ExitCode.USAGE
    assert len(run.stderr.strip().splitlines()) == 1
    assert "Traceback" not in run.stderr
    assert run.peak_rss_mb < MAX_HOSTILE_RSS_MB, run.peak_rss_mb
    assert not (tmp_path / "new.json").exists()
