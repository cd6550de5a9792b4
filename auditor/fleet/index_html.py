"""The fleet's HTML index (`fleet-<UTC>.html`): every site worst first, linked to its report.

Self-contained as the site report is: jinja2 with autoescape, the report's own CSS and script
(sortable tables) inline and allowed by hash in a Content-Security-Policy that forbids every
request, a chart of errors per site in inline SVG (auditor.report.charts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from auditor.errors import ReportWriteError
from auditor.fleet.fleet_summary import FleetDecision, FleetFacts, relative, worst_first
from auditor.fleet.sites import SiteOutcome
from auditor.report.charts import HBarChart, Item, hbar_chart
from auditor.report.encode import TOOL
from auditor.report.html_writer import render_page, write_page

TEMPLATE = "fleet.html.j2"
CHART_SITES = 40  # the chart shows the sites with the most errors; the table shows every site
_TONES = {
    "PASS": "ok",
    "FAIL": "error",
    "INCOMPLETE": "warning",
    "FAILED": "warning",
    "UNREACHABLE": "error",
}


@dataclass(frozen=True, slots=True)
class SiteRow:
    """One site's row: what the table shows, and its sort keys."""

    name: str
    rank: int  # its place worst first: the status column sorts by it
    label: str  # PASS, FAIL, ... or how it failed to run
    tone: str  # a CSS class suffix
    text: str  # its verdict line, or why it has none
    targets: str
    errors: int | None
    warnings: int | None
    urls: int | None
    regressions: int | None
    duration: str
    report_href: str | None  # its HTML report, relative to the index
    json_href: str | None


@dataclass(frozen=True, slots=True)
class FleetView:
    """Everything the index shows, computed before rendering."""

    title: str
    generated_at: str
    tool: str
    complete: bool
    outcome: str
    verdict: str
    scheduler: str
    summary_name: str
    cards: tuple[tuple[str, str, str], ...]  # label, value, tone
    rows: tuple[SiteRow, ...]
    chart: HBarChart | None
    chart_note: str


def index_view(
    outcomes: Sequence[SiteOutcome],
    facts: FleetFacts,
    decision: FleetDecision,
    *,
    folder: Path,
    summary_name: str,
) -> FleetView:
    """The index's view; links are relative to `folder` (absolute), the index's. Pure."""
    rows = tuple(_row(rank, outcome, folder) for rank, outcome in enumerate(worst_first(outcomes)))
    failing = sorted((row for row in rows if row.errors), key=lambda row: -(row.errors or 0))
    items = [Item(row.name, row.errors or 0, "error") for row in failing[:CHART_SITES]]
    note = "Errors per site, most first"
    if len(failing) > CHART_SITES:
        note += f": the {CHART_SITES} of {len(failing)} sites with errors that have the most"
    count = {label: sum(1 for row in rows if row.label == label) for label in _TONES}
    cards = (
        ("Sites", f"{len(rows):,}", "none"),
        ("Pass", f"{count['PASS']:,}", "ok"),
        ("Fail", f"{count['FAIL']:,}", "error"),
        ("Failed to run", f"{len(rows) - sum(count.values()):,}", "warning"),
        ("Errors", f"{sum(row.errors or 0 for row in rows):,}", "error"),
    )
    return FleetView(
        title=facts.source,
        generated_at=facts.generated_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        tool=f"{TOOL['name']} {TOOL['version']}",
        complete=facts.complete,
        outcome=decision.outcome.value,
        verdict=decision.text,
        scheduler=facts.scheduler,
        summary_name=summary_name,
        cards=cards,
        rows=rows,
        chart=hbar_chart(items) if items else None,
        chart_note=note,
    )


def _row(rank: int, outcome: SiteOutcome, folder: Path) -> SiteRow:
    site, report, failure = outcome.site, outcome.report, outcome.failure
    targets = " ".join(target.input for target in site.config.targets)
    if report is None:
        assert failure is not None
        return SiteRow(
            name=site.name,
            rank=rank,
            label=failure.kind.value.replace("_", " "),
            tone="warning",
            text=failure.message,
            targets=targets,
            errors=None,
            warnings=None,
            urls=None,
            regressions=None,
            duration="",
            report_href=None,
            json_href=None,
        )
    counts = report.counts
    return SiteRow(
        name=site.name,
        rank=rank,
        label=report.outcome.value,
        tone=_TONES[report.outcome.value],
        text=report.verdict,
        targets=targets,
        errors=counts.errors,
        warnings=counts.by_severity.get("warning", 0),
        urls=counts.urls,
        regressions=report.regressions,
        duration=f"{report.duration_s:.1f} s",
        report_href=_href(report.html_path, folder),
        json_href=_href(report.json_path, folder),
    )


def _href(path: str, folder: Path) -> str:
    """A relative link to a report file, each part percent-encoded."""
    return quote(relative(Path(path), folder), safe="/")


def render_index(view: FleetView) -> str:
    """The index as one HTML document, with the site report's CSS and script (sorting)."""
    return render_page("auditor.fleet", TEMPLATE, view)


def write_index(path: Path, view: FleetView) -> None:
    """Render and publish the index at `path` atomically; ReportWriteError when that fails."""
    try:
        write_page(path, render_index(view))
    except OSError as exc:
        raise ReportWriteError(f"cannot write the fleet index {path}: {exc.strerror}") from exc
