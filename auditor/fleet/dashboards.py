"""Monitoring at fleet scale: one metrics textfile with a `site` label, one JUnit suite per site.

The metrics carry the names a single run writes (auditor.report.metrics), each with the `site`
label beside `target`, so that one dashboard serves both; `sitemap_audit_fleet_*` describe the
fleet run itself. The JUnit file gathers the cases each site's audit wrote (its own
`--junit`, under its folder) into one suite per site; a site that did not run is one failing
case. Blocking file work, like the rest of the fleet's client side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from defusedxml import ElementTree as SafeET
from prometheus_client import CollectorRegistry, Gauge, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from auditor.codes import Code
from auditor.errors import ReportWriteError
from auditor.files import write_atomically
from auditor.fleet.sites import SiteOutcome, SiteStatus
from auditor.report.junit import xml_text
from auditor.report.metrics import LAST_SUCCESS, PREFIX


@dataclass(frozen=True, slots=True)
class FleetRun:
    """What the metrics say of the fleet run itself."""

    exit_code: int
    duration_s: float
    finished_at_s: float  # Unix time


def fleet_registry(
    outcomes: Sequence[SiteOutcome], run: FleetRun, *, last_success: Mapping[str, float]
) -> CollectorRegistry:
    """A registry of its own holding every site's gauges and the fleet's."""
    registry = CollectorRegistry(auto_describe=True)

    def gauge(name: str, doc: str, *labels: str) -> Gauge:
        return Gauge(f"{PREFIX}_{name}", doc, ["site", "target", *labels], registry=registry)

    gauges = {
        "duration": gauge("duration_seconds", "How long the site's audit ran."),
        "last_run": gauge("last_run_timestamp_seconds", "When the site's last run ended."),
        "success": gauge("last_success_timestamp_seconds", "When a run of the site last finished."),
        "complete": gauge("complete", "1 when the site's audit finished, 0 when it did not."),
        "exit_code": gauge("exit_code", "The site's exit code (3: it did not run to its end)."),
        "sitemaps": gauge("sitemaps", "Documents read, by kind.", "kind"),
        "urls": gauge("urls", "Distinct URLs listed."),
        "checked": gauge("urls_checked", "URLs requested."),
        "classes": gauge("urls_by_status_class", "Validated URLs by status class.", "status_class"),
        "severity": gauge("findings_by_severity", "Findings by severity.", "severity"),
        "codes": gauge("findings", "Findings by code.", "code", "severity"),
        "bytes": gauge("bytes_read", "Sitemap bytes read (uncompressed)."),
        "regressions": gauge("regressions", "Regressions since the site's baseline."),
    }
    for outcome in outcomes:
        _site_gauges(gauges, outcome, run, last_success.get(outcome.site.name))
    sites = Gauge(
        f"{PREFIX}_fleet_sites", "Sites by how they ended.", ["status"], registry=registry
    )
    for status in SiteStatus:
        sites.labels(status.value).set(sum(1 for o in outcomes if o.status is status))
    Gauge(f"{PREFIX}_fleet_exit_code", "The fleet's exit code.", registry=registry).set(
        run.exit_code
    )
    Gauge(f"{PREFIX}_fleet_duration_seconds", "How long the fleet ran.", registry=registry).set(
        run.duration_s
    )
    return registry


def _site_gauges(
    gauges: Mapping[str, Gauge], outcome: SiteOutcome, run: FleetRun, last_success: float | None
) -> None:
    site, report = outcome.site.name, outcome.report
    target = " ".join(item.input for item in outcome.site.config.targets)
    gauges["exit_code"].labels(site, target).set(outcome.exit_code)
    gauges["complete"].labels(site, target).set(int(report is not None and report.complete))
    if outcome.status is SiteStatus.NOT_RUN:
        return
    gauges["last_run"].labels(site, target).set(run.finished_at_s)
    if report is not None and report.complete:
        last_success = run.finished_at_s
    if last_success is not None:  # a site that failed keeps its previous success's time
        gauges["success"].labels(site, target).set(last_success)
    if report is None:
        return
    counts = report.counts
    gauges["duration"].labels(site, target).set(report.duration_s)
    for kind, n in counts.sitemaps_by_kind.items():
        gauges["sitemaps"].labels(site, target, kind).set(n)
    gauges["urls"].labels(site, target).set(counts.urls)
    gauges["checked"].labels(site, target).set(counts.checked)
    for status_class, n in counts.by_status_class.items():
        gauges["classes"].labels(site, target, status_class).set(n)
    for severity, n in counts.by_severity.items():
        gauges["severity"].labels(site, target, severity).set(n)
    for code, n in counts.by_code.items():
        gauges["codes"].labels(site, target, code, Code(code).severity.value).set(n)
    gauges["bytes"].labels(site, target).set(counts.bytes)
    if report.regressions is not None:
        gauges["regressions"].labels(site, target).set(report.regressions)


def previous_successes(path: Path) -> dict[str, float]:
    """Each site's last success time in an earlier fleet metrics file (none when unreadable)."""
    found: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(path.read_text(encoding="utf-8")):
            for sample in family.samples:
                if sample.name == LAST_SUCCESS and "site" in sample.labels:
                    found[sample.labels["site"]] = sample.value
    except (OSError, UnicodeDecodeError, ValueError):  # none yet, or damaged: start over
        return {}
    return found


