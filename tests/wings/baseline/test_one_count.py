"""One definition of a regression, one count everywhere: a property over random pairs of runs.

Each example draws a baseline and a current run (pages that answer, break, go noindex,
redirect, are not requested; documents with findings), compares them through the real store,
and reads the count back from the JSON `diff`, the decision, the metrics, JUnit, the HTML and
the terminal. An oracle written from the definition (docs/how-to/monitoring.md) says what the
count must be.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path

import defusedxml.ElementTree as SafeET
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from auditor.checks.indexability import not_indexable
from auditor.cli.terminal import plain_lines
from auditor.codes import Code
from auditor.config import FailOn
from auditor.flow.audit import AuditResult
from auditor.models import (
    CheckResult,
    Finding,
    FoundBy,
    Redirect,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.report.encode import sitemap_json, url_json
from auditor.report.html_view import RunFacts, build_view
from auditor.report.html_writer import render_html
from auditor.report.junit import JunitCases, write_junit
from auditor.report.metrics import RunMetrics, metrics_registry
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import Decision, judge
from auditor.urls import parse_http_url, url_digest
from auditor.wings.baseline.compare import BaselineHead, Gate
from auditor.wings.baseline.comparison import BaselineRow, Comparison, Document, Field
from auditor.wings.baseline.comparison_rows import reported_keys, reported_url_facts
from auditor.wings.baseline.diff_section import DiffSection
from tests.helpers import deeper

SITE = "https://example.com"
SITEMAP = f"{SITE}/s.xml"
PATHS = [f"/p{n}" for n in range(6)]
# How a page answers in one run; None: not listed.
STATES = ("ok", "404", "500", "noindex", "redirect", "unchecked", "bad-lastmod")
DOCUMENT_CODES = (Code.SITEMAP_EMPTY, Code.XML_MALFORMED, Code.ENTRY_UNKNOWN_TAG)

runs = st.fixed_dictionaries({path: st.none() | st.sampled_from(STATES) for path in PATHS})
documents = st.frozensets(st.sampled_from(DOCUMENT_CODES))


def record(path: str, state: str) -> UrlRecord:
    loc = SITE + path
    parsed = parse_http_url(loc)
    assert parsed is not None
    listing: tuple[Finding, ...] = ()
    check: CheckResult | None
    match state:
        case "unchecked":
            check = None
        case "404" | "500":
            code = Code.HTTP_NOT_FOUND if state == "404" else Code.HTTP_SERVER_ERROR
            check = CheckResult(int(state), loc, int(state), findings=(finding(code, url=loc),))
        case "noindex":
            found = finding(Code.URL_NOINDEX, url=loc, source="meta")
            check = CheckResult(200, loc, 200, findings=(found,))
        case "redirect":
            moved = finding(Code.REDIRECT_PERMANENT, url=loc, to=f"{SITE}/x")
            check = CheckResult(301, f"{SITE}/x", 200, (Redirect(loc, 301),), findings=(moved,))
        case _:
            check = CheckResult(200, loc, 200)
            if state == "bad-lastmod":
                listing = (finding(Code.LASTMOD_INVALID, url=loc),)
    if check is not None:
        check.not_indexable = not_indexable(check)
    return UrlRecord(loc, (SITEMAP,), 3, None, None, None, listing, check, url_digest(parsed.key))


def document(codes: frozenset[Code]) -> SitemapRecord:
    found = tuple(finding(code) for code in sorted(codes))
    return SitemapRecord(SITEMAP, SitemapKind.URLSET, None, 0, FoundBy.TARGET, 200, findings=found)


def expected(
    before: dict[str, str | None],
    after: dict[str, str | None],
    docs: tuple[frozenset[Code], frozenset[Code]],
    threshold: FailOn,
) -> int:
    """The definition, written out: subjects with a new finding at the threshold, or a URL that
    became not indexable; nothing with `never`."""
    if threshold is FailOn.NEVER:
        return 0
    count = int(any(threshold.trips(code.severity) for code in docs[1] - docs[0]))
    for path in PATHS:
        was, now = before[path], after[path]
        if now is None:
            continue
        new_codes = _codes(now)
        old_codes = _codes(was) if was is not None else set()
        both = was not in (None, "unchecked") and now != "unchecked"
        if was is not None and not both:  # one run did not request it: its listing only
            new_codes = {code for code in new_codes if code is Code.LASTMOD_INVALID}
            old_codes = {code for code in old_codes if code is Code.LASTMOD_INVALID}
        tripping = any(threshold.trips(code.severity) for code in new_codes - old_codes)
        went_bad = both and was in ("ok", "bad-lastmod") and now not in ("ok", "bad-lastmod")
        count += tripping or went_bad
    return count


def _codes(state: str) -> set[Code]:
    item = record("/p0", state)
    check = item.check.findings if item.check is not None else ()
    return {found.code for found in item.findings + check}


@given(runs, runs, documents, documents, st.sampled_from(list(FailOn)))
@deeper(0.5)
def test_every_output_says_the_one_count(
    tmp_path_factory: object,
    before: dict[str, str | None],
    after: dict[str, str | None],
    docs_before: frozenset[Code],
    docs_after: frozenset[Code],
    threshold: FailOn,
) -> None:
    folder = Path(tmp_path_factory.mktemp("count"))  # type: ignore[attr-defined]
    docs = (docs_before, docs_after)
    diff, regressions, summary, samples = asyncio.run(
        _compare(folder, before, after, docs, threshold)
    )
    decision = judge(
        summary, samples, fail_on=FailOn.NEVER, complete=True, failed=False, regressions=regressions
    )
    said = {
        "json": diff.to_json()["regressions"],
        "decision": decision.regressions,
        "metrics": _metrics(summary, diff),
        "junit": _junit(folder / "junit.xml"),
        "html": _html(summary, samples, decision, diff),
        "terminal": _terminal(summary, samples, decision, diff),
    }
    assert set(said.values()) == {regressions}, said
    if regressions:
        assert decision.verdict.line.startswith(f"FAIL: {regressions} regression")
    assert regressions == expected(before, after, docs, threshold)


async def _compare(
    folder: Path,
    before: dict[str, str | None],
    after: dict[str, str | None],
    docs: tuple[frozenset[Code], frozenset[Code]],
    threshold: FailOn,
) -> tuple[DiffSection, int, Summary, Samples]:
    head = BaselineHead("old.json", "2026-01-01T00:00:00Z")
    # Blocking, as the pipeline makes it (auditor.wings.baseline.baseline_reader): in a thread.
    made = await asyncio.to_thread(Comparison, folder, head=head, gate=Gate(threshold))
    async with made as comparison:
        # The baseline as its report says it: each record through the JSON encoder.
        old = [url_json(record(path, state)) for path, state in before.items() if state]
        facts = [row for obj in old if (row := reported_url_facts(obj)) is not None]
        keys = reported_keys("sitemap", SITEMAP, sitemap_json(document(docs[0]))["findings"])  # type: ignore[arg-type]
        rows: list[BaselineRow] = [*facts, *keys, Document(SITEMAP), Field("summary")]
        await asyncio.to_thread(comparison.add_baseline, rows)
        summary, samples = Summary(), Samples()
        junit = await asyncio.to_thread(JunitCases, folder, FailOn.ERROR)
        current = document(docs[1])
        for target in (summary, samples, junit, comparison):
            target.add_sitemap(current)
        for path, state in after.items():
            if state:
                item = record(path, state)
                summary.add_url(item)
                samples.add_urls([item])
                comparison.add_url(item)
        diff = await comparison.finish()
        await write_junit(folder / "junit.xml", junit, duration_s=1.0, regressions=comparison)
        await asyncio.to_thread(junit.discard)
    return diff, comparison.regressions, summary, samples


def _metrics(summary: Summary, diff: DiffSection) -> float:
    run = RunMetrics(
        "t", complete=True, exit_code=0, duration_s=1, finished_at_s=0, sections=(diff,)
    )
    text = generate_latest(metrics_registry(summary, run, last_success_s=None)).decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    return families["sitemap_audit_regressions"].samples[0].value


def _junit(path: Path) -> int:
    root = SafeET.parse(path).getroot()
    assert root is not None
    suite = root.find("testsuite[@name='regressions']")
    assert suite is not None
    return sum(1 for case in suite.findall("testcase") if case.find("failure") is not None)


def _html(summary: Summary, samples: Samples, decision: Decision, diff: DiffSection) -> int:
    facts = RunFacts("t", datetime(2026, 1, 1, tzinfo=UTC), "t", True, 1.0, {}, "r.json")
    view = build_view(
        summary,
        samples,
        verdict=decision.verdict,
        facts=facts,
        targets=(),
        parts=[diff.html()],
        new_codes=diff.new_codes,
    )
    found = re.search(r"New problems: ([\d,]+) regression", render_html(view))
    assert found is not None
    return int(found[1].replace(",", ""))


def _terminal(summary: Summary, samples: Samples, decision: Decision, diff: DiffSection) -> int:
    result = AuditResult(
        summary,
        Path("r.json"),
        Path("r.html"),
        True,
        False,
        (),
        1.0,
        samples,
        decision,
        diff.to_json(),
        None,
        (diff,),
    )
    lines = plain_lines(result, no_check=False)
    [said] = [line for line in lines if line.startswith("since the baseline")]
    found = re.match(r"since the baseline: ([\d,]+) regression", said)
    assert found is not None
    return int(found[1].replace(",", ""))
