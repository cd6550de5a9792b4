"""A fleet run: every site audited as a Dask task, then the fleet's outputs.

The summary is written once every site has ended, or once the run is stopped (the sites that
ended are in it, the others marked interrupted or not run, `complete` false). It never names a
report this machine cannot see. Blocking: run it in a thread of its own, outside any loop.

See docs/explanation/design.md#fleet.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from auditor.config import FailOn
from auditor.fleet.dashboards import FleetRun, write_fleet_junit, write_fleet_metrics
from auditor.fleet.dask_runner import ClusterSpec, Result, SiteTask, open_cluster, run_sites
from auditor.fleet.fleet_summary import FleetDecision, FleetFacts, decide_fleet, summary_json
from auditor.fleet.index_html import index_view, write_index
from auditor.fleet.outputs import summary_paths, write_summary
from auditor.fleet.sites import (
    FailureKind,
    FleetSite,
    SiteFailure,
    SiteOutcome,
    SiteStatus,
)
from auditor.fleet.task import audit_fleet_site


@dataclass(frozen=True, slots=True)
class FleetPlan:
    """Everything a fleet run needs: its sites, its cluster, where its outputs go."""

    source: Path  # the fleet file
    sites: tuple[FleetSite, ...]
    cluster: ClusterSpec
    out: Path  # the sites' folders and the auto-named summary go under it
    json: Path | None = None  # the summary here (not auto-named)
    html: Path | None = None  # the index here (default: beside the summary)
    fail_on: FailOn = FailOn.ERROR
    metrics: Path | None = None
    junit: Path | None = None
    baseline: Path | None = None  # the previous fleet summary


@dataclass(frozen=True, slots=True)
class FleetResult:
    """What a fleet run produced and how the process should exit."""

    outcomes: tuple[SiteOutcome, ...]  # in the fleet file's order
    decision: FleetDecision
    json_path: Path
    html_path: Path
    complete: bool
    duration_s: float


OnStart = Callable[[FleetSite], None]
OnEnd = Callable[[SiteOutcome], None]


def run_fleet(
    plan: FleetPlan,
    *,
    stop: threading.Event,
    on_start: OnStart | None = None,
    on_end: OnEnd | None = None,
    task: SiteTask = audit_fleet_site,
) -> FleetResult:
    """Audit every site, then write the summary, the index, and the metrics and JUnit files.

    Setting `stop` cancels the sites still running and writes what ended. UsageError before any
    site runs (no Dask, a scheduler that cannot be reached); ReportWriteError when an output
    cannot be written.
    """
    started_at, started = datetime.now(UTC), time.monotonic()
    json_path, html_path = summary_paths(
        plan.out, json_path=plan.json, html_path=plan.html, now=started_at
    )
    ended: dict[int, SiteOutcome] = {}
    with open_cluster(plan.cluster) as (client, limit):
        for site, result in run_sites(
            client, task, plan.sites, limit=limit, stop=stop, on_start=on_start or _nothing
        ):
            ended[site.index] = outcome = _seen(site, result)
            if on_end is not None:
                on_end(outcome)
        outcomes = tuple(ended[site.index] for site in plan.sites)
        unfinished = {SiteStatus.INTERRUPTED, SiteStatus.NOT_RUN}
        complete = not any(outcome.status in unfinished for outcome in outcomes)
        facts = FleetFacts(
            source=str(plan.source),
            scheduler=plan.cluster.scheduler or "local",
            generated_at=started_at,
            duration_s=time.monotonic() - started,
            complete=complete,
            fail_on=plan.fail_on,
            baseline=str(plan.baseline) if plan.baseline is not None else None,
        )
        # Written before the cluster closes: closing waits for the sites still running.
        decision = _publish(plan, outcomes, facts, json_path=json_path, html_path=html_path)
    if plan.cluster.scheduler is None:  # its workers are gone: nothing writes there any more
        for outcome in outcomes:
            if outcome.status is not SiteStatus.DONE:
                _sweep(outcome.site.config.out)
    return FleetResult(outcomes, decision, json_path, html_path, complete, facts.duration_s)


def _publish(
    plan: FleetPlan,
    outcomes: tuple[SiteOutcome, ...],
    facts: FleetFacts,
    *,
    json_path: Path,
    html_path: Path,
) -> FleetDecision:
    """The fleet's decision, and every output that says it."""
    decision = decide_fleet(outcomes, complete=facts.complete)
    write_summary(json_path, summary_json(outcomes, facts, decision, folder=json_path.parent))
    view = index_view(
        outcomes, facts, decision, folder=html_path.parent, summary_name=json_path.name
    )
    write_index(html_path, view)
    if plan.metrics is not None:
        run = FleetRun(int(decision.exit_code), facts.duration_s, time.time())
        write_fleet_metrics(plan.metrics, outcomes, run)
    if plan.junit is not None:
        write_fleet_junit(plan.junit, outcomes, duration_s=facts.duration_s)
    return decision


def _sweep(folder: Path) -> None:
    """A stopped or lost site's unfinished files: the hidden spools of its report."""
    for leftover in (*folder.glob(".*.part"), *folder.glob(".*.tmp")):
        leftover.unlink(missing_ok=True)


def _nothing(_site: FleetSite) -> None:
    return None


def _seen(site: FleetSite, result: Result) -> SiteOutcome:
    """The site's outcome, its reports checked from here.

    A worker on another machine writes into a folder this machine may not share, and the
    summary never names a missing file.
    """
    if isinstance(result, SiteFailure):
        return SiteOutcome(site, failure=result)
    missing = [path for path in (result.json_path, result.html_path) if not Path(path).is_file()]
    if missing:
        message = (
            f"{result.worker} wrote {missing[0]}, which is not here: --out must be a folder "
            "shared by every worker and this machine, at the same path"
        )
        return SiteOutcome(site, failure=SiteFailure(FailureKind.REPORTS_MISSING, message))
    if result.junit_path is not None and not Path(result.junit_path).is_file():
        result = replace(result, junit_path=None)  # its suite then says it is missing
    return SiteOutcome(site, report=result)