def write_fleet_metrics(path: Path, outcomes: Sequence[SiteOutcome], run: FleetRun) -> None:
    """The textfile, written atomically (auditor.files: a new temporary file, then a rename)."""
    registry = fleet_registry(outcomes, run, last_success=previous_successes(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, generate_latest(registry))
    except OSError as exc:
        raise ReportWriteError(f"cannot write the metrics {path}: {exc.strerror}") from exc


def fleet_junit(outcomes: Sequence[SiteOutcome], *, duration_s: float) -> ET.Element:
    """`testsuites` with one `testsuite` per site: the cases of its own JUnit file."""
    root = ET.Element("testsuites", name="sitemap-audit fleet", time=f"{duration_s:.3f}")
    total = failed = 0
    for outcome in outcomes:
        suite = ET.SubElement(root, "testsuite", name=xml_text(outcome.site.name))
        cases = _site_cases(outcome)
        suite.extend(cases)
        failures = sum(1 for case in cases if case.find("failure") is not None)
        for name, value in (("tests", len(cases)), ("failures", failures)):
            suite.set(name, str(value))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total, failed = total + len(cases), failed + failures
    root.set("tests", str(total))
    root.set("failures", str(failed))
    root.set("errors", "0")
    return root


def _site_cases(outcome: SiteOutcome) -> list[ET.Element]:
    """The site's own cases, or one failing case saying why there are none."""
    report, failure = outcome.report, outcome.failure
    kind, message = (failure.kind.value, failure.message) if failure else ("", "")
    if report is not None and report.junit_path is not None:
        try:
            # Our own worker wrote it, but it crossed a shared folder: parsed defensively.
            root = SafeET.parse(report.junit_path).getroot()
            if root is not None:
                return list(root.iter("testcase"))
            kind, message = "junit_missing", "the site's JUnit file is empty"
        except (OSError, ET.ParseError) as exc:
            kind, message = "junit_missing", f"the site's JUnit file is unreadable: {exc}"
    elif report is not None:
        kind, message = "junit_missing", "the site's audit wrote no JUnit file"
    case = ET.Element("testcase", classname="sitemap-audit.fleet", name=xml_text(outcome.site.name))
    message = xml_text(message)  # an exception's text may hold what XML 1.0 cannot
    ET.SubElement(case, "failure", type=kind, message=f"{kind}: {message}").text = message
    return [case]


def write_fleet_junit(path: Path, outcomes: Sequence[SiteOutcome], *, duration_s: float) -> None:
    """The fleet's JUnit file, replaced whole."""
    root = fleet_junit(outcomes, duration_s=duration_s)
    try:
        write_atomically(path, ET.tostring(root, encoding="utf-8", xml_declaration=True))
    except OSError as exc:
        raise ReportWriteError(f"cannot write the JUnit file {path}: {exc.strerror}") from exc
