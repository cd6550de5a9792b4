"""`--junit`: JUnit XML with the usual structure, counts consistent, failing URLs capped."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeET
import pytest

from auditor.config import FailOn
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.report import junit
from tests.helpers import run_audit


def check_structure(path: Path) -> Element:
    """testsuites > testsuite > testcase > failure(message, type), with consistent counts."""
    root = SafeET.parse(path).getroot()
    assert root is not None
    assert root.tag == "testsuites"
    total = failed = 0
    for suite in root:
        assert suite.tag == "testsuite"
        assert suite.get("name")
        cases = suite.findall("testcase")
        assert {child.tag for child in suite} <= {"testcase", "properties"}
        failures = [case for case in cases if case.find("failure") is not None]
        assert int(suite.get("tests", "-1")) == len(cases)
        assert int(suite.get("failures", "-1")) == len(failures)
        for case in cases:
            assert case.get("name")
            assert case.get("classname")
            for failure in case.findall("failure"):
                assert failure.get("message")
                assert failure.get("type")
        total, failed = total + len(cases), failed + len(failures)
    assert int(root.get("tests", "-1")) == total
    assert int(root.get("failures", "-1")) == failed
    return root


def cases(root: Element, suite: str) -> dict[str, str | None]:
    """Case name -> failure type (None: passed) of one suite."""
    found = root.find(f"testsuite[@name='{suite}']")
    assert found is not None
    out: dict[str, str | None] = {}
    for case in found.findall("testcase"):
        failure = case.find("failure")
        out[case.get("name", "")] = failure.get("type") if failure is not None else None
    return out


async def test_one_case_per_sitemap_and_per_failing_url(tmp_path: Path) -> None:
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
    root = check_structure(path)
    assert cases(root, "sitemaps") == {
        f"{base}/sitemap.xml": None,
        f"{base}/broken.xml": "sitemap.http_error",
    }
    assert cases(root, "urls") == {f"{base}/gone": "http.not_found"}
    assert set(cases(root, "targets")) == {f"{base}/sitemap.xml", f"{base}/broken.xml"}
    assert list(tmp_path.glob(".*.tmp")) == []


async def test_failing_urls_are_capped_and_the_cap_is_stated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(junit, "MAX_URL_CASES", 2)
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        urlset(
            [url(f"https://example.com/{n}") for n in range(3)]
            + [url("nope:a"), url("nope:b"), url("nope:c"), url("nope:d")]
        )
    )
    path = tmp_path / "junit.xml"
    audited = await run_audit(tmp_path, str(sitemap), junit=path)
    assert audited.codes()["loc.invalid"] == 4
    root = check_structure(path)
    urls = cases(root, "urls")
    assert len(urls) == 3
    assert list(urls.values()).count("loc.invalid") == 2
    assert "2 more failing URLs (cap 2)" in urls
    suite = root.find("testsuite[@name='urls']")
    assert suite is not None
    assert suite.find("properties/property[@name='max_url_cases']").get("value") == "2"  # type: ignore[union-attr]


async def test_fail_on_never_fails_nothing(tmp_path: Path) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("nope:a")]))
    path = tmp_path / "junit.xml"
    await run_audit(tmp_path, str(sitemap), junit=path, fail_on=FailOn.NEVER)
    root = check_structure(path)
    assert root.get("failures") == "0"
