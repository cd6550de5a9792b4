"""`--junit PATH`: the run as JUnit XML, which GitLab, Jenkins and GitHub Actions show natively.

One test case per target (discovery), per sitemap, and per failing URL (capped: the cap and
the count left out are stated in a last test case). A case fails when it has a finding at or
above `--fail-on`; the failure's `type` is its first such code. With `--baseline`, a suite of
regressions (DESIGN §8) holds one failing case per URL that went from 2xx to an error, and one
per code with more findings at or above `--fail-on` than the baseline had: each regression
fails the run (auditor.results.verdict), so each is a failing case, whatever `--fail-on` says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from auditor.codes import Code, Severity
from auditor.config import FailOn
from auditor.errors import ReportWriteError
from auditor.files import write_atomically
from auditor.models import Finding, SitemapRecord, TargetRecord, UrlRecord

MAX_URL_CASES = 1_000  # failing URLs listed (and regressed URLs); the rest are counted
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


class JunitCases:
    """Collects the cases as records pass the sink; bounded by the sitemap count and the caps."""

    def __init__(
        self, fail_on: FailOn, *, went_bad: Callable[[UrlRecord], bool] | None = None
    ) -> None:
        """`went_bad`: with --baseline, whether a URL regressed (monitoring UrlDiff.went_bad)."""
        self._fail_on = fail_on
        self._went_bad = went_bad
        self.targets = Suite("targets")
        self.sitemaps = Suite("sitemaps")
        self.urls = Suite("urls", cap=MAX_URL_CASES, noun="failing URLs")
        self.regressions = Suite("regressions", cap=MAX_URL_CASES, noun="regressions")

    def suites(self) -> list[Suite]:
        """The suites to write: regressions only with --baseline."""
        found = [self.targets, self.sitemaps, self.urls]
        return [*found, self.regressions] if self._went_bad is not None else found

    def add_target(self, record: TargetRecord) -> None:
        """A target: its discovery findings."""
        self.targets.add(self._case("targets", record.input, record.findings, ()))

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document read (robots.txt too), with its own findings."""
        omitted = (code for code, n in record.findings_omitted.items() for _ in range(n))
        self.sitemaps.add(self._case("sitemaps", record.url, record.findings, omitted))

    def add_url(self, record: UrlRecord) -> None:
        """A URL: a case only when it fails; with --baseline, one more when it regressed."""
        findings = record.findings + (record.check.findings if record.check else ())
        if self._went_bad is not None and self._went_bad(record):
            errors = [(i.code.value, i.message) for i in findings if i.severity is Severity.ERROR]
            lines = [(REGRESSION, "answered 2xx in the baseline, now an error"), *errors]
            self.regressions.add(
                Case("regressions", record.loc, tuple(lines[:MAX_LINES]), len(lines))
            )
        if any(self._fail_on.trips(item.severity) for item in findings):
            self.urls.add(self._case("urls", record.loc, findings, ()))

    def add_new_findings(self, new: Mapping[str, int]) -> None:
        """The diff's new findings by code (count up): those at or above --fail-on regressed."""
        for name, count in sorted(new.items()):
            code = _KNOWN.get(name)
            if code is not None and self._fail_on.trips(code.severity):
                message = f"{count:,} more {name} findings than in the baseline"
                self.regressions.add(Case("regressions", name, ((REGRESSION, message),), 1))

    def _case(
        self, suite: str, name: str, findings: Sequence[Finding], omitted: Iterable[Code]
    ) -> Case:
        trips = self._fail_on.trips
        failing = [(item.code.value, item.message) for item in findings if trips(item.severity)]
        failing += [(code.value, code.info.title) for code in omitted if trips(code.severity)]
        return Case(suite, name, tuple(failing[:MAX_LINES]), len(failing))


def junit_tree(cases: JunitCases, *, duration_s: float) -> ET.ElementTree:
    """`testsuites > testsuite > testcase > failure`, with consistent counts."""
    root = ET.Element("testsuites", name="sitemap-audit", time=f"{duration_s:.3f}")
    total = failed = 0
    for listed in cases.suites():
        suite = ET.SubElement(root, "testsuite", name=listed.name)
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
        failures = sum(1 for case in rows if case.failing)
        suite.set("tests", str(len(rows)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total, failed = total + len(rows), failed + failures
    root.set("tests", str(total))
    root.set("failures", str(failed))
    root.set("errors", "0")
    return ET.ElementTree(root)


def _add_case(suite: ET.Element, case: Case) -> None:
    element = ET.SubElement(suite, "testcase", classname=f"sitemap-audit.{case.suite}")
    element.set("name", xml_text(case.name))
    if not case.failing:
        return
    kind, message = case.failures[0]
    failure = ET.SubElement(element, "failure", type=kind)
    failure.set("message", xml_text(message if kind == "cap" else f"{kind}: {message}"))
    lines = [f"{kind}: {message}" for kind, message in case.failures]
    if case.failing > len(case.failures):
        lines.append(f"... {case.failing - len(case.failures)} more")
    failure.text = xml_text("\n".join(lines))


def xml_text(text: str) -> str:
    """XML 1.0 cannot hold most control characters, which network strings may carry."""
    return "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)


async def write_junit(path: Path, cases: JunitCases, *, duration_s: float) -> None:
    """Write the file atomically: a temp file beside it, then a rename."""
    tree = junit_tree(cases, duration_s=duration_s)
    await asyncio.to_thread(_replace, path, tree)


def _replace(path: Path, tree: ET.ElementTree) -> None:
    root = tree.getroot()
    assert root is not None, "junit_tree builds a root"
    try:
        write_atomically(path, ET.tostring(root, encoding="utf-8", xml_declaration=True))
    except OSError as exc:
        raise ReportWriteError(f"cannot write the JUnit file {path}: {exc.strerror}") from exc
