"""The fleet's decision, its summary and its index, from outcomes made by hand (no Dask)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from auditor.config import AuditConfig, FailOn
from auditor.errors import BaselineError, ExitCode
from auditor.fleet.fleet_summary import (
    FleetFacts,
    decide_fleet,
    previous_reports,
    summary_json,
    worst_first,
)
from auditor.fleet.index_html import index_view, render_index
from auditor.fleet.outputs import fleet_schema
from auditor.fleet.sites import (
    FailureKind,
    FleetSite,
    SiteCounts,
    SiteFailure,
    SiteOutcome,
    SiteReport,
    SiteStatus,
    folder_name,
)
from auditor.results.verdict import Outcome
from tests.helpers import target
from tests.html_checks import inspect_html

FOLDER = Path("/srv/reports")
HOSTILE = '<img src=x onerror="alert(1)">'


def site(index: int, name: str) -> FleetSite:
    config = AuditConfig(targets=(target(f"https://{index}.example/"),), out=FOLDER / name)
    return FleetSite(index, name, index + 1, config)


def done(index: int, name: str, outcome: Outcome, errors: int = 0) -> SiteOutcome:
    counts = SiteCounts(3, 10, 10, 100, {"error": errors}, {}, {"2xx": 10}, {"urlset": 1})
    report = SiteReport(
        outcome=outcome,
        verdict=f"{outcome.value}: {HOSTILE}",
        exit_code=int({Outcome.PASS: 0, Outcome.FAIL: 1}.get(outcome, 3)),
        complete=outcome is not Outcome.INCOMPLETE,
        duration_s=1.5,
        counts=counts,
        regressions=None,
        json_path=str(FOLDER / name / "r.json"),
        html_path=str(FOLDER / name / "r.html"),
        junit_path=None,
        worker="host:1",
    )
    return SiteOutcome(site(index, name), report=report)


def failed(index: int, name: str, kind: FailureKind) -> SiteOutcome:
    return SiteOutcome(site(index, name), failure=SiteFailure(kind, HOSTILE))


def facts(*, complete: bool = True) -> FleetFacts:
    return FleetFacts(
        source="sites.toml",
        scheduler="local",
        generated_at=datetime(2026, 11, 23, 12, 0, tzinfo=UTC),
        duration_s=12.5,
        complete=complete,
        fail_on=FailOn.ERROR,
        baseline=None,
    )


@pytest.mark.parametrize(
    ("outcomes", "complete", "outcome", "code"),
    [
        ([Outcome.PASS, Outcome.PASS], True, Outcome.PASS, ExitCode.OK),
        ([Outcome.PASS, Outcome.FAIL], True, Outcome.FAIL, ExitCode.FINDINGS),
        ([Outcome.FAIL, Outcome.FAILED], True, Outcome.FAILED, ExitCode.FAILED),
        ([Outcome.PASS, FailureKind.WORKER_LOST], True, Outcome.FAILED, ExitCode.FAILED),
        ([Outcome.PASS, FailureKind.NOT_RUN], False, Outcome.INCOMPLETE, ExitCode.FAILED),
        ([], True, Outcome.PASS, ExitCode.OK),
        # A site that never answered (an outage): 3, so the recipe keeps the last summary.
        ([Outcome.PASS, Outcome.UNREACHABLE], True, Outcome.FAILED, ExitCode.FAILED),
    ],
)
def test_the_fleet_exits_as_its_worst_site(
    outcomes: list[Outcome | FailureKind], complete: bool, outcome: Outcome, code: ExitCode
) -> None:
    made = [
        done(i, f"s{i}", o) if isinstance(o, Outcome) else failed(i, f"s{i}", o)
        for i, o in enumerate(outcomes)
    ]
    decision = decide_fleet(made, complete=complete)
    assert (decision.outcome, decision.exit_code) == (outcome, code)
    assert decision.line.startswith(outcome.value)


def as_read(summary: object) -> dict[str, Any]:
    """The summary as a reader gets it: JSON."""
    read: dict[str, Any] = json.loads(json.dumps(summary))
    return read


def mixed() -> list[SiteOutcome]:
    return [
        done(0, "calm", Outcome.PASS),
        done(1, "worse", Outcome.FAIL, errors=9),
        failed(2, "lost", FailureKind.WORKER_LOST),
        done(3, "bad", Outcome.FAIL, errors=2),
        failed(4, "cut", FailureKind.INTERRUPTED),
        failed(5, "never", FailureKind.NOT_RUN),
    ]


def test_worst_first_orders_by_outcome_then_errors() -> None:
    order = [outcome.site.name for outcome in worst_first(mixed())]
    assert order[:3] == ["cut", "lost", "never"]  # no verdict: first, by name
    assert order[3:] == ["worse", "bad", "calm"]
    down = worst_first([*mixed(), done(6, "down", Outcome.UNREACHABLE, errors=2)])
    assert [outcome.site.name for outcome in down][3:5] == ["down", "worse"]


def test_the_summary_matches_its_schema_for_every_status() -> None:
    outcomes = [*mixed(), done(6, "down", Outcome.UNREACHABLE)]
    decision = decide_fleet(outcomes, complete=False)
    summary = as_read(summary_json(outcomes, facts(complete=False), decision, folder=FOLDER))
    jsonschema.Draft202012Validator(fleet_schema()).validate(summary)
    assert [s["status"] for s in summary["sites"]] == [
        "done",
        "done",
        "failed",
        "done",
        "interrupted",
        "not_run",
        "done",
    ]
    assert summary["counts"]["by_outcome"]["UNREACHABLE"] == 1
    first = summary["sites"][0]
    assert first["reports"] == {"json": "calm/r.json", "html": "calm/r.html"}
    assert summary["exit_code"] == 3


def test_a_done_site_without_reports_breaks_the_schema() -> None:
    summary = summary_json(
        [done(0, "a", Outcome.PASS)], facts(), decide_fleet([], complete=True), folder=FOLDER
    )
    summary["sites"][0]["reports"] = None  # type: ignore[index]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(fleet_schema()).validate(summary)


def test_previous_reports_are_read_from_the_summary_folder() -> None:
    outcomes = mixed()
    summary = summary_json(outcomes, facts(), decide_fleet(outcomes, complete=True), folder=FOLDER)
    found = previous_reports(summary, folder=Path("/mnt/old"), source=Path("old.json"))
    assert found == {
        "calm": Path("/mnt/old/calm/r.json"),
        "worse": Path("/mnt/old/worse/r.json"),
        "bad": Path("/mnt/old/bad/r.json"),
    }


@pytest.mark.parametrize(
    "summary",
    [
        [],
        {"schema_version": 1, "urls": []},  # a site's report
        {"format": "sitemap-audit-fleet", "schema_version": 2, "sites": []},
        {"format": "sitemap-audit-fleet", "schema_version": 1},
        {"format": "sitemap-audit-fleet", "schema_version": 1, "sites": [{"reports": None}]},
    ],
)
def test_anything_but_a_fleet_summary_is_no_baseline(summary: object) -> None:
    with pytest.raises(BaselineError):
        previous_reports(summary, folder=FOLDER, source=Path("x.json"))


def test_the_index_escapes_everything_and_links_each_report() -> None:
    outcomes = mixed()
    decision = decide_fleet(outcomes, complete=True)
    view = index_view(outcomes, facts(), decision, folder=FOLDER, summary_name="fleet.json")
    assert [row.name for row in view.rows][:3] == ["cut", "lost", "never"]
    assert view.chart is not None
    assert [bar.label for bar in view.chart.bars] == ["worse", "bad"]
    problems, links = inspect_html(render_index(view))
    relative = [link for link in links if not link.startswith("#")]
    assert sorted(relative) == sorted(
        f"{name}/r.{kind}" for name in ("calm", "worse", "bad") for kind in ("html", "json")
    )
    assert [p for p in problems if not any(repr(link) in p for link in relative)] == []


@pytest.mark.parametrize(
    ("name", "folder"),
    [("shop", "shop"), ("a b/c", "a-b-c"), ("..", "site"), (".hidden", "hidden"), ("", "site")],
)
def test_folder_names_are_safe(name: str, folder: str) -> None:
    assert folder_name(name) == folder


def test_a_site_status_follows_its_failure() -> None:
    assert failed(0, "a", FailureKind.ERROR).status is SiteStatus.FAILED
    assert failed(0, "a", FailureKind.INTERRUPTED).exit_code == 3
