"""`--junit PATH`: the run as JUnit XML, which GitLab, Jenkins and GitHub Actions show natively.

One test case per target (discovery), per sitemap, and per failing URL (capped: the cap and
the count left out are stated in a last test case). A case fails when it has a finding at or
above `--fail-on` that is not accepted (`--accept-file`); the failure's `type` is its first
such code. With `--baseline`, a suite of regressions holds one failing case per regression
(a URL, a document or a target with something new: docs/explanation/design.md#regressions),
named by what regressed and its code, with its sitemap as `file` and its line where known:
every regression fails the run, so every one is a failing case, and their count is the run's
regression count.
The file is streamed (the regressions from the comparison's table) and replaced atomically.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol
from xml.etree import ElementTree as ET

from auditor.codes import Code
from auditor.config import FailOn
from auditor.errors import ReportWriteError
from auditor.files import replaced_atomically
from auditor.models import Finding, NotIndexable, Regression, SitemapRecord, TargetRecord, UrlRecord

MAX_URL_CASES = 1_000  # failing URLs listed; the rest are counted
MAX_LINES = 20  # findings written out per failing case; all are counted
REGRESSION = "regression"  # the failure type of a regression case
_KNOWN = {code.value: code for code in Code}


@dataclass(frozen=True, slots=True)
class Case:
    """One test case: what was tested, and what fails it (empty: it passed)."""

    suite: str
    name: str
    failures: tuple[tuple[str, str], ...]  # at most MAX_LINES (type: a code, message)
    failing: int  # failing lines in all, also those not kept


@dataclass(slots=True)
class Suite:
    """One suite's cases; past `cap` cases, the rest are counted in a last one."""

    name: str
    cap: int | None = None
    noun: str = ""  # of the cases past the cap
    cases: list[Case] = field(default_factory=list)
    left_out: int = 0

    def add(self, case: Case) -> None:
        """Keep a case, or count it past the cap."""
        if self.cap is not None and len(self.cases) >= self.cap:
            self.left_out += 1
        else:
            self.cases.append(case)


class RegressionSource(Protocol):
    """The run's regressions, read back one at a time (auditor.monitoring.store.Comparison)."""

    regressions: int

    def regression_rows(self, *, limit: int | None = None) -> Iterator[Regression]:
        """Every regression (blocking)."""


