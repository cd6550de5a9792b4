"""What the fleet tests share: the fleet file, the run, and the checks of its outputs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema

from auditor.cli.fleet_file import fleet_plan
from auditor.cli.fleet_run import main_fleet
from auditor.cli.parser import parse_command
from auditor.fleet.dask_runner import SiteTask
from auditor.fleet.outputs import fleet_schema
from auditor.fleet.run import FleetPlan
from auditor.fleet.task import audit_fleet_site
from auditor.flow.audit import audit
from tests.fleet.sites import Served
from tests.helpers import validate_report
from tests.html_checks import inspect_html

_VALIDATOR = jsonschema.Draft202012Validator(fleet_schema())

Summary = dict[str, Any]


def toml_fleet(path: Path, sites: Sequence[Served], options: dict[str, str]) -> Path:
    """A TOML fleet file: each site its `[[site]]` table, with the site's own option lines."""
    tables = []
    for site in sites:
        target = f"{site.base}/sitemap.xml" if site.kind == "silent" else f"{site.base}/"
        lines = ["[[site]]", f'name = "{site.name}"', f'target = "{target}"']
        if site.name in options:
            lines.append(options[site.name])
        tables.append("\n".join(lines))
    path.write_text("# the test's fleet\n\n" + "\n\n".join(tables) + "\n")
    return path


def read_summary(out: Path) -> Summary:
    """The one fleet summary under `out`, checked against its schema."""
    found = sorted(out.glob("fleet-*.json"))
    assert len(found) == 1, found
    summary: Summary = json.loads(found[0].read_text())
    _VALIDATOR.validate(summary)
    return summary


def check_named_reports(summary: Summary, folder: Path) -> None:
    """Every report the summary names exists and is a valid report; none named is missing."""
    for site in summary["sites"]:
        reports = site["reports"]
        if site["status"] != "done":
            assert reports is None
            continue
        for path in reports.values():
            assert (folder / path).is_file(), path
        validate_report(json.loads((folder / reports["json"]).read_text()))


def check_index(html_path: Path, summary: Summary) -> None:
    """The index: inert (its only links are the sites' reports, relative), a row per site."""
    problems, links = inspect_html(html_path.read_text())
    relative = {link for link in links if not link.startswith(("#", "http:", "https:"))}
    assert [p for p in problems if not any(repr(link) in p for link in relative)] == []
    for link in relative:
        assert ":" not in link.split("/", 1)[0], link  # no scheme: a file beside the index
        assert (html_path.parent / link).is_file(), link
    wanted = {site["reports"]["html"] for site in summary["sites"] if site["reports"]}
    assert wanted <= relative


def _plan(argv: list[str]) -> FleetPlan:
    args, config = parse_command(argv)
    assert config is None
    return fleet_plan(args, argv)


async def plan_of(argv: list[str]) -> FleetPlan:
    """The fleet's plan as the command makes it (in a thread: it checks files)."""
    return await asyncio.to_thread(_plan, argv)


def _run(argv: list[str], task: SiteTask) -> int:
    args, _ = parse_command(argv)
    return main_fleet(args, argv, no_color=True, task=task)


async def run_fleet_command(argv: list[str], *, task: SiteTask = audit_fleet_site) -> int:
    """The command's fleet run, with `task` for each site, in a thread (the sites are served by
    the test's loop); the exit code."""
    return await asyncio.to_thread(_run, argv, task)


async def single_runs(plan: FleetPlan, folder: Path, *, skip: set[str]) -> dict[str, Summary]:
    """Each site audited on its own, as a single run would (its report's summary, by name)."""
    sites = [site for site in plan.sites if site.name not in skip]
    results = await asyncio.gather(
        *(audit(replace(site.config, out=folder / site.name)) for site in sites)
    )
    found = {}
    for site, result in zip(sites, results, strict=True):
        report = json.loads(await asyncio.to_thread(result.json_path.read_text))
        found[site.name] = {"outcome": result.verdict.outcome.value, **report["summary"]}
    return found
