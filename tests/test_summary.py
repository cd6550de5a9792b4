"""The run summary and the exit code."""

from __future__ import annotations

import pytest

from auditor.codes import Code, Severity
from auditor.config import FailOn
from auditor.models import (
    FoundBy,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.summary import ExitCode, Summary, exit_code

ERROR_CODE, WARNING_CODE, NOTICE_CODE = Code.LOC_INVALID, Code.LOC_DUPLICATE, Code.URL_SLOW


def summary_of(*codes: Code) -> Summary:
    summary = Summary()
    summary.add_findings(finding(code) for code in codes)
    return summary


def test_catalog_severities_used_below() -> None:
    assert ERROR_CODE.severity is Severity.ERROR
    assert WARNING_CODE.severity is Severity.WARNING
    assert NOTICE_CODE.severity is Severity.NOTICE


def test_by_severity_counts_worst_first_with_zeros() -> None:
    counts = summary_of(ERROR_CODE, ERROR_CODE, NOTICE_CODE).by_severity()
    assert list(counts.items()) == [
        (Severity.ERROR, 2),
        (Severity.WARNING, 0),
        (Severity.NOTICE, 1),
    ]
    assert summary_of().by_severity() == dict.fromkeys(Severity, 0)


@pytest.mark.parametrize(
    ("codes", "fail_on", "expected"),
    [
        ((), FailOn.NOTICE, ExitCode.OK),
        ((), FailOn.ERROR, ExitCode.OK),
        ((NOTICE_CODE,), FailOn.NOTICE, ExitCode.FINDINGS),
        ((NOTICE_CODE,), FailOn.WARNING, ExitCode.OK),
        ((NOTICE_CODE,), FailOn.ERROR, ExitCode.OK),
        ((WARNING_CODE,), FailOn.NOTICE, ExitCode.FINDINGS),
        ((WARNING_CODE,), FailOn.WARNING, ExitCode.FINDINGS),
        ((WARNING_CODE,), FailOn.ERROR, ExitCode.OK),
        ((ERROR_CODE,), FailOn.NOTICE, ExitCode.FINDINGS),
        ((ERROR_CODE,), FailOn.WARNING, ExitCode.FINDINGS),
        ((ERROR_CODE,), FailOn.ERROR, ExitCode.FINDINGS),
        ((ERROR_CODE, WARNING_CODE, NOTICE_CODE), FailOn.NEVER, ExitCode.OK),
        ((ERROR_CODE,), FailOn.NEVER, ExitCode.OK),
    ],
)
def test_exit_code(codes: tuple[Code, ...], fail_on: FailOn, expected: ExitCode) -> None:
    assert exit_code(summary_of(*codes), fail_on) is expected


def test_omitted_findings_count_towards_the_exit_code() -> None:
    summary = Summary()
    record = SitemapRecord(
        url="https://example.com/sitemap.xml",
        kind=SitemapKind.URLSET,
        parent=None,
        depth=0,
        found_by=FoundBy.TARGET,
        url_count=3,
        findings_omitted={ERROR_CODE: 4},
    )
    summary.add_sitemap(record)
    assert summary.by_severity()[Severity.ERROR] == 4
    assert summary.entries == 3
    assert exit_code(summary, FailOn.ERROR) is ExitCode.FINDINGS


def test_url_findings_are_counted() -> None:
    summary = Summary()
    summary.add_url(UrlRecord("https://example.com/a", ("s",), findings=(finding(WARNING_CODE),)))
    summary.add_url(UrlRecord("https://example.com/b", ("s",)))
    assert summary.urls == 2
    assert summary.by_code == {WARNING_CODE: 1}
