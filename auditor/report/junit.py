"""`--junit PATH`: the run as JUnit XML, which GitLab, Jenkins and GitHub Actions show natively.

One test case per target (discovery), per sitemap, and per failing URL (capped: the cap and
the count left out are stated in a last test case). A case fails when it has a finding at or
above `--fail-on`; the failure's `type` is its first such code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from auditor.codes import Code
from auditor.config import FailOn
from auditor.errors import ReportWriteError
from auditor.files import write_atomically
from auditor.models import Finding, SitemapRecord, TargetRecord, UrlRecord

MAX_URL_CASES = 1_000  # failing URLs listed; the rest are counted in a last case
MAX_LINES = 20  # findings written out per failing case; all are counted


@dataclass(frozen=True, slots=True)
class Case:
    """One test case: what was tested, and the findings that fail it (empty: it passed)."""

    suite: str
    name: str
    failures: tuple[tuple[Code, str], ...]  # at most MAX_LINES (code, message)
    failing: int  # failing findings in all, also those not kept


class JunitCases:
    """Collects the cases as records pass the sink; bounded by the sitemap count and the cap."""

    def __init__(self, fail_on: FailOn) -> None:
        self._fail_on = fail_on
        self.targets: list[Case] = []
        self.sitemaps: list[Case] = []
        self.urls: list[Case] = []
        self.urls_left_out = 0

    def add_target(self, record: TargetRecord) -> None:
        """A target: its discovery findings."""
        self.targets.append(self._case("targets", record.input, record.findings, ()))

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document read (robots.txt too), with its own findings."""
        omitted = (code for code, n in record.findings_omitted.items() for _ in range(n))
        self.sitemaps.append(self._case("sitemaps", record.url, record.findings, omitted))

    def add_url(self, record: UrlRecord) -> None:
        """A URL: a case only when it fails."""
        findings = record.findings + (record.check.findings if record.check else ())
        if not any(self._fail_on.trips(item.severity) for item in findings):
            return
        if len(self.urls) >= MAX_URL_CASES:
            self.urls_left_out += 1
            return
        self.urls.append(self._case("urls", record.loc, findings, ()))

    def _case(
        self, suite: str, name: str, findings: Sequence[Finding], omitted: Iterable[Code]
    ) -> Case:
        trips = self._fail_on.trips
        failing = [(item.code, item.message) for item in findings if trips(item.severity)]
        failing += [(code, code.info.title) for code in omitted if trips(code.severity)]
        return Case(suite, name, tuple(failing[:MAX_LINES]), len(failing))


def junit_tree(cases: JunitCases, *, duration_s: float) -> ET.ElementTree:
    """`testsuites > testsuite > testcase > failure`, with consistent counts."""
    root = ET.Element("testsuites", name="sitemap-audit", time=f"{duration_s:.3f}")
    suites = [("targets", cases.targets), ("sitemaps", cases.sitemaps), ("urls", cases.urls)]
    total = failed = 0
    for name, listed in suites:
        suite = ET.SubElement(root, "testsuite", name=name)
        rows = list(listed)
        if name == "urls":
            properties = ET.SubElement(suite, "properties")
            ET.SubElement(properties, "property", name="max_url_cases", value=str(MAX_URL_CASES))
            if cases.urls_left_out:
                more = f"{cases.urls_left_out} more failing URLs (cap {MAX_URL_CASES})"
                rows.append(Case("urls", more, ((Code.INTERNAL_ERROR, more),), 1))
        for case in rows:
            _add_case(suite, case, left_out=name == "urls" and case.name.endswith("cap)"))
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


def _add_case(suite: ET.Element, case: Case, *, left_out: bool) -> None:
    element = ET.SubElement(suite, "testcase", classname=f"sitemap-audit.{case.suite}")
    element.set("name", _clean(case.name))
    if not case.failing:
        return
    code, message = case.failures[0]
    failure = ET.SubElement(element, "failure", type="cap" if left_out else code.value)
    failure.set("message", _clean(f"{code.value}: {message}" if not left_out else message))
    lines = [f"{code.value}: {message}" for code, message in case.failures]
    if case.failing > len(case.failures):
        lines.append(f"... {case.failing - len(case.failures)} more")
    failure.text = _clean("\n".join(lines))


def _clean(text: str) -> str:
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
