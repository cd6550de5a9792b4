"""`--junit`: read back with a JUnit parser as CI dashboards read it.

A suite per sitemap with a case for every URL (passing ones too), failures with code, message
and fix, `file` and `line`; the counts consistent; streamed at any size.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from pathlib import Path

import defusedxml.ElementTree as SafeET
import pytest
from aiohttp import web
from junitparser import Failure, JUnitXml, TestCase, TestSuite

from auditor.cli.main import main
from auditor.codes import Code
from auditor.config import FailOn
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from auditor.models import CheckResult, FoundBy, SitemapKind, SitemapRecord, UrlRecord, finding
from auditor.report.junit import JunitCases, write_junit
from tests.helpers import run_audit


def parsed(path: Path) -> dict[str, TestSuite]:
    """The file's suites by name, their counts checked against their cases."""
    SafeET.parse(path)  # well-formed, and nothing a hostile parser would refuse
    xml = JUnitXml.fromfile(str(path))
    suites: dict[str, TestSuite] = {}
    total = failed = 0
    for suite in xml:
        cases = list(suite)
        failing = [case for case in cases if _failure(case) is not None]
        assert (suite.tests, suite.failures, suite.errors) == (len(cases), len(failing), 0)
        total, failed = total + len(cases), failed + len(failing)
        suites[suite.name] = suite
    assert (xml.tests, xml.failures) == (total, failed)
    return suites


def _failure(case: TestCase) -> Failure | None:
    return next((result for result in case.result if isinstance(result, Failure)), None)


def outcome(suite: TestSuite) -> dict[str, str | None]:
    """Case name -> its failure's type (None: passed)."""
    return {case.name: (f.type if (f := _failure(case)) else None) for case in suite}


async def test_a_suite_per_sitemap_and_a_case_per_url_passing_too(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Page]:
        return {
            "/sitemap.xml": xml_page(urlset([url(f"{base}/ok"), url(f"{base}/gone")])),
            "/broken.xml": Page(500, b"no"),
            "/ok": Page(200, b"ok"),
        }

    path = tmp_path / "junit.xml"
    async with serve(routes) as served:
        base = served.base
        audited = await run_audit(
            tmp_path, f"{base}/sitemap.xml", f"{base}/broken.xml", no_check=False, junit=path
        )
    assert audited.result.exit_code == 1
    suites = parsed(path)
    sitemap = f"{base}/sitemap.xml"
    assert outcome(suites[sitemap]) == {
        sitemap: None,  # the document itself
        f"{base}/ok": None,  # a passing URL is a passing case
        f"{base}/gone": "http.not_found",
    }
    assert outcome(suites[f"{base}/broken.xml"]) == {f"{base}/broken.xml": "sitemap.http_error"}
    assert set(outcome(suites["targets"])) == {sitemap, f"{base}/broken.xml"}
    gone = next(case for case in suites[sitemap] if case.name.endswith("/gone"))
    failure = _failure(gone)
    assert failure is not None
    assert failure.message.startswith("http.not_found: ")
    assert f"fix: {Code.HTTP_NOT_FOUND.info.fix}" in (failure.text or "")
    assert (gone._elem.get("file"), gone._elem.get("line")) == ("/sitemap.xml", "4")
    # A classname without the URL's dots: CI dashboards read them as packages.
    assert {case.classname for case in suites[sitemap]} == {"sitemap-audit.sitemap_xml"}
    assert list(tmp_path.glob(".*")) == []  # no spool, no temporary file left


