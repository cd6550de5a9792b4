"""The verdict: one line that the exit code stands for, with the counts behind it."""

from __future__ import annotations

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
from auditor.results.verdict import Outcome, RunCounts, decide, judge

SITE = "https://example.com"


def sitemap(name: str, *codes: Code, kind: SitemapKind = SitemapKind.URLSET) -> SitemapRecord:
    return SitemapRecord(
        url=f"{SITE}/{name}",
        kind=kind,
        parent=None,
        depth=0,
        found_by=FoundBy.TARGET,
        status=200,
        url_count=2,
        findings=tuple(finding(code) for code in codes),
    )


def page(path: str, listed_in: str, *codes: Code, status: int = 200) -> UrlRecord:
    check = CheckResult(status, findings=tuple(finding(code) for code in codes))
    return UrlRecord(f"{SITE}/{path}", (f"{SITE}/{listed_in}",), check=check)


def run(*records: SitemapRecord | UrlRecord) -> tuple[Summary, Samples]:
    summary, samples = Summary(), Samples()
    for record in records:
        if isinstance(record, SitemapRecord):
            summary.add_sitemap(record)
            samples.add_sitemap(record)
        else:
            summary.add_url(record)
            samples.add_urls([record])
    return summary, samples


BROKEN_SITE = (
    sitemap("robots.txt", kind=SitemapKind.ROBOTS),
    sitemap("a.xml", Code.SITEMAP_BAD_NAMESPACE),
    sitemap("b.xml"),
    sitemap("c.xml", Code.SITEMAP_REDIRECTED),
    page("1", "b.xml", Code.HTTP_NOT_FOUND, status=404),
    page("2", "b.xml", Code.HTTP_SERVER_ERROR, Code.REDIRECT_PERMANENT, status=500),
    page("3", "c.xml"),
    page("4", "c.xml", Code.URL_SLOW),
)


def test_a_failing_run_says_how_many_errors_where_and_how_many_urls() -> None:
    summary, samples = run(*BROKEN_SITE)
    verdict = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.ERROR).verdict
    assert verdict.outcome is Outcome.FAIL
    assert verdict.line == (
        "FAIL: 3 errors in 2 of 3 sitemaps; 2 of 4 URLs with errors; 2 warnings, 1 notice"
    )


def test_warnings_fail_a_run_only_when_asked() -> None:
    summary, samples = run(sitemap("a.xml", Code.SITEMAP_REDIRECTED), page("1", "a.xml"))
    passing = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.ERROR).verdict
    assert passing.line == "PASS: 1 sitemap and 1 URL, no errors; 1 warning"
    failing = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.WARNING).verdict
    assert failing.line == "FAIL: 1 warning"


def test_a_clean_run_passes() -> None:
    summary, samples = run(sitemap("a.xml"), page("1", "a.xml"), page("2", "a.xml"))
    verdict = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.NOTICE).verdict
    assert verdict.line == "PASS: 1 sitemap and 2 URLs, no findings"


def test_never_fail_still_says_what_was_found() -> None:
    summary, samples = run(*BROKEN_SITE)
    verdict = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.NEVER).verdict
    assert verdict.outcome is Outcome.PASS
    assert verdict.text.endswith("(--fail-on never); 3 errors, 2 warnings, 1 notice")


@pytest.mark.parametrize(
    ("complete", "failed", "outcome"),
    [(False, False, Outcome.INCOMPLETE), (False, True, Outcome.FAILED)],
)
def test_an_unfinished_run_is_never_a_pass(complete: bool, failed: bool, outcome: Outcome) -> None:
    summary, samples = run(sitemap("a.xml"))
    verdict = judge(
        summary, samples, complete=complete, failed=failed, fail_on=FailOn.ERROR
    ).verdict
    assert verdict.outcome is outcome
    assert verdict.text.endswith("so far no findings")


_SEVERITY_COUNTS = st.fixed_dictionaries({severity: st.integers(0, 3) for severity in Severity})


@st.composite
def run_counts_of(draw: st.DrawFn) -> RunCounts:
    urls = draw(st.integers(0, 5))
    sitemaps = draw(st.integers(0, 3))
    return RunCounts(
        by_severity=draw(_SEVERITY_COUNTS),
        documents=sitemaps + draw(st.integers(0, 1)),
        sitemaps=sitemaps,
        sitemaps_with_errors=draw(st.integers(0, sitemaps)),
        urls=urls,
        urls_with_errors=draw(st.integers(0, urls)),
    )


@given(
    counts=run_counts_of(),
    fail_on=st.sampled_from(list(FailOn)),
    regressions=st.none() | st.integers(0, 3),
    complete=st.booleans(),
    failed=st.booleans(),
    unreachable=st.none() | st.just("http://127.0.0.1:1/ refused (target.connect)"),
)
def test_the_exit_code_and_the_verdict_always_agree(
    counts: RunCounts,
    fail_on: FailOn,
    regressions: int | None,
    complete: bool,
    failed: bool,
    unreachable: str | None,
) -> None:
    """One decision; whatever the run, the exit code is the verdict's."""
    decision = decide(
        counts,
        fail_on=fail_on,
        complete=complete,
        failed=failed,
        regressions=regressions,
        unreachable=unreachable,
    )
    outcome = decision.verdict.outcome
    expected = {
        Outcome.PASS: ExitCode.OK,
        Outcome.FAIL: ExitCode.FINDINGS,
        Outcome.INCOMPLETE: ExitCode.FAILED,
        Outcome.FAILED: ExitCode.FAILED,
        Outcome.UNREACHABLE: ExitCode.FAILED,
    }
    assert decision.exit_code is expected[outcome]
    assert decision.verdict.line.startswith(f"{outcome.value}: ")
    tripped = any(n and fail_on.trips(severity) for severity, n in counts.by_severity.items())
    if failed:
        assert outcome is Outcome.FAILED
    elif not complete:
        assert outcome is Outcome.INCOMPLETE
    elif unreachable is not None:  # an outage is never a pass, nor the site's findings
        assert outcome is Outcome.UNREACHABLE
    else:
        assert (outcome is Outcome.FAIL) is (tripped or bool(regressions))
    # A regression always shows in a failing verdict, counted as the exit code counts it.
    if outcome is Outcome.FAIL and regressions:
        noun = "regression" if regressions == 1 else "regressions"
        assert decision.verdict.text.startswith(f"{regressions} {noun} since the baseline")
    assert "broken" not in decision.verdict.text