class JunitCases:
    """Collects the cases as records pass the sink; bounded by the sitemap count and the caps."""

    def __init__(self, fail_on: FailOn) -> None:
        """Cases fail on findings at or above `fail_on`."""
        self._fail_on = fail_on
        self.targets = Suite("targets")
        self.sitemaps = Suite("sitemaps")
        self.urls = Suite("urls", cap=MAX_URL_CASES, noun="failing URLs")

    def suites(self) -> list[Suite]:
        """The suites gathered in memory (the regressions are streamed apart)."""
        return [self.targets, self.sitemaps, self.urls]

    def add_target(self, record: TargetRecord) -> None:
        """A target: its discovery findings."""
        self.targets.add(self._case("targets", record.input, record.findings, ()))

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document read (robots.txt too), with its own findings."""
        omitted = (code for code, n in record.findings_omitted.items() for _ in range(n))
        self.sitemaps.add(self._case("sitemaps", record.url, record.findings, omitted))

    def add_url(self, record: UrlRecord) -> None:
        """A URL: a case only when it fails."""
        check = record.fresh_check  # a carried verdict failed an earlier run, not this one
        findings = record.findings + (check.findings if check else ())
        if any(self._fails(item) for item in findings):
            self.urls.add(self._case("urls", record.loc, findings, ()))

    def _fails(self, item: Finding) -> bool:
        return not item.accepted and self._fail_on.trips(item.severity)

    def _case(
        self, suite: str, name: str, findings: Sequence[Finding], omitted: Iterable[Code]
    ) -> Case:
        trips = self._fail_on.trips
        failing = [(item.code.value, item.message) for item in findings if self._fails(item)]
        failing += [(code.value, code.info.title) for code in omitted if trips(code.severity)]
        return Case(suite, name, tuple(failing[:MAX_LINES]), len(failing))


def suite_element(listed: Suite) -> ET.Element:
    """One suite gathered in memory, with consistent counts."""
    suite = ET.Element("testsuite", name=listed.name)
    rows = list(listed.cases)
    if listed.cap is not None:
        properties = ET.SubElement(suite, "properties")
        name = f"max_{listed.name.removesuffix('s')}_cases"
        ET.SubElement(properties, "property", name=name, value=str(listed.cap))
    if listed.left_out:
        more = f"{listed.left_out} more {listed.noun} (cap {listed.cap})"
        rows.append(Case(listed.name, more, (("cap", more),), 1))
    for case in rows:
        _add_case(suite, case)
    _counts(suite, tests=len(rows), failures=sum(1 for case in rows if case.failing))
    return suite


def _counts(element: ET.Element, *, tests: int, failures: int) -> None:
    element.set("tests", str(tests))
    element.set("failures", str(failures))
    element.set("errors", "0")
    element.set("skipped", "0")


def _add_case(suite: ET.Element, case: Case) -> None:
    element = ET.SubElement(suite, "testcase", classname=f"sitemap-audit.{case.suite}")
    element.set("name", _clean(case.name))
    if not case.failing:
        return
    kind, message = case.failures[0]
    failure = ET.SubElement(element, "failure", type=kind)
    failure.set("message", _clean(message if kind == "cap" else f"{kind}: {message}"))
    lines = [f"{kind}: {message}" for kind, message in case.failures]
    if case.failing > len(case.failures):
        lines.append(f"... {case.failing - len(case.failures)} more")
    failure.text = _clean("\n".join(lines))


def regression_case(item: Regression) -> ET.Element:
    """One regression as a failing case: `URL code`, its sitemap as `file`, its line."""
    element = ET.Element("testcase", classname=f"sitemap-audit.{REGRESSION}s")
    element.set("name", _clean(f"{item.subject} {item.first_code}"))
    where = item.sitemap if item.kind == "url" else item.subject
    if where:
        element.set("file", _clean(where))
    if item.line is not None:
        element.set("line", str(item.line))
    failure = ET.SubElement(element, "failure", type=REGRESSION)
    lines = [f"{code}: new since the baseline" for code in item.codes]
    if item.verdict is not None:
        lines.append(f"became not indexable: {NotIndexable(item.verdict).label}")
    failure.set("message", _clean(f"{REGRESSION}: {item.first_code}"))
    failure.text = _clean("\n".join(lines))
    return element


def _clean(text: str) -> str:
    """XML 1.0 cannot hold most control characters, which network strings may carry."""
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


async def write_junit(
    path: Path,
    cases: JunitCases,
    *,
    duration_s: float,
    regressions: RegressionSource | None = None,
) -> None:
    """Write the file atomically: a temp file beside it, then a rename."""
    await asyncio.to_thread(_write, path, cases, duration_s, regressions)


def _write(
    path: Path, cases: JunitCases, duration_s: float, regressions: RegressionSource | None
) -> None:
    suites = [suite_element(listed) for listed in cases.suites()]
    tests = sum(int(suite.get("tests", "0")) for suite in suites)
    failures = sum(int(suite.get("failures", "0")) for suite in suites)
    if regressions is not None:
        tests += regressions.regressions
        failures += regressions.regressions
    root = ET.Element("testsuites", name="sitemap-audit", time=f"{duration_s:.3f}")
    _counts(root, tests=tests, failures=failures)
    try:
        with replaced_atomically(path) as out:
            out.write(b'<?xml version="1.0" encoding="utf-8"?>\n')
            out.write(_opening(root))
            for suite in suites:
                out.write(ET.tostring(suite, encoding="utf-8", xml_declaration=False))
            if regressions is not None:
                _write_regressions(out, regressions)
            out.write(b"</testsuites>\n")
    except OSError as exc:
        raise ReportWriteError(f"cannot write the JUnit file {path}: {exc.strerror}") from exc


def _write_regressions(out: BinaryIO, source: RegressionSource) -> None:
    suite = ET.Element("testsuite", name=f"{REGRESSION}s")
    _counts(suite, tests=source.regressions, failures=source.regressions)
    out.write(_opening(suite))
    for item in source.regression_rows():
        out.write(ET.tostring(regression_case(item), encoding="utf-8", xml_declaration=False))
    out.write(b"</testsuite>")


def _opening(element: ET.Element) -> bytes:
    """`<name attr="...">` of an element without children (ElementTree writes it closed)."""
    text: bytes = ET.tostring(element, encoding="utf-8", xml_declaration=False)
    assert text.endswith(b" />"), text
    return text[: -len(b" />")] + b">"
