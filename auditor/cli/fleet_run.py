"""`sitemap-audit --fleet FILE`: the fleet run from the command line, its table and its summary.

While it runs, a table on stderr (a terminal only) shows the sites done, running and failed; at
the end, one line per site (worst first), the summary's and the index's paths, and the fleet's
verdict line (alone with --quiet). The first Ctrl-C or SIGTERM stops the fleet and writes what
ended (exit 3); the second leaves at once, without a summary.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from auditor.cli.fleet_file import fleet_plan
from auditor.cli.parser import PROG, QUIET_ALL
from auditor.cli.signals import stop_on_signals
from auditor.errors import ExitCode, RunError, UsageError
from auditor.fleet.dask_runner import SiteTask, import_distributed
from auditor.fleet.fleet_summary import worst_first
from auditor.fleet.run import FleetPlan, FleetResult, run_fleet
from auditor.fleet.sites import FleetSite, SiteOutcome
from auditor.fleet.task import audit_fleet_site
from auditor.report.section import printable

RECENT_ROWS = 8  # ended sites the live table keeps showing; the counts hold them all
_STYLES = {
    "PASS": "green",
    "FAIL": "red",
    "INCOMPLETE": "yellow",
    "FAILED": "yellow",
    "UNREACHABLE": "red",
}


def main_fleet(
    args: argparse.Namespace,
    argv: Sequence[str] | None,
    *,
    no_color: bool,
    task: SiteTask = audit_fleet_site,
) -> int:
    """Run the fleet of `--fleet`; the exit code (the worst of the sites')."""
    try:
        import_distributed()  # first: without the extra, nothing else is worth checking
        plan = fleet_plan(args, argv)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    stop = threading.Event()
    live = not (args.quiet or args.no_progress) and sys.stderr.isatty()
    try:
        stopping = stop_on_signals(stop, doing="stopping the fleet, writing its summary")
        with stopping, _table(plan, live=live, no_color=no_color) as table:
            result = run_fleet(plan, stop=stop, on_start=table.start, on_end=table.end, task=task)
    except (UsageError, RunError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; no fleet summary written", file=sys.stderr)
        return ExitCode.FAILED
    _print_result(result, quiet=args.quiet, no_color=no_color)
    return result.decision.exit_code


class FleetTable:
    """The sites done, running and failed; drawn live on a terminal, else only counted."""

    def __init__(self, plan: FleetPlan) -> None:
        """Every site waits until it starts."""
        self._total = len(plan.sites)
        self._running: dict[int, tuple[FleetSite, float]] = {}
        self._ended: list[SiteOutcome] = []
        self._live: Live | None = None

    def start(self, site: FleetSite) -> None:
        """A site was handed to the cluster."""
        self._running[site.index] = (site, time.monotonic())
        self._refresh()

    def end(self, outcome: SiteOutcome) -> None:
        """A site ended: audited, or failed."""
        self._running.pop(outcome.site.index, None)
        self._ended.append(outcome)
        self._refresh()

    def attach(self, live: Live) -> None:
        """Draw on `live` from now on."""
        self._live = live
        self._refresh()

    def _refresh(self) -> None:
        if self._live is not None:
            self._live.update(self.render())

    def render(self) -> Group:
        """The counts line and a table of the running sites and the last ones ended."""
        done = sum(1 for outcome in self._ended if outcome.report is not None)
        failed = len(self._ended) - done
        waiting = self._total - len(self._ended) - len(self._running)
        head = Text(f"{self._total} sites: {done} done, {len(self._running)} running, ")
        head.append(f"{failed} failed", style="yellow" if failed else "")
        head.append(f", {waiting} waiting")
        table = Table(box=None, show_header=False, pad_edge=False)
        now = time.monotonic()
        for site, since in self._running.values():
            table.add_row(Text("running", style="cyan"), site.name, f"{now - since:.0f} s")
        for outcome in self._ended[-RECENT_ROWS:][::-1]:
            label, text = _label(outcome)
            table.add_row(Text(label, style=_STYLES.get(label, "yellow")), outcome.site.name, text)
        return Group(head, table)


@contextmanager
def _table(plan: FleetPlan, *, live: bool, no_color: bool) -> Iterator[FleetTable]:
    table = FleetTable(plan)
    if not live:
        yield table
        return
    console = Console(stderr=True, no_color=no_color)
    with Live(table.render(), console=console, refresh_per_second=4, transient=True) as shown:
        table.attach(shown)
        yield table


def _label(outcome: SiteOutcome) -> tuple[str, str]:
    """What a site's line says: its verdict, or how it failed to run and why."""
    if outcome.report is not None:
        return outcome.report.outcome.value, outcome.report.verdict
    assert outcome.failure is not None
    return outcome.failure.kind.value.replace("_", " "), printable(outcome.failure.message)


def _print_result(result: FleetResult, *, quiet: int, no_color: bool) -> None:
    """A line per site, worst first, the paths and the verdict.

    As for a single run, `-q` prints the verdict line alone, on every run; `-qq` nothing.
    """
    if quiet >= QUIET_ALL:
        return
    if quiet:
        print(result.decision.line)
        return
    if sys.stdout.isatty():
        table = Table(box=None, pad_edge=False)
        for column in ("", "site", "verdict"):
            table.add_column(column)
        for outcome in worst_first(result.outcomes):
            label, text = _label(outcome)
            table.add_row(Text(label, style=_STYLES.get(label, "yellow")), outcome.site.name, text)
        Console(highlight=False, no_color=no_color).print(table)
    else:
        for outcome in worst_first(result.outcomes):
            label, text = _label(outcome)
            print(f"{label:<15} {outcome.site.name}: {text}")
    print(f"fleet summary: {result.json_path}")
    print(f"fleet index: {result.html_path}")
    print(result.decision.line)
