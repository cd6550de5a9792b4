"""The Dask task: one site audited in its worker, exactly as a single run audits it.

A plain function of an importable module, so that Dask pickles it by reference: every worker
(and a remote scheduler) imports this package. It runs in the worker's task thread, where no
event loop runs: the audit gets a loop of its own (`--loop`), closed when it ends.
"""

from __future__ import annotations

import os
import socket

from auditor.errors import RunError, UsageError
from auditor.fleet.sites import FailureKind, FleetSite, SiteCounts, SiteFailure, SiteReport
from auditor.flow.audit import AuditResult, audit
from auditor.processes.event_loop import run_in_loop


def audit_fleet_site(site: FleetSite) -> SiteReport | SiteFailure:
    """Audit the site; its reports are written under its own folder when this returns.

    An audit that refuses to start (a report folder that cannot be written, an unreadable
    baseline) or whose outputs fail is a SiteFailure: trying again would fail again. Anything
    else raised is a bug, left to Dask, which runs the task once more and then reports it.
    """
    try:
        result = run_in_loop(audit(site.config), site.config.loop)
    except (UsageError, RunError) as exc:
        return SiteFailure(FailureKind.UNUSABLE, f"{type(exc).__name__}: {exc}")
    return site_report(result, junit=site.config.junit)


def site_report(result: AuditResult, *, junit: os.PathLike[str] | None) -> SiteReport:
    """What goes back to the fleet: the decision, the counts, the files written."""
    summary = result.summary
    counts = SiteCounts(
        sitemaps=summary.sitemaps,
        urls=summary.urls,
        checked=summary.checked,
        bytes=summary.bytes,
        by_severity={severity.value: n for severity, n in summary.by_severity().items()},
        by_code={code.value: n for code, n in sorted(summary.by_code.items())},
        # Plain strings (the counters' keys may be StrEnums): the summary is JSON.
        by_status_class={str(k): n for k, n in sorted(summary.by_status_class.items())},
        sitemaps_by_kind={str(k): n for k, n in sorted(summary.sitemaps_by_kind.items())},
    )
    decision = result.decision
    return SiteReport(
        outcome=decision.verdict.outcome,
        verdict=decision.verdict.line,
        exit_code=int(decision.exit_code),
        complete=result.complete,
        duration_s=round(result.duration_s, 3),
        counts=counts,
        regressions=decision.regressions,
        json_path=os.fspath(result.json_path.absolute()),
        html_path=os.fspath(result.html_path.absolute()),
        junit_path=os.fspath(junit) if junit is not None else None,
        worker=f"{socket.gethostname()}:{os.getpid()}",
    )