def test_a_local_sitemap_is_named_relative_to_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI job's checkout: `file` is the sitemap's path in it, never the runner's file:///.

    The Markdown summary names it so too, and is titled by it.
    """
    public = tmp_path / "public"
    public.mkdir()
    (public / "sitemap.xml").write_text(urlset([url("https://example.com/a"), url("nope:b")]))
    monkeypatch.chdir(tmp_path)
    argv = ["--no-check", "-q", "--json", "r.json", "--junit", "junit.xml", "--markdown", "s.md"]
    assert main([*argv, "public/sitemap.xml"]) == ExitCode.FINDINGS
    [listed] = [
        suite for name, suite in parsed(tmp_path / "junit.xml").items() if name != "targets"
    ]
    assert {case._elem.get("file") for case in listed} == {"public/sitemap.xml"}
    assert {case.classname for case in listed} == {"sitemap-audit.sitemap_xml"}
    summary = (tmp_path / "s.md").read_text()
    assert summary.startswith("## ❌ Sitemap audit of public/sitemap.xml\n")
    assert "#### `public/sitemap.xml` (1 failing)" in summary
    assert "file://" not in summary
    assert str(tmp_path) not in summary


async def test_failures_only_keeps_the_failing_cases(tmp_path: Path) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("https://example.com/a"), url("nope:b")]))
    path = tmp_path / "junit.xml"
    await run_audit(tmp_path, str(sitemap), junit=path, junit_failures_only=True)
    suites = parsed(path)
    [listed] = [suite for name, suite in suites.items() if name != "targets"]
    assert list(outcome(listed).values()) == ["loc.invalid"]  # the passing URL left out


async def test_fail_on_never_and_accepted_findings_fail_nothing(tmp_path: Path) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("nope:a")]))
    path = tmp_path / "junit.xml"
    await run_audit(tmp_path, str(sitemap), junit=path, fail_on=FailOn.NEVER)
    assert JUnitXml.fromfile(str(path)).failures == 0
    known = tmp_path / "known.txt"
    known.write_text("loc.invalid\n")
    await run_audit(tmp_path, str(sitemap), junit=path, accept_file=known)
    assert JUnitXml.fromfile(str(path)).failures == 0


@pytest.mark.slow
async def test_a_hundred_thousand_urls_are_streamed(tmp_path: Path) -> None:
    """Every case written, and the writing holds no more than a batch of them in memory."""
    cases = await asyncio.to_thread(JunitCases, tmp_path, FailOn.ERROR)
    sitemap = SitemapRecord(
        "https://example.com/s.xml", SitemapKind.URLSET, None, 0, FoundBy.TARGET
    )
    cases.add_sitemap(sitemap)
    for n in range(100_000):
        loc = f"https://example.com/page/{n}"
        found = (finding(Code.HTTP_NOT_FOUND, url=loc),) if n % 10 == 0 else ()
        check = CheckResult(404 if found else 200, loc, findings=found)
        cases.add_url(UrlRecord(loc, (sitemap.url,), n + 3, check=check))
        await cases.flush_if_full()
    path = tmp_path / "junit.xml"
    tracemalloc.start()
    await write_junit(path, cases, duration_s=1.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    await asyncio.to_thread(cases.discard)
    assert peak < 8 << 20, peak  # the file is over 10 MB: it was never whole in memory
    assert path.stat().st_size > 10 << 20
    suites = parsed(path)
    assert (suites[sitemap.url].tests, suites[sitemap.url].failures) == (100_001, 10_000)


@pytest.mark.parametrize("failures_only", [False, True])
@pytest.mark.parametrize("fail_on", list(FailOn))
async def test_each_regression_fails_once_whatever_fail_on(
    tmp_path: Path, fail_on: FailOn, failures_only: bool
) -> None:
    """Ten pages broken since the baseline: ten failing cases, in the regressions suite alone;
    a page broken in both runs (known) fails in its sitemap's suite as --fail-on says."""
    broken = {"/known"}
    paths = ["/known", *(f"/p{n}" for n in range(12))]

    def routes(base: str) -> dict[str, Route]:
        async def page(request: web.Request) -> web.StreamResponse:
            return web.Response(status=404 if request.path in broken else 200, text="x")

        listed = urlset([url(base + path) for path in paths])
        return {"/sitemap.xml": xml_page(listed), **dict.fromkeys(paths, page)}

    path = tmp_path / "junit.xml"
    async with serve(routes) as served:
        target = f"{served.base}/sitemap.xml"
        before = await run_audit(tmp_path / "before", target, no_check=False)
        broken.update(f"/p{n}" for n in range(10))
        audited = await run_audit(
            tmp_path / "after",
            target,
            no_check=False,
            baseline=before.result.json_path,
            fail_on=fail_on,
            junit=path,
            junit_failures_only=failures_only,
        )
    assert audited.report["diff"]["regressions"] == 10
    suites = parsed(path)
    regressions = suites.pop("regressions")
    assert regressions.failures == 10
    failing = [
        (suite.name, case.name, f.type)
        for suite in suites.values()
        for case in suite
        if (f := _failure(case)) is not None
    ]
    known = [(target, f"{served.base}/known", "http.not_found")]
    assert failing == (known if fail_on.trips(Code.HTTP_NOT_FOUND.severity) else [])
    assert JUnitXml.fromfile(str(path)).failures == 10 + len(failing)
    names = {case.name for case in suites.get(target, [])}
    assert (f"{served.base}/p0" in names) is not failures_only  # passing: in, unless left out
