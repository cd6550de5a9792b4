"""The fleet's one decision and its summary (`fleet-<UTC>.json`), from the sites' outcomes.

The exit code is the worst of the sites' (3 when any site did not run to its end). The summary
names every site of the fleet file, with its verdict, counts, duration, report paths (relative to
the summary's folder) or its failure. FLEET_SCHEMA_VERSION changelog (fields are only added
within a version): 1, the first. Pure: no I/O.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from auditor.config import FailOn
from auditor.errors import BaselineError, ExitCode
from auditor.fleet.sites import SiteOutcome, SiteReport, SiteStatus
from auditor.report.encode import TOOL, Json
from auditor.results.verdict import Outcome

FLEET_SCHEMA_VERSION = 1
FORMAT = "sitemap-audit-fleet"  # tells a fleet summary from a site's report
# Worst first: sites that did not run to their end, then failing sites, then passing ones.
_RANK = {
    Outcome.FAILED: 0,
    Outcome.INCOMPLETE: 1,
    Outcome.UNREACHABLE: 1,
    Outcome.FAIL: 2,
    Outcome.PASS: 3,
}


@dataclass(frozen=True, slots=True)
class FleetFacts:
    """What the summary says of the fleet run itself."""

    source: str  # the fleet file, as given
    scheduler: str  # "local" (an embedded LocalCluster) or the scheduler's address
    generated_at: datetime
    duration_s: float
    complete: bool  # False: stopped (Ctrl-C, SIGTERM) before every site ended
    fail_on: FailOn
    baseline: str | None  # the previous fleet summary (--baseline)


@dataclass(frozen=True, slots=True)
class FleetDecision:
    """How the fleet run ends: its outcome, exit code and verdict line."""

    outcome: Outcome
    exit_code: ExitCode
    text: str

    @property
    def line(self) -> str:
        """`FAIL: 12 sites: 6 pass, 4 fail, 2 failed to run; 120 errors`."""
        return f"{self.outcome.value}: {self.text}"


def decide_fleet(outcomes: Sequence[SiteOutcome], *, complete: bool) -> FleetDecision:
    """The worst of the sites: exit 3 when any did not run to its end.

    See docs/explanation/design.md#exit-codes.
    """
    worst = max((outcome.exit_code for outcome in outcomes), default=0)
    by_status = Counter(outcome.status for outcome in outcomes)
    reports = [outcome.report for outcome in outcomes if outcome.report is not None]
    verdicts = Counter(report.outcome for report in reports)
    parts = [f"{verdicts[Outcome.PASS]} pass", f"{verdicts[Outcome.FAIL]} fail"]
    unfinished = verdicts[Outcome.INCOMPLETE] + verdicts[Outcome.FAILED]
    if unfinished:
        parts.append(f"{unfinished} stopped by an internal error")
    if verdicts[Outcome.UNREACHABLE]:  # an outage: the site never answered (exit 3)
        parts.append(f"{verdicts[Outcome.UNREACHABLE]} unreachable")
    if by_status[SiteStatus.FAILED]:
        parts.append(f"{by_status[SiteStatus.FAILED]} failed to run")
    counted = f"{', '.join(parts)}; {_n(sum(r.counts.errors for r in reports), 'error')}"
    sites = _n(len(outcomes), "site")
    if not complete:
        ended = len(reports) + by_status[SiteStatus.FAILED]
        cancelled, waiting = by_status[SiteStatus.INTERRUPTED], by_status[SiteStatus.NOT_RUN]
        text = f"stopped after {ended} of {sites} ({counted}); {cancelled} cancelled, "
        return FleetDecision(Outcome.INCOMPLETE, ExitCode.FAILED, f"{text}{waiting} not started")
    text = f"{sites}: {counted}"
    if worst >= ExitCode.FAILED:
        return FleetDecision(Outcome.FAILED, ExitCode.FAILED, text)
    if worst == ExitCode.FINDINGS:
        return FleetDecision(Outcome.FAIL, ExitCode.FINDINGS, text)
    return FleetDecision(Outcome.PASS, ExitCode.OK, text)


def worst_first(outcomes: Sequence[SiteOutcome]) -> list[SiteOutcome]:
    """The sites in the order to read them, worst first.

    Not run to their end, failing, passing; then by errors (most first) and name.
    """

    def key(outcome: SiteOutcome) -> tuple[int, int, str]:
        report = outcome.report
        if report is None:
            return (-1, 0, outcome.site.name)
        return (_RANK[report.outcome], -report.counts.errors, outcome.site.name)

    return sorted(outcomes, key=key)


def summary_json(
    outcomes: Sequence[SiteOutcome], facts: FleetFacts, decision: FleetDecision, *, folder: Path
) -> Json:
    """The fleet summary; `folder` (absolute) holds it, the paths in it are relative to it."""
    by_status = Counter(outcome.status.value for outcome in outcomes)
    by_outcome = Counter(o.report.outcome.value for o in outcomes if o.report is not None)
    return {
        "schema_version": FLEET_SCHEMA_VERSION,
        "format": FORMAT,
        "tool": dict(TOOL),
        "generated_at": facts.generated_at.isoformat().replace("+00:00", "Z"),
        "complete": facts.complete,
        "source": facts.source,
        "scheduler": facts.scheduler,
        "fail_on": facts.fail_on.value,
        "baseline": facts.baseline,
        "outcome": decision.outcome.value,
        "verdict": decision.line,
        "exit_code": int(decision.exit_code),
        "duration_s": round(facts.duration_s, 3),
        "counts": {
            "sites": len(outcomes),
            "by_status": {status.value: by_status[status.value] for status in SiteStatus},
            "by_outcome": {outcome.value: by_outcome[outcome.value] for outcome in Outcome},
            "errors": sum(o.report.counts.errors for o in outcomes if o.report is not None),
        },
        "sites": [site_json(outcome, folder=folder) for outcome in outcomes],
    }


def site_json(outcome: SiteOutcome, *, folder: Path) -> Json:
    """One site of the summary: its verdict and counts, or its failure."""
    site, report, failure = outcome.site, outcome.report, outcome.failure
    baseline = site.config.baseline
    out: Json = {
        "index": site.index,
        "name": site.name,
        "line": site.line,
        "targets": [target.input for target in site.config.targets],
        "status": outcome.status.value,
        "exit_code": outcome.exit_code,
        "baseline": relative(baseline, folder) if baseline is not None else None,
        "failure": {"kind": failure.kind.value, "message": failure.message} if failure else None,
    }
    out.update(_report_json(report, folder=folder) if report else dict.fromkeys(_REPORT_KEYS))
    return out


_REPORT_KEYS = (
    "outcome",
    "verdict",
    "complete",
    "duration_s",
    "counts",
    "by_code",
    "by_status_class",
    "regressions",
    "reports",
    "worker",
)


def _report_json(report: SiteReport, *, folder: Path) -> Json:
    counts = report.counts
    reports = {"json": report.json_path, "html": report.html_path, "junit": report.junit_path}
    return {
        "outcome": report.outcome.value,
        "verdict": report.verdict,
        "complete": report.complete,
        "duration_s": report.duration_s,
        "counts": {
            "sitemaps": counts.sitemaps,
            "urls": counts.urls,
            "checked": counts.checked,
            "bytes": counts.bytes,
            **{severity: counts.by_severity.get(severity, 0) for severity in _SEVERITIES},
        },
        "by_code": dict(counts.by_code),
        "by_status_class": dict(counts.by_status_class),
        "regressions": report.regressions,
        "reports": {kind: relative(Path(path), folder) for kind, path in reports.items() if path},
        "worker": report.worker,
    }


_SEVERITIES = ("error", "warning", "notice")


def relative(path: Path, folder: Path) -> str:
    """`path` as seen from `folder` (both absolute), with `/` between parts."""
    return Path(os.path.relpath(path, folder)).as_posix()


def previous_reports(summary: object, *, folder: Path, source: Path) -> dict[str, Path]:
    """Each site's JSON report in an earlier fleet summary (read from `folder`), by name.

    BaselineError when `summary` is no fleet summary of this schema version. Sites that ended
    without a report are left out: they have no baseline.
    """
    if not isinstance(summary, Mapping) or summary.get("format") != FORMAT:
        raise BaselineError(f"--baseline {source}: not a fleet summary ({FORMAT})")
    version = summary.get("schema_version")
    if version != FLEET_SCHEMA_VERSION:
        raise BaselineError(f"--baseline {source}: fleet summary version {version!r}, not 1")
    sites = summary.get("sites")
    if not isinstance(sites, list):
        raise BaselineError(f"--baseline {source}: a fleet summary without its sites")
    found: dict[str, Path] = {}
    for site in sites:
        name = site.get("name") if isinstance(site, Mapping) else None
        reports = site.get("reports") if isinstance(site, Mapping) else None
        if not isinstance(name, str):
            raise BaselineError(f"--baseline {source}: a site without its name")
        if isinstance(reports, Mapping) and isinstance(reports.get("json"), str):
            found[name] = folder / reports["json"]
    return found


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
