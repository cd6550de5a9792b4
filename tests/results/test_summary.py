"""The run summary and the exit code."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.codes import Code, Severity
from auditor.config import FailOn
from auditor.errors import ExitCode
from auditor.models import (
    CheckResult,
    FoundBy,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import Outcome, judge

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
    assert (
        judge(summary_of(*codes), Samples(), fail_on=fail_on, complete=True, failed=False).exit_code
        is expected
    )


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
    assert (
        judge(summary, Samples(), fail_on=FailOn.ERROR, complete=True, failed=False).exit_code
        is ExitCode.FINDINGS
    )


def test_url_findings_are_counted() -> None:
    summary = Summary()
    summary.add_url(UrlRecord("https://example.com/a", ("s",), findings=(finding(WARNING_CODE),)))
    summary.add_url(UrlRecord("https://example.com/b", ("s",)))
    assert summary.urls == 2
    assert summary.by_code == {WARNING_CODE: 1}


# --- properties -----------------------------------------------------------------------------------

_CODES = st.sampled_from(list(Code))
_FINDINGS = st.lists(_CODES, max_size=4).map(lambda codes: tuple(finding(c) for c in codes))
_SITEMAPS = st.sampled_from(["https://example.com/a.xml", "https://example.com/b.xml"])
_SITEMAP_RECORDS = st.builds(
    SitemapRecord,
    url=_SITEMAPS,
    kind=st.none() | st.sampled_from(list(SitemapKind)),
    parent=st.none(),
    depth=st.just(0),
    found_by=st.just(FoundBy.TARGET),
    url_count=st.integers(0, 50_000),
    bytes=st.integers(0, 10**8),
    findings=_FINDINGS,
    findings_omitted=st.dictionaries(_CODES, st.integers(1, 10**6), max_size=3),
)
_URL_RECORDS = st.builds(
    UrlRecord,
    loc=st.sampled_from(["https://example.com/1", "https://example.com/2"]),
    sitemaps=st.lists(_SITEMAPS, min_size=1, max_size=2, unique=True).map(tuple),
    findings=_FINDINGS,
    check=st.none()
    | st.builds(CheckResult, status=st.none() | st.integers(100, 999), findings=_FINDINGS),
)
_RECORDS = st.lists(_SITEMAP_RECORDS | _URL_RECORDS, max_size=12)


def summed(records: list[SitemapRecord | UrlRecord]) -> Summary:
    summary = Summary()
    for record in records:
        if isinstance(record, SitemapRecord):
            summary.add_sitemap(record)
        else:
            summary.add_url(record)
    return summary


def all_codes(records: list[SitemapRecord | UrlRecord]) -> Counter[Code]:
    """Every finding of the records, counted independently of Summary."""
    counts: Counter[Code] = Counter()
    for record in records:
        counts.update(item.code for item in record.findings)
        if isinstance(record, SitemapRecord):
            counts.update(record.findings_omitted)
        elif record.check is not None:
            counts.update(item.code for item in record.check.findings)
    return counts


@given(records=_RECORDS, fail_on=st.sampled_from(list(FailOn)), data=st.data())
def test_the_exit_code_is_the_worst_severity_against_the_threshold(
    records: list[SitemapRecord | UrlRecord], fail_on: FailOn, data: st.DataObject
) -> None:
    summary = summed(records)
    counts = all_codes(records)
    assert summary.by_code == +counts
    assert sum(summary.by_severity().values()) == counts.total()
    assert summary.urls == sum(isinstance(r, UrlRecord) for r in records)
    assert summary.checked == summary.by_status_class.total()
    worst = max((code.severity.rank for code in counts), default=0)
    threshold = {FailOn.ERROR: 3, FailOn.WARNING: 2, FailOn.NOTICE: 1}.get(fail_on, 4)
    expected = ExitCode.FINDINGS if worst >= threshold else ExitCode.OK
    assert (
        judge(summary, Samples(), fail_on=fail_on, complete=True, failed=False).exit_code
        is expected
    )
    # The verdict says what the exit code does; the order records arrive in changes nothing.
    verdict = judge(summary, Samples(), complete=True, failed=False, fail_on=fail_on).verdict
    assert (verdict.outcome is Outcome.PASS) is (expected is ExitCode.OK)
    shuffled = summed(data.draw(st.permutations(records)))
    assert shuffled.to_json(duration_s=1.0) == summary.to_json(duration_s=1.0)
    stopped = judge(summary, Samples(), complete=False, failed=False, fail_on=fail_on).verdict
    assert stopped.outcome is Outcome.INCOMPLETE
