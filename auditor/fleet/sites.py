"""A fleet's sites and what each one's task gives back: small records that pickle. Pure: no I/O.

A site is one Dask task: its configuration goes to a worker, and a SiteReport (the audit ran,
its reports are written) or a SiteFailure (it could not run, or its worker was lost) comes back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from auditor.config import AuditConfig
from auditor.errors import ExitCode
from auditor.results.verdict import Outcome

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_FOLDER_CHARS = 80  # file systems allow 255 bytes a name; a folder name stays readable


class SiteStatus(StrEnum):
    """Where a site of the fleet ended."""

    DONE = "done"  # audited: its verdict and its reports
    FAILED = "failed"  # its task could not run it (retried once when it died)
    INTERRUPTED = "interrupted"  # running when the fleet was stopped
    NOT_RUN = "not_run"  # not started before the fleet was stopped


class FailureKind(StrEnum):
    """Why a site has no verdict."""

    WORKER_LOST = "worker_lost"  # its worker process died twice while running it
    ERROR = "error"  # its task raised, twice (retried once)
    UNUSABLE = "unusable"  # the audit refused to start (a report folder that cannot be written)
    REPORTS_MISSING = "reports_missing"  # written where the fleet's machine does not see them
    INTERRUPTED = "interrupted"  # the fleet was stopped while it ran
    NOT_RUN = "not_run"  # the fleet was stopped before it started


@dataclass(frozen=True, slots=True)
class FleetSite:
    """One site of the fleet file: its name, where the file names it, its whole configuration."""

    index: int  # its place in the fleet file, from 0
    name: str  # unique in the fleet; its reports' folder is named after it
    line: int  # the fleet file's line that names it
    config: AuditConfig


@dataclass(frozen=True, slots=True)
class SiteCounts:
    """What a site's audit counted: the summary's numbers, small enough to send back."""

    sitemaps: int
    urls: int
    checked: int
    bytes: int
    by_severity: dict[str, int]
    by_code: dict[str, int]
    by_status_class: dict[str, int]
    sitemaps_by_kind: dict[str, int]

    @property
    def errors(self) -> int:
        """Findings of severity error."""
        return self.by_severity.get("error", 0)


@dataclass(frozen=True, slots=True)
class SiteReport:
    """A site audited by its task: the run's one decision, its counts and its report files."""

    outcome: Outcome
    verdict: str  # the verdict line, as the site's own report and terminal show it
    exit_code: int
    complete: bool
    duration_s: float
    counts: SiteCounts
    regressions: int | None  # since its baseline (None: it had none)
    json_path: str  # as the worker wrote it: absolute
    html_path: str
    junit_path: str | None  # with the fleet's --junit
    worker: str  # host:pid of the process that ran it


@dataclass(frozen=True, slots=True)
class SiteFailure:
    """A site without a verdict, and why."""

    kind: FailureKind
    message: str


@dataclass(frozen=True, slots=True)
class SiteOutcome:
    """How one site ended: a report, or a failure (never neither)."""

    site: FleetSite
    report: SiteReport | None = None
    failure: SiteFailure | None = None

    @property
    def status(self) -> SiteStatus:
        """Done, failed, interrupted or not run."""
        if self.report is not None:
            return SiteStatus.DONE
        assert self.failure is not None
        if self.failure.kind is FailureKind.INTERRUPTED:
            return SiteStatus.INTERRUPTED
        if self.failure.kind is FailureKind.NOT_RUN:
            return SiteStatus.NOT_RUN
        return SiteStatus.FAILED

    @property
    def exit_code(self) -> int:
        """The site's own exit code; 3 for a site that did not run to its end.

        See docs/explanation/design.md#exit-codes.
        """
        return self.report.exit_code if self.report is not None else int(ExitCode.FAILED)


def folder_name(name: str) -> str:
    """A site's folder under --out: its name with anything but letters, digits, `._-` as `-`.

    Never empty, never `.` or `..`, never hidden (a leading dot).
    """
    cleaned = _UNSAFE.sub("-", name).strip("-.")[:MAX_FOLDER_CHARS]
    return cleaned or "site"
